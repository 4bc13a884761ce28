/* Chapter 07: what naive.cu and optimized.cu share. */
#ifndef ILP_PROBLEM_H
#define ILP_PROBLEM_H

#include "chapter.h"

struct ilp_copy {
    long n;      /* floats copied from in to out */
    int warps;   /* warps per SM: the --warps knob */
    int ilp;     /* 16-byte loads in flight per thread in the optimized copy: the --ilp knob */
    int sms;     /* multiprocessors of this GPU */
    float *in;   /* device input (cudaMalloc: 256-byte aligned, so float4 accesses are too) */
    float *out;  /* device output: out[i] = in[i] */
    float *h_in; /* host copy of the input, the reference */
};

extern const struct problem PROBLEM;

/* The launch both programs use: one block of 32 * warps threads per SM, so
 * every SM holds exactly `warps` warps whatever the kernel does. The low
 * occupancy is fixed by the launch, not by the kernel's resources. */
static inline dim3 copy_grid(const struct ilp_copy *c) { return dim3((unsigned)c->sms); }
static inline dim3 copy_block(const struct ilp_copy *c) { return dim3(32u * (unsigned)c->warps); }

/* Both kernels copy n / 4 float4s; the n % 4 floats after the last whole
 * float4 (at most 3) are copied here, one by each of the grid's first threads,
 * before the loop (elements no loop touches). Not the lesson, so it lives here,
 * the same for both programs. */
static __device__ __forceinline__ void copy_tail(float *out, const float *in, long n)
{
    long t = 4 * (n / 4) + blockIdx.x * (long)blockDim.x + threadIdx.x;
#ifdef PLANT_NO_TAIL /* planted fault: the n % 4 floats past the last float4 are never copied */
    t = n;
#endif
    if (t < n)
        out[t] = in[t];
}

#endif
