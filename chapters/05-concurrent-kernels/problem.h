/* Chapter 05: what naive.cu and optimized.cu share. */
#ifndef CONCURRENT_PROBLEM_H
#define CONCURRENT_PROBLEM_H

#include "chapter.h"

/* Every kernel is one block of this many threads: 8 warps on one SM. */
#define BLOCK 256

struct batch {
    long n;                 /* elements per kernel: kernel k owns in/out[k * n, (k + 1) * n) */
    int kernels;            /* independent kernels per run (knob) */
    int nstreams;           /* streams the optimized program spreads them over (knob) */
    int rounds;             /* xorshift steps per element: sets each kernel's length (knob) */
    int *in, *out;          /* device, kernels * n each */
    int *h_in;              /* host copy of the input, for the reference */
    cudaStream_t *streams;  /* optimized.cu only: created in prepare, destroyed in release */
};

extern const struct problem PROBLEM;

/* One step of Marsaglia's xorshift32: six integer instructions, each needing
 * the result of the one before. The kernels and the CPU reference share it. */
__host__ __device__ static inline unsigned xorshift32(unsigned x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

#endif
