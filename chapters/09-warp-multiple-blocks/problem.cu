/* Chapter 09, the problem: iterate a quadratic map on n floats. Bit-exact
 * check against the same fused multiply-adds on the CPU (fmaf is exactly
 * rounded on both sides). */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_BLOCK, KNOB_ITERS };

static size_t array_bytes(long n) { return (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

/* Input, downloaded output and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * array_bytes(c->size); }

static void *create(const struct config *c)
{
    struct quadmap *q = (struct quadmap *)calloc(1, sizeof *q);
    q->n = c->size;
    q->iters = (int)c->knob[KNOB_ITERS];
    q->block = (int)c->knob[KNOB_BLOCK];
    size_t bytes = array_bytes(q->n);
    q->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(q->h_in, (size_t)q->n, -MAP_C, MAP_C, c->seed, 0);
    q->in = (float *)device_alloc(bytes);
    q->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(q->in, q->h_in, bytes, cudaMemcpyHostToDevice));
    return q;
}

static void poison(void *data)
{
    struct quadmap *q = (struct quadmap *)data;
    poison_device(q->out, array_bytes(q->n));
}

static int check(void *data, struct check_report *r)
{
    struct quadmap *q = (struct quadmap *)data;
    size_t n = (size_t)q->n, bytes = array_bytes(q->n);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, q->out, bytes, cudaMemcpyDeviceToHost));
    /* Every element on its own: all cores, the same values as one. */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        float x = q->h_in[i];
        for (int j = 0; j < q->iters; j++)
            x = fmaf(x, x, -MAP_C);
        ref[i] = x;
    }
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* One fused multiply-add (2 flops) per iteration per element. */
static double flops(const void *data)
{
    const struct quadmap *q = (const struct quadmap *)data;
    return 2.0 * (double)q->n * q->iters;
}

static double bytes(const void *data) { return 2.0 * array_bytes(((const struct quadmap *)data)->n); }

static void destroy(void *data)
{
    struct quadmap *q = (struct quadmap *)data;
    CUDA_CHECK(cudaFree(q->in));
    CUDA_CHECK(cudaFree(q->out));
    free(q->h_in);
    free(q);
}

const struct problem PROBLEM = {
    .number = 9,
    .slug = "warp-multiple-blocks",
    .title = "Block sizes that are a multiple of the warp size",
    .section = "5.2.3",
    .size_help = "elements, one per thread, each iterated --iters times",
    .default_size = 4194304,
    .small_size = 10007,
    .odd_size = 333331,
    .min_size = 1,
    .max_size = 1073741824,
    .knobs = {
        {"block", "threads per block for both programs; 0: each program's own (48, 128)", 0, 0,
         1024},
        {"iters", "map iterations per element (fused multiply-adds per thread)", 512, 1, 65536},
    },
    .nknobs = 2,
    .test_options = {"--block 16", "--block 32", "--block 33", "--block 96", "--block 100",
                     "--block 128", "--iters 16",
                     /* The compiled loop (sm_90, #pragma unroll 16) runs passes of 16 steps,
                      * then single steps (iters % 16); 512 and 16 reach only the first. 17
                      * runs both, 1 only the single step. */
                     "--iters 1", "--iters 17"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GFLOPS,
    .ncu_metrics = "smsp__thread_inst_executed_per_inst_executed.ratio,smsp__warps_launched.sum,"
                   "smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,"
                   "gpu__time_duration.sum",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
