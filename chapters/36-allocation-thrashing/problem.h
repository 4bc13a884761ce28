/* Chapter 36: what naive.cu and optimized.cu share: the loop's work (one
 * iteration = two kernels that pass data through a scratch buffer), and thin
 * wrappers that count and time every allocation call for the evidence. */
#ifndef ALLOCATION_PROBLEM_H
#define ALLOCATION_PROBLEM_H

#include "chapter.h"
#include "cuda_check.h"

#include <time.h>

enum strategy { STRATEGY_REUSE = 0, STRATEGY_POOL = 1 };

#define MAX_RUNS 4096 /* runs of the loop whose call time is kept (warm-up, check, samples) */

struct scratch_loop {
    long n;            /* --size: elements of x, y and the scratch buffer */
    int iters;         /* --iters: iterations of the loop, each needing the scratch */
    int strategy;      /* --strategy (optimized.cu only): enum strategy */
    unsigned *x, *y;   /* device input and output */
    unsigned *h_x;     /* host copy of x, for the reference */
    /* Counted by the wrappers below over every run of the loop. */
    long runs, alloc_calls, free_calls;
    /* Iterations queued while no scratch buffer was allocated: on one stream a
     * kernel queued after its buffer's cudaFreeAsync still reads the right
     * data (the pool hands the block on in stream order), so only this count
     * shows the use after free to check(). */
    long stale_iterations;
    /* The loop's stream (start_loop), where the kernels that use each scratch buffer run, and
     * the cudaFreeAsync calls queued on another stream: such a free is ordered after none of
     * those kernels, so the pool may hand the block on while they still use it, and with one
     * stream of work the data cannot show it. */
    cudaStream_t stream;
    long unordered_frees;
    long unordered_allocs; /* the same for cudaMallocAsync: not ordered before those kernels */
    double alloc_s, free_s; /* host seconds spent inside those calls */
    /* Each run's seconds inside the allocation and free calls, so that the
     * cost per iteration is a median over the same runs as the loop's time,
     * not a mean set beside a median. */
    double run_calls_s[MAX_RUNS];
    double calls_s_at_start; /* alloc_s + free_s when the current run started */
    size_t mem_free_before, mem_total;
};

extern const struct problem PROBLEM;

/* Starts a run of the loop: y = 0, then iterations 0 .. iters - 1. */
void start_loop(struct scratch_loop *w, cudaStream_t s);
/* Iteration k: scratch = x * (k + 1), then y += scratch + scratch reversed. */
void iteration(struct scratch_loop *w, unsigned *scratch, int k, cudaStream_t s);

static inline double host_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// [wrappers]
/* The CUDA calls themselves, each counted, with the host time spent inside it. */
static inline void timed_cudaMalloc(struct scratch_loop *w, unsigned **p)
{
    double t0 = host_clock();
    CUDA_CHECK(cudaMalloc((void **)p, w->n * sizeof **p));
    w->alloc_s += host_clock() - t0;
    w->alloc_calls++;
}

static inline void timed_cudaFree(struct scratch_loop *w, unsigned *p)
{
    double t0 = host_clock();
    CUDA_CHECK(cudaFree(p)); /* waits until the device is idle, then frees */
    w->free_s += host_clock() - t0;
    w->free_calls++;
}

static inline void timed_cudaMallocAsync(struct scratch_loop *w, unsigned **p, cudaStream_t s)
{
    double t0 = host_clock();
    CUDA_CHECK(cudaMallocAsync((void **)p, w->n * sizeof **p, s));
    w->alloc_s += host_clock() - t0;
    w->alloc_calls++;
    if (s != w->stream) /* not ordered before the loop's kernels: check() fails the run */
        w->unordered_allocs++;
}

static inline void timed_cudaFreeAsync(struct scratch_loop *w, unsigned *p, cudaStream_t s)
{
    double t0 = host_clock();
    CUDA_CHECK(cudaFreeAsync(p, s)); /* queued behind the work before it in s */
    w->free_s += host_clock() - t0;
    w->free_calls++;
    if (s != w->stream) /* not ordered after the loop's kernels: check() fails the run */
        w->unordered_frees++;
}
// [wrappers]

/* After the last run: the evidence lines (calls per iteration, time per call,
 * device memory before and after). Both programs' release(). */
void report_loop(void *data);

#endif
