/* Chapter 06, the problem: y = 1.5 * x over n floats, a pure stream through
 * memory (one read and one write per element, one multiply). Bit-exact check:
 * the GPU's float multiply rounds exactly as the CPU's does. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

static size_t array_bytes(long n) { return (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

/* Input, the downloaded output and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * array_bytes(c->size); }

static void *create(const struct config *c)
{
    struct scale *t = (struct scale *)calloc(1, sizeof *t);
    t->n = c->size;
    t->warps_per_sm = (int)c->knob[0]; /* a power of two up to 8, or a multiple of 8 */
    CUDA_CHECK(cudaDeviceGetAttribute(&t->sms, cudaDevAttrMultiProcessorCount, 0));
    size_t bytes = array_bytes(t->n);
    t->h_x = (float *)host_alloc(bytes);
    rng_fill_f32(t->h_x, (size_t)t->n, -1.0f, 1.0f, c->seed, 0);
    t->x = (float *)device_alloc(bytes);
    t->y = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(t->x, t->h_x, bytes, cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct scale *t = (struct scale *)data;
    poison_device(t->y, array_bytes(t->n));
}

static int check(void *data, struct check_report *r)
{
    struct scale *t = (struct scale *)data;
    size_t n = (size_t)t->n, bytes = array_bytes(t->n);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, t->y, bytes, cudaMemcpyDeviceToHost));
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        ref[i] = SCALE * t->h_x[i];
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* Read x once, write y once. */
static double bytes(const void *data)
{
    return 2.0 * array_bytes(((const struct scale *)data)->n);
}

static double flops(const void *data) { return (double)((const struct scale *)data)->n; }

static void destroy(void *data)
{
    struct scale *t = (struct scale *)data;
    CUDA_CHECK(cudaFree(t->x));
    CUDA_CHECK(cudaFree(t->y));
    free(t->h_x);
    free(t);
}

const struct problem PROBLEM = {
    .number = 6,
    .slug = "latency-hiding",
    .title = "Latency hiding: enough resident warps to keep memory busy",
    .section = "5.2.3",
    .size_help = "floats to scale, y = 1.5 x (256M: 1 GiB in, 1 GiB out)",
    .default_size = 268435456,
    .small_size = 999999,
    .odd_size = 33554431,
    .min_size = 1,
    .max_size = 2147483648L,
    .knobs = {{"warps-per-sm", "resident warps per SM of the optimized launch (the naive always "
                               "has 8)", 64, 1, 64, 8, KNOB_POWER_OF_TWO_OR_MULTIPLE}},
    .nknobs = 1,
    .test_options = {"--warps-per-sm 1", "--warps-per-sm 8", "--warps-per-sm 24"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                   "dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
                   "gpu__time_duration.sum",
    /* The curve of bandwidth against resident warps per SM (the default, 64,
     * is its last point). The naive ignores the knob: its rows are a control. */
    .sweeps = {"--warps-per-sm 1", "--warps-per-sm 2", "--warps-per-sm 4", "--warps-per-sm 8",
               "--warps-per-sm 16", "--warps-per-sm 24", "--warps-per-sm 32",
               "--warps-per-sm 40", "--warps-per-sm 48", "--warps-per-sm 56"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
