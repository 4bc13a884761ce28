/* Chapter 35: what naive.cu and optimized.cu share. */
#ifndef RESTRICT_PROBLEM_H
#define RESTRICT_PROBLEM_H

#include "chapter.h"

/* A vertical stencil: out[y][x] = sum over k of w[k] * in[y + k][x], k = 0..TAPS-1,
 * for an n x n output from an input of n + 2 RADIUS rows (the halo). Each
 * thread computes --rows consecutive outputs of one column, so that the
 * rows its outputs share could be loaded once and kept in registers. */
#define RADIUS 4
#define TAPS (2 * RADIUS + 1)
#define BLOCK 256
#define MAX_ROWS 16 /* the largest --rows: the input is allocated for it */

struct stencil {
    long n;          /* the output is n x n floats, row-major */
    int rows;        /* --rows: outputs per thread, down a column */
    long in_rows;    /* rows of the input allocation: a multiple of MAX_ROWS, plus the halo */
    float *in, *out; /* device input (in_rows x n) and output (n x n) */
    float *w;        /* device weights, TAPS floats */
    float *h_in, h_w[TAPS];
};

extern const struct problem PROBLEM;

static inline dim3 stencil_grid(long n, int rows)
{
    return dim3((unsigned)((n + BLOCK - 1) / BLOCK), (unsigned)((n + rows - 1) / rows));
}

#endif
