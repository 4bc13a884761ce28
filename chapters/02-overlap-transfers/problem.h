/* Chapter 02: what naive.cu and optimized.cu share. */
#ifndef OVERLAP_PROBLEM_H
#define OVERLAP_PROBLEM_H

#include "chapter.h"

#include <stdint.h>

/* The compute stage: ROUNDS steps of the generator x = A x + C (mod 2^32)
 * per element (the constants of Numerical Recipes' generator). */
#define LCG_A 1664525u
#define LCG_C 1013904223u

/* Threads per block of the kernel, one element per thread. */
#define BLOCK 256

/* The most streams --streams allows. */
#define MAX_STREAMS 32

struct pipeline {
    long n;                 /* elements (32-bit words) */
    int streams;            /* --streams: streams the optimized program uses */
    int chunks;             /* --chunks: pieces the optimized program cuts the data into */
    int rounds;             /* --rounds: generator steps per element, the kernel's cost */
    uint32_t *h_in, *h_out; /* pinned host memory, in both programs */
    uint32_t *d_in, *d_out; /* device memory */
    cudaStream_t stream[MAX_STREAMS]; /* optimized.cu's streams */
    cudaEvent_t sync;       /* optimized.cu's fork and join point */
};

extern const struct problem PROBLEM;

/* Launch the compute stage on elements [first, first + count) of d_in,
 * writing the same elements of d_out, in stream s. */
void launch_rounds(const struct pipeline *p, long first, long count, cudaStream_t s);

/* The chapter's evidence, printed after the timing: each stage timed alone
 * on one stream, their sum, and one call of run timed end to end. */
void report_overlap(void *data, void (*run)(void *, cudaStream_t));

#endif
