/* Chapter 04, the problem: softmax along every row of an n x n float matrix,
 * out[r][j] = exp(in[r][j] - max_r) / sum_j exp(in[r][j] - max_r).
 * Checked in ulps against a double-precision CPU softmax, with a bound
 * derived from the float operations both programs perform. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static size_t matrix_bytes(long n) { return (size_t)n * (size_t)n * sizeof(float); }

/* Input, output, and the naive program's row maxima and sums. */
static size_t device_bytes(const struct config *c)
{
    return 2 * matrix_bytes(c->size) + 2 * (size_t)c->size * sizeof(float);
}

/* Input, the downloaded output, and the reference in double. */
static size_t host_bytes(const struct config *c) { return 4 * matrix_bytes(c->size); }

static void *create(const struct config *c)
{
    struct softmax *t = (struct softmax *)calloc(1, sizeof *t);
    t->n = c->size;
    t->threads = (int)c->knob[0];
    size_t bytes = matrix_bytes(t->n);
    t->h_in = (float *)host_alloc(bytes);
    /* Row r is uniform in [o_r - 4, o_r + 4) with o_r = +ROW_OFFSET or
     * -ROW_OFFSET, the sign drawn per row. Softmax does not depend on the
     * value subtracted, so inputs near 0 would let a program with no row
     * maximum, or a wrong one, pass the check. These cannot: without the
     * maximum, expf overflows (e^92 > FLT_MAX, about e^88.7) or falls to a
     * denormal or 0 (e^-92); with the maximum of a row of the other sign,
     * x - max is about +-192 and the same happens. |x| lies in [92, 100],
     * where floats are 2^-17 apart; the values are on that grid, so x - max
     * is exact in float and the only rounding errors are the ones counted in
     * check(). The row's largest and smallest terms differ by up to e^8. */
    size_t count = (size_t)t->n * t->n;
    rng_fill_f32(t->h_in, count, -4.0f, 4.0f, c->seed, 0);
    int32_t *sign = (int32_t *)host_alloc((size_t)t->n * sizeof(int32_t));
    rng_fill_i32(sign, (size_t)t->n, 0, 1, c->seed, 1);
#pragma omp parallel for schedule(static)
    for (long row = 0; row < t->n; row++) {
        float o = sign[row] ? ROW_OFFSET : -ROW_OFFSET, *x = t->h_in + (size_t)row * t->n;
        for (long j = 0; j < t->n; j++)
            x[j] = o + ldexpf(rintf(ldexpf(x[j], 17)), -17); /* exact: both on the grid */
    }
    free(sign);
    t->in = (float *)device_alloc(bytes);
    t->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, bytes, cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct softmax *t = (struct softmax *)data;
    poison_device(t->out, matrix_bytes(t->n));
}

/* The largest number of float additions any one exp term goes through on its
 * way into a row sum (both programs sum the same way, block_reduce.h): its
 * thread's own running sum (ceil(n / threads) - 1 additions), then 5 shuffle
 * levels inside the warp and 5 across the warps. */
static long sum_depth(long n, int threads)
{
    return (n + threads - 1) / threads - 1 + 5 + 5;
}

static int check(void *data, struct check_report *r)
{
    struct softmax *t = (struct softmax *)data;
    size_t n = (size_t)t->n, count = n * n;
    float *got = (float *)host_alloc(matrix_bytes(t->n));
    double *ref = (double *)host_alloc(count * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, t->out, matrix_bytes(t->n), cudaMemcpyDeviceToHost));
    /* Rows on all cores; each row is computed as on one. */
#pragma omp parallel for schedule(static)
    for (size_t row = 0; row < n; row++) {
        const float *x = t->h_in + row * n;
        double *y = ref + row * n;
        double m = -INFINITY, s = 0;
        for (size_t j = 0; j < n; j++)
            m = x[j] > m ? x[j] : m;
        for (size_t j = 0; j < n; j++) {
            y[j] = exp(x[j] - m);
            s += y[j];
        }
        for (size_t j = 0; j < n; j++)
            y[j] /= s;
    }
    /* With u = 2^-24 (half an ulp of 1): expf is within 2 ulp (CUDA Math API),
     * at most 4u relative, once in the numerator and once in every term of the
     * sum; the sum adds at most depth * u; the division u. Relative error
     * <= (9 + depth) u, and an ulp of the result is more than u times it, so
     * the bound in ulps is 9 + depth, plus one for the second-order terms. */
    long depth = sum_depth(t->n, t->threads);
    struct tolerance tol = {CHECK_ULP, 10.0 + (double)depth, 0, 0, 0};
    printf("check: tolerance %.0f ulp (expf 2 ulp, twice; division; %ld additions deep)\n",
           tol.ulp, depth);
    check_f32(got, NULL, ref, count, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes softmax must move: read every element once, write it once.
 * Everything else either program moves is overhead. */
static double bytes(const void *data)
{
    return 2.0 * matrix_bytes(((const struct softmax *)data)->n);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 4,
    .slug = "block-level-sync",
    .title = "Row softmax: communicate inside a block, not across kernel launches",
    .section = "5.2.1",
    .size_help = "matrix side n: softmax along each row of an n x n float matrix "
                 "(16384: 1 GiB in, 1 GiB out)",
    .default_size = 16384,
    .small_size = 1000,
    .odd_size = 1531,
    .min_size = 1,
    .max_size = 32768,
    .knobs = {{"threads", "threads per block (one block per row) in both programs", 1024, 32,
               1024, 32}},
    .nknobs = 1,
    .test_options = {"--threads 32", "--threads 256", "--threads 512"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    /* At the default size the optimized kernel's 64 KB row lets 3 blocks
     * share an SM, but 1024 threads allow only 2: 512 threads give 3 blocks
     * (48 warps), 256 give 3 blocks of fewer warps (24). */
    .sweeps = {"--threads 256", "--threads 512"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
