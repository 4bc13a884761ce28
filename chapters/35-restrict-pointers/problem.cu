/* Chapter 35, the problem: a 9-tap vertical stencil over an n x n float
 * image, out[y][x] = sum_k w[k] * in[y + k][x], with an input of n + 8 rows
 * (the halo) and random weights. Checked against a double-precision
 * reference, within the rounding error a chain of TAPS fmaf can make. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_ROWS };

/* Rows allocated for the input: every row a thread of any --rows instance
 * may load (up to n rounded up to MAX_ROWS, plus the halo). Rows past
 * n + 2 RADIUS only feed outputs that are not stored; they hold random data
 * too, so that nothing is read uninitialised. */
static long input_rows(long n) { return (n + MAX_ROWS - 1) / MAX_ROWS * MAX_ROWS + 2 * RADIUS; }

static size_t device_bytes(const struct config *c)
{
    return ((size_t)input_rows(c->size) + (size_t)c->size) * (size_t)c->size * sizeof(float);
}

/* Input (4 bytes per element), the downloaded output (4) and the reference (8). */
static size_t host_bytes(const struct config *c)
{
    return (size_t)input_rows(c->size) * (size_t)c->size * 4 + (size_t)c->size * c->size * 12;
}

static void *create(const struct config *c)
{
    struct stencil *t = (struct stencil *)calloc(1, sizeof *t);
    t->n = c->size;
    t->rows = (int)c->knob[KNOB_ROWS];
    t->in_rows = input_rows(t->n);
    size_t in_elems = (size_t)t->in_rows * t->n, out_elems = (size_t)t->n * t->n;
    t->h_in = (float *)host_alloc(in_elems * sizeof(float));
    rng_fill_f32(t->h_in, in_elems, -1.0f, 1.0f, c->seed, 0);
    rng_fill_f32(t->h_w, TAPS, -0.5f, 0.5f, c->seed, 1);
    t->in = (float *)device_alloc(in_elems * sizeof(float));
    t->out = (float *)device_alloc(out_elems * sizeof(float));
    t->w = (float *)device_alloc(TAPS * sizeof(float));
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, in_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(t->w, t->h_w, TAPS * sizeof(float), cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct stencil *t = (struct stencil *)data;
    poison_device(t->out, (size_t)t->n * t->n * sizeof(float));
}

/* The kernel adds TAPS products with fmaf from 0: each fmaf rounds once, so
 * the error is at most gamma_TAPS * sum_k |w[k] in[y+k][x]| (Higham,
 * "Accuracy and Stability of Numerical Algorithms", sec. 3.1), where
 * gamma_m = m u / (1 - m u) and u = 2^-24. The inputs lie in [-1, 1), so
 * sum_k |w[k]| bounds that sum for every element: one absolute tolerance.
 * A row or column off by one changes an output by about |w| |in|, some
 * 10^5 times more. */
static int check(void *data, struct check_report *r)
{
    struct stencil *t = (struct stencil *)data;
    size_t n = (size_t)t->n;
    float *got = (float *)host_alloc(n * n * sizeof(float));
    double *ref = (double *)host_alloc(n * n * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, t->out, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    double wsum = 0;
    for (int k = 0; k < TAPS; k++)
        wsum += fabs((double)t->h_w[k]);
    /* Row by row, the innermost loop along a row: one pass, vectorisable; the rows on all
     * cores (each row's sum is computed in the same order as on one). */
#pragma omp parallel for schedule(static)
    for (size_t y = 0; y < n; y++) {
        double *out = ref + y * n;
        for (size_t x = 0; x < n; x++)
            out[x] = 0;
        for (int k = 0; k < TAPS; k++) {
            const float *in = t->h_in + (y + k) * n;
            double wk = t->h_w[k];
            for (size_t x = 0; x < n; x++)
                out[x] += wk * in[x];
        }
    }
    const double u = 0x1.0p-24, m = TAPS;
    /* The double reference's own error (TAPS roundings of 2^-53) is
     * covered by the last term. */
    struct tolerance tol = {CHECK_ABS_REL, 0, m * u / (1 - m * u) * wsum + 1e-12, 0, 0};
    check_f32(got, NULL, ref, n * n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes the stencil must move: each input row once (the halo
 * included), each output once. */
static double bytes(const void *data)
{
    const struct stencil *t = (const struct stencil *)data;
    return (double)sizeof(float) * t->n * (2.0 * t->n + 2 * RADIUS);
}

static double flops(const void *data)
{
    const struct stencil *t = (const struct stencil *)data;
    return 2.0 * TAPS * t->n * (double)t->n;
}

static void destroy(void *data)
{
    struct stencil *t = (struct stencil *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    CUDA_CHECK(cudaFree(t->w));
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 35,
    .slug = "restrict-pointers",
    .title = "Restricted pointers: loads the compiler may keep across stores",
    .section = "5.4",
    .size_help = "image side n: the output is n x n floats, the input n + 8 rows "
                 "(12288: 576 MiB each way)",
    .default_size = 12288,
    .small_size = 1000,
    .odd_size = 331,
    .min_size = 1,
    .max_size = 16384,
    .knobs = {{"rows", "outputs per thread, down a column (both programs)", 8, 1, MAX_ROWS, 0,
               KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--rows 2", "--rows 4"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Loads executed (the reloads), what DRAM moved (the same: reloads hit
     * the L1), the L1 hit rate, and the warps resident. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__sass_inst_executed_op_global_ld.sum,"
                   "smsp__sass_inst_executed_op_global_st.sum,"
                   "l1tex__t_sector_hit_rate.pct,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    /* One output per thread (nothing to keep across a store) and sixteen. */
    .sweeps = {"--rows 1", "--rows 16"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
