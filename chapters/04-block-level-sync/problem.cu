/* Chapter 04, the problem: softmax along every row of an n x n float matrix,
 * out[r][j] = exp(in[r][j] - max_r) / sum_j exp(in[r][j] - max_r).
 * Checked against a double-precision CPU softmax, with per-element bounds
 * derived from the float operations both programs perform (row_check). */
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

/* Input, the downloaded output, and the reference and the bound in double. */
static size_t host_bytes(const struct config *c) { return 6 * matrix_bytes(c->size); }

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
 * way into a row sum (both programs sum the same way): its thread's own running
 * sum (4 per quad, at most ceil(ceil(n / 4) / threads) quads, and one float of
 * the row's head or tail), then 5 shuffle levels inside the warp and 5 across
 * the warps (block_reduce.h). */
static long sum_depth(long n, int threads)
{
    long quads = (n + 3) / 4;
    return 4 * ((quads + threads - 1) / threads) + 1 + 5 + 5;
}

/* One row: the exact softmax (in double) and, for the check, a per-element
 * reference and bound that follow from the float program's error.
 *
 * The program computes E_j = expf(x_j - m) (x_j - m is exact, create()), its
 * float sum S^ of the row, and out_j = E_j / S^, an IEEE division. So, with S the
 * exact sum of e_j = exp(x_j - m) and c = S / S^ (one number for the whole row),
 *   out_j = c (e_j + a_j) / S + b_j,
 * where |a_j| <= expf's documented 2 ulp from the correctly rounded value (2.5
 * ulp of e_j from the exact one, ulps_f32_bound) and |b_j| is the division's half
 * ulp. The sum's error is the large term (10 or more additions deep, each off
 * by up to 2^-24), but it is the same c for every float of the row: the check
 * asks for one c within the sum's bound (|S^ - S| <= sum a_j + gamma(depth) S)
 * for which every float of the row is within c a_j / S + b_j of c e_j / S. That
 * holds for any correct program, whatever its rounding errors, and leaves each
 * float only expf's and the division's own error: about 3 to 6 times 2^-24 of
 * its value. __expf, off by up to 2^-24 times 1.2 |x - m| / ln 2 (its argument
 * is multiplied by log2(e) in float first), is off by more where x - m < -4 and
 * fails; so does any error that differs from one float of a row to another.
 *
 * On return ref[j] = c e_j / S and bound[j] = c a_j / S + b_j for the c
 * the row allows best (the middle of the range every float allows, kept within
 * the sum's bound): a row passes check_f32 exactly when such a c exists. */
static void row_check(const float *x, const float *got, long n, long depth, double *ref,
                      double *bound)
{
    double m = -INFINITY, S = 0, asum = 0;
    for (long j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    for (long j = 0; j < n; j++) {
        ref[j] = exp(x[j] - m);
        S += ref[j];
        asum += ulps_f32_bound(ref[j], 2.0);
    }
    /* The float sum S^ of the E_j: within sum a_j of S before rounding, and within
     * gamma = depth u / (1 - depth u) of that after (every term positive). */
    const double u = 0x1.0p-24, slack = 0x1.0p-40; /* slack: the double reference's own error */
    double gamma = depth * u / (1.0 - depth * u);
    double rel = (asum / S + gamma) * (1.0 + 0x1.0p-20) + slack;
    double cmin = 1.0 / (1.0 + rel), cmax = 1.0 / (1.0 - rel);
    double lo = cmin, hi = cmax;
    for (long j = 0; j < n; j++) {
        double y = ref[j] / S, a = ulps_f32_bound(ref[j], 2.0) / S + y * slack;
        double b = 0.5 * ulp_f32_at(cmax * (y + a));
        double g = got[j];
        if (!isfinite(g))
            continue; /* check_f32 fails it: the reference is finite */
        lo = fmax(lo, (g - b) / (y + a));
        if (y > a)
            hi = fmin(hi, (g + b) / (y - a));
    }
    double c = 0.5 * (lo + hi);
    c = c < cmin ? cmin : c > cmax ? cmax : c;
    for (long j = 0; j < n; j++) {
        double y = ref[j] / S, a = ulps_f32_bound(ref[j], 2.0) / S + y * slack;
        ref[j] = c * y;
        bound[j] = c * a + 0.5 * ulp_f32_at(cmax * (y + a));
    }
}

static int check(void *data, struct check_report *r)
{
    struct softmax *t = (struct softmax *)data;
    size_t n = (size_t)t->n, count = n * n;
    float *got = (float *)host_alloc(matrix_bytes(t->n));
    double *ref = (double *)host_alloc(count * sizeof(double));
    double *bound = (double *)host_alloc(count * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, t->out, matrix_bytes(t->n), cudaMemcpyDeviceToHost));
    long depth = sum_depth(t->n, t->threads);
    /* Rows on all cores; each row is computed as on one. */
#pragma omp parallel for schedule(static)
    for (size_t row = 0; row < n; row++)
        row_check(t->h_in + row * n, got + row * n, t->n, depth, ref + row * n, bound + row * n);
    printf("check: each float within expf's 2 ulp and the division's half ulp of one multiple "
           "c of its row's softmax, |c - 1| within the float sum's error (%ld additions deep)\n",
           depth);
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, count, &tol, bound, r);
    free(got);
    free(ref);
    free(bound);
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
    .knobs = {{"threads", "threads per block (one block per row) in both programs", 512, 32,
               1024, 32}},
    .nknobs = 1,
    .test_options = {"--threads 32", "--threads 256", "--threads 1024"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    /* At the default size the optimized kernel's 64 KB row lets 3 blocks share an
     * SM: 512 threads (the default) give 48 warps, 1024 threads only 2 blocks (64
     * warps, but two rows' phases to overlap instead of three), 256 threads 24 warps. */
    .sweeps = {"--threads 256", "--threads 1024"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
