/* Chapter 19: what naive.cu, optimized.cu and library.cu share. */
#ifndef TILING_PROBLEM_H
#define TILING_PROBLEM_H

#include "chapter.h"

/* Both kernels compute one element of C per thread with TILE x TILE threads
 * per block, a TILE x TILE block of C; the tiled kernel also steps through
 * K in TILE-wide slices. */
#define TILE 32

struct gemm {
    long n;        /* C = A B, all three n x n floats, row-major */
    float *a, *b;  /* device inputs */
    float *c;      /* device output */
    float *h_a, *h_b; /* host copies of the inputs, for the reference */
    void *library; /* library.cu's handle */
};

extern const struct problem PROBLEM;

/* The launch both kernels use: one block per TILE x TILE block of C. */
static inline dim3 gemm_grid(long n)
{
    return dim3((unsigned)((n + TILE - 1) / TILE), (unsigned)((n + TILE - 1) / TILE));
}

#endif
