/* Chapter 01: what naive.cu and optimized.cu share. */
#ifndef LIMITER_PROBLEM_H
#define LIMITER_PROBLEM_H

#include "chapter.h"

/* The computation, y = 1 / (1 + exp(-(SCALE * x + SHIFT))): the logistic
 * function of a scaled and shifted input. With x in [-4, 4) the argument
 * of exp stays within [-6.5, 7.1], far from overflow and underflow. */
#define SCALE 1.7f
#define SHIFT 0.3f
#define X_LO -4.0f
#define X_HI 4.0f

/* Threads per block of every kernel, one element per thread. */
#define BLOCK 256

struct logistic {
    long n;        /* elements */
    int fast_exp;  /* --fast-exp: 1 uses the __expf intrinsic instead of expf */
    float *x;      /* device input */
    float *y;      /* device output (the naive program also keeps its
                      intermediates here) */
    float *h_x;    /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

static inline unsigned grid_for(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

/* The one instruction-level change this chapter measures: expf (about ten
 * instructions, at most 2 ulp off) or __expf (a multiply and one MUFU.EX2
 * on the special function unit, guarded by a compare and two predicated
 * multiplies for the denormal range when flush-to-zero is off; at most
 * 2 + floor(|1.173 v|) ulp off). The branch is uniform over the whole grid,
 * so it costs nothing. */
static __device__ __forceinline__ float exp_of(float v, int fast)
{
    return fast ? __expf(v) : expf(v);
}

#endif
