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
    unsigned long long *stamps; /* device: kernel k's start and end at [2k], [2k + 1] (ns) */
    cudaGraphExec_t graph;  /* the whole batch, captured once by batch_capture() */
    cudaStream_t *streams;  /* optimized.cu only, while it captures */
    cudaEvent_t edge;       /* optimized.cu only: the fork and join of its streams */
};

extern const struct problem PROBLEM;

/* The launches of one batch, made into `origin` (and streams forked from it)
 * while origin is being captured. This is where the two programs differ. */
typedef void (*batch_submit)(struct batch *b, cudaStream_t origin);

/* Both programs run their batch the same way: submit() is captured once into
 * a CUDA graph, and every run is one cudaGraphLaunch of it. The host's launch
 * cost is then one call in both programs, and what is timed is the GPU. */
void batch_capture(struct batch *b, batch_submit submit);
void batch_run(void *data, cudaStream_t stream);
void batch_release(void *data);

/* One step of Marsaglia's xorshift32: six integer instructions, each needing
 * the result of the one before. The kernels and the CPU reference share it. */
__host__ __device__ static inline unsigned xorshift32(unsigned x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* The GPU's nanosecond timer, the same on every SM: when a kernel ran. */
__device__ static inline unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#endif
