/* Chapter 20: what naive.cu, optimized.cu and library.cu share. */
#ifndef TRANSPOSE_PROBLEM_H
#define TRANSPOSE_PROBLEM_H

#include "chapter.h"

/* Both kernels move a TILE x TILE block of the matrix per thread block, with
 * TILE x rows threads, each thread handling TILE / rows elements. The pair's
 * lesson uses BLOCK_ROWS; --rows (a power of two up to TILE) changes it for
 * the sweep that asks whether more elements per thread close the gap to the
 * roof. */
#define TILE 32
#define BLOCK_ROWS 8

struct transpose {
    long n;        /* the matrix is n x n floats, row-major */
    int rows;      /* --rows: threads per tile column */
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
