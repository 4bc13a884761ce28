/* Chapter 03: what naive.cu and optimized.cu share. */
#ifndef CONCURRENCY_PROBLEM_H
#define CONCURRENCY_PROBLEM_H

#include "chapter.h"

#include <stdint.h>

/* The GPU's work: ROUNDS steps of the generator x = A x + C (mod 2^32) per
 * element (the constants of Numerical Recipes' generator). */
#define LCG_A 1664525u
#define LCG_C 1013904223u

/* The CPU's work: a running hash over the GPU's results in order,
 * h = (h ^ word) * PRIME, starting from BASIS (32-bit FNV constants). */
#define FNV_BASIS 2166136261u
#define FNV_PRIME 16777619u

/* Threads per block of the kernel, one element per thread. */
#define BLOCK 256

struct batches {
    long n;               /* elements (32-bit words) */
    int batches;          /* --batches: pieces the work is cut into */
    int rounds;           /* --rounds: generator steps per element, the GPU's cost */
    uint32_t *d_in;       /* device input, uploaded once */
    uint32_t *d_out;      /* device results */
    uint32_t *h_in;       /* host copy of the input, for the reference */
    uint32_t *h_res;      /* pinned host memory: the results, downloaded batch by batch */
    uint32_t *digest;     /* the output: digest[i] = the running hash after word i */
    cudaEvent_t done[2];  /* optimized.cu's: "batch b is back" in done[b % 2] */
};

extern const struct problem PROBLEM;

/* Batch b covers elements [batch_first(p, b), batch_first(p, b + 1)). The product b n
 * passes 2^31 at --batches 4096 and the small size (a test option): it needs 64 bits. */
static inline long batch_first(const struct batches *p, long b)
{
#ifdef PLANT_PRODUCT_32BIT /* planted fault: the product taken in 32-bit unsigned arithmetic */
    return (long)((uint32_t)b * (uint32_t)p->n) / p->batches;
#else
    return b * p->n / p->batches;
#endif
}

/* Queue batch b's kernel and the download of its results in stream s;
 * returns at once. */
void gpu_batch(const struct batches *p, long b, cudaStream_t s);

/* The host's post-processing of batch b, which must be back in h_res.
 * It continues the hash where batch b - 1 left it, so batches go in order. */
void cpu_batch(struct batches *p, long b);

/* The chapter's evidence, printed after the timing: the GPU's and the CPU's
 * work each timed alone, their sum, and one call of run timed end to end. */
void report_overlap(void *data, void (*run)(void *, cudaStream_t));

#endif
