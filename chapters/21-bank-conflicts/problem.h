/* Chapter 21: what naive.cu and optimized.cu share. */
#ifndef BANKS_PROBLEM_H
#define BANKS_PROBLEM_H

#include "chapter.h"

/* Both kernels are chapter 20's tiled transpose: a block of TILE x rows
 * threads moves one TILE x TILE tile through shared memory, each thread
 * TILE / rows elements. They differ only in the width of the shared array. */
#define TILE 32
#define BLOCK_ROWS 8

struct banks {
    long n;        /* the matrix is n x n floats, row-major */
    int rows;      /* --rows: threads per tile column */
    float *in;     /* device input */
    float *out;    /* device output: out[c][r] = in[r][c] */
    float *h_in;   /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

/* One block per tile. */
static inline dim3 banks_grid(long n)
{
    return dim3((unsigned)((n + TILE - 1) / TILE), (unsigned)((n + TILE - 1) / TILE));
}

#endif
