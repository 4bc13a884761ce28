/* Chapter 20: what naive.cu, optimized.cu and library.cu share. */
#ifndef TRANSPOSE_PROBLEM_H
#define TRANSPOSE_PROBLEM_H

#include "chapter.h"

/* Both kernels move a TILE x TILE block of the matrix per thread block, with
 * TILE x BLOCK_ROWS threads, each thread handling TILE / BLOCK_ROWS elements. */
#define TILE 32
#define BLOCK_ROWS 8

struct transpose {
    long n;        /* the matrix is n x n floats, row-major */
    float *in;     /* device input */
    float *out;    /* device output: out[c][r] = in[r][c] */
    float *h_in;   /* host copy of the input, for the reference */
    void *library; /* library.cu's handle */
};

extern const struct problem PROBLEM;

/* The launch both programs use: one block per tile. */
static inline dim3 transpose_grid(long n)
{
    return dim3((unsigned)((n + TILE - 1) / TILE), (unsigned)((n + TILE - 1) / TILE));
}

#endif
