/* Chapter 32: what naive.cu and optimized.cu share. */
#ifndef DIVERGENCE_PROBLEM_H
#define DIVERGENCE_PROBLEM_H

#include "chapter.h"

/* Threads per block: a multiple of 64, since the optimized program lets each
 * pair of warps share 64 consecutive elements. */
#define BLOCK 256

struct divergence {
    long n;          /* elements */
    int iters;       /* --iters: steps of each path's four recurrences */
    float *in, *out; /* device input and output */
    float *h_in;     /* host input */
};

extern const struct problem PROBLEM;

/* The work: element i takes one of two heavy paths, chosen by the parity of
 * i. Each path runs four independent linear recurrences y <- m*y + s*x for
 * `iters` steps (four FMAs a step, independent of each other, so that a warp
 * keeps the FMA pipe busy) and combines them. The two paths differ in their
 * constants and signs, enough that the compiler keeps two loops and cannot
 * fold them into one loop with selected constants: a branch between them
 * stays a branch. Both are linear in x, so the reference is x times a gain
 * the host computes once (problem.cu). The constants are shared with the
 * host through these macros. */
#define EVEN_M0 0.5f
#define EVEN_M1 0.25f
#define EVEN_M2 -0.5f
#define EVEN_M3 -0.25f
#define ODD_M0 0.75f
#define ODD_M1 0.125f
#define ODD_M2 -0.75f
#define ODD_M3 -0.125f

static __device__ __forceinline__ float path_even(float x, int iters)
{
    float a = x, b = x, c = x, d = x;
    for (int k = 0; k < iters; k++) {
        a = fmaf(a, EVEN_M0, x);
        b = fmaf(b, EVEN_M1, x);
        c = fmaf(c, EVEN_M2, x);
        d = fmaf(d, EVEN_M3, x);
    }
    return (a + b) + (c + d);
}

static __device__ __forceinline__ float path_odd(float x, int iters)
{
    float a = x, b = x, c = x, d = x;
    for (int k = 0; k < iters; k++) {
        a = fmaf(a, ODD_M0, -x);
        b = fmaf(b, ODD_M1, x);
        c = fmaf(c, ODD_M2, x);
        d = fmaf(d, ODD_M3, -x);
    }
    return (a - b) + (c - d);
}

static inline unsigned divergence_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
