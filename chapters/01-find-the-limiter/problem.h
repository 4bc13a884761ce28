/* Chapter 01: what naive.cu and optimized.cu share. */
#ifndef LIMITER_PROBLEM_H
#define LIMITER_PROBLEM_H

#include "chapter.h"

/* The computation, y = 1 / (1 + exp(-z)) with z = fmaf(SCALE, x, SHIFT): the
 * logistic function of a scaled and shifted input, its argument rounded once
 * (an explicit fused multiply-add, so that the CPU reference, whose fmaf is
 * correctly rounded too, holds the very float the GPU feeds to exp). With x in
 * [-4, 4) the argument of exp stays within [-6.5, 7.1], far from overflow and
 * underflow. */
#define SCALE 1.7f
#define SHIFT 0.3f
#define X_LO -4.0f
#define X_HI 4.0f

/* Threads per block of every kernel. Each thread moves one quad: four
 * consecutive floats as one 16-byte load and one 16-byte store, so that a warp
 * request moves 512 bytes and a full SM (2048 threads) keeps 32 KB of reads in
 * flight (enough for the copy roof by Little's law; see evidence.toml). */
#define BLOCK 256

/* Four consecutive floats, moved as one 16-byte access (cudaMalloc's arrays
 * start 256-byte aligned, so every quad of x and y is 16-byte aligned). */
struct __align__(16) quad {
    float f[4];
};

struct logistic {
    long n;        /* elements */
    int fast_exp;  /* --fast-exp: 1 uses the __expf intrinsic instead of expf */
    float *x;      /* device input */
    float *y;      /* device output (the naive program also keeps its
                      intermediates here) */
    float *h_x;    /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

/* Quads that cover n floats: the last one is partial when n is not a multiple of 4. */
static inline __host__ __device__ long quads(long n) { return (n + 3) / 4; }

/* One thread per quad. */
static inline unsigned grid_for(long n) { return (unsigned)((quads(n) + BLOCK - 1) / BLOCK); }

/* Quad q of a: one 16-byte load where all four floats lie below n, else one
 * load for each of the (at most three) that do: the array's tail. */
static __device__ __forceinline__ struct quad load_quad(const float *a, long q, long n)
{
    if (4 * q + 3 < n)
        return ((const struct quad *)a)[q];
    struct quad v = {{0.0f, 0.0f, 0.0f, 0.0f}};
    for (int k = 0; k < 3 && 4 * q + k < n; k++)
        v.f[k] = a[4 * q + k];
    return v;
}

/* Store quad q of a the same way: the floats at n and past it are not written. */
static __device__ __forceinline__ void store_quad(float *a, long q, long n, struct quad v)
{
    if (4 * q + 3 < n) {
        ((struct quad *)a)[q] = v;
        return;
    }
    for (int k = 0; k < 3 && 4 * q + k < n; k++)
        a[4 * q + k] = v.f[k];
}

/* The one instruction-level change this chapter measures: expf (about ten
 * instructions, at most 2 ulp off) or __expf (a multiply and one MUFU.EX2
 * on the special function unit, guarded by a compare and two predicated
 * multiplies for the denormal range when flush-to-zero is off; at most
 * 2 + floor(|1.173 v|) ulp off). The branch is uniform over the whole grid,
 * so it costs nothing. */
static __device__ __forceinline__ float exp_of(float v, int fast)
{
#ifdef PLANT_FAST_EXP
    (void)fast;
    return __expf(v); /* planted: the intrinsic where expf is meant; the check must fail */
#else
    return fast ? __expf(v) : expf(v);
#endif
}

#endif
