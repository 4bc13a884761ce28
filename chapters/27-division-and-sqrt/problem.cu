/* Chapter 27, the problem: for every point (x, b), b = y^2 + softening, the
 * x component of the inverse-square field of `terms` equal sources at
 * s_k = -1 + k h on the x axis: the sum over k of dx / r^3, dx = x - s_k,
 * r^2 = dx^2 + b. One division and one reciprocal square root per term. The
 * check holds each element to two bounds: one derived from the documented
 * accuracy of the operations the program used (see term_rel) around a
 * double-precision reference, and Kahan's bound around the exact sum of the
 * terms as this GPU computes them with those operations (see summation_of),
 * which a plain or miscompensated sum, or other operations than the declared
 * ones, exceed. */
#include "problem.h"
#include "cuda_check.h"
#include "accuracy.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_TERMS };

/* The reference costs a double division and square root per term: the
 * points are pooled (common/pool.h), and the reference and bound are
 * computed once per distinct point. */

static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * (sizeof(float2) + sizeof(float)) + POOL_MAX * 24;
}

/* Input (8), pick and output (4 each), reference and bound (8 each); per pool
 * value also the terms' sum and magnitude (16). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 32 + POOL_MAX * 40; }

static void *create(const struct config *c)
{
    if (c->check_rule < RULE_IEEE || c->check_rule > RULE_RSQRTF) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_IEEE, RULE_INTRINSICS, "
                        "RULE_FDIVIDEF or RULE_RSQRTF in its struct variant), so no error bound "
                        "applies\n");
        exit(EXIT_USAGE);
    }
    struct divsqrt *d = (struct divsqrt *)calloc(1, sizeof *d);
    d->rule = c->check_rule;
    d->fast_div = d->rule == RULE_INTRINSICS || d->rule == RULE_FDIVIDEF;
    d->fast_rsqrt = d->rule == RULE_INTRINSICS || d->rule == RULE_RSQRTF;
    d->n = c->size;
    d->terms = (int)c->knob[KNOB_TERMS];
    d->h = 2.0f / (float)d->terms;
    pool_init(&d->pool, d->n, POOL_MAX, c->seed, 2);
    long np = d->pool.size;
    float *xs = (float *)host_alloc((size_t)np * sizeof(float));
    float *bs = (float *)host_alloc((size_t)np * sizeof(float));
    rng_fill_f32(xs, (size_t)np, -1.0f, 1.0f, c->seed, 0);
    rng_fill_f32(bs, (size_t)np, B_MIN, 1.0f, c->seed, 1);
    d->values = (float2 *)host_alloc((size_t)np * sizeof(float2));
    for (long p = 0; p < np; p++)
        d->values[p] = make_float2(xs[p], bs[p]);
    free(xs);
    free(bs);
    float2 *h_in = (float2 *)host_alloc((size_t)d->n * sizeof(float2));
    pool_spread(&d->pool, h_in, d->values, sizeof(float2));
    d->in = (float2 *)device_alloc((size_t)d->n * sizeof(float2));
    d->out = (float *)device_alloc((size_t)d->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d->in, h_in, (size_t)d->n * sizeof(float2), cudaMemcpyHostToDevice));
    free(h_in);
    return d;
}

static void poison(void *data)
{
    struct divsqrt *d = (struct divsqrt *)data;
    poison_device(d->out, (size_t)d->n * sizeof(float));
}

/* Largest relative error of one computed term, dx / r^3, from the documented
 * bounds of what the program uses. u = 2^-24; a float's ulp is at most 2^-23
 * of its value, so an error of k ulp, counted (as the guide does) from the
 * correctly rounded result, is at most (k + 0.5) 2^-23 = (2k + 1) u relative.
 *   r2 = fl(dx dx + b): one FFMA (u) or an FMUL and an FADD of positive
 *     values (2u + u^2); the term goes as r2^(-3/2).
 *   RULE_IEEE: dx / r2, sqrtf(r2) and 1.0f / that are each correctly
 *     rounded: u each.
 *   RULE_INTRINSICS: __fdividef 2 ulp (r2 is in [2^-126, 2^126]) and rsqrtf
 *     2 ulp: 5u each. RULE_FDIVIDEF and RULE_RSQRTF take one of each.
 *   The product of the two factors rounds once more: u. */
static double term_rel(int fast_div, int fast_rsqrt)
{
    const double u = 0x1.0p-24, r2 = 2 * u + u * u;
    double from_r2 = pow(1 - r2, -1.5);
    double div = fast_div ? 1 + 5 * u : 1 + u;
    double rsqrt = fast_rsqrt ? 1 + 5 * u : (1 + u) * (1 + u) / (1 - u);
    return from_r2 * div * rsqrt * (1 + u) - 1;
}

/* Reference and bound of one point. The sources and dx are rebuilt exactly
 * as the kernel rounds them (a float add or subtract done in double and
 * rounded to float is the float operation's result). The kernel adds the
 * terms t_k with Kahan's compensated summation, whose error is at most
 * (2u + O(K u^2)) sum |t_k| (Goldberg, "What every computer scientist should
 * know about floating-point arithmetic", Thm. 8; Higham sec. 4.3);
 * compensated_sum_bound (common/accuracy.h) covers the second-order part
 * with 16 K u^2. With d_k = rel |t_k| the bound of term k:
 *   |result - sum t_k| <= sum d_k + (2u + 16 K u^2) sum (|t_k| + d_k).
 * The last term covers the reference's own rounding in double. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct divsqrt *d = (const struct divsqrt *)ctx;
    float2 p = d->values[v];
    double rel = term_rel(d->fast_div, d->fast_rsqrt), sum = 0, err = 0, mass = 0;
    float s = -1.0f;
    for (int j = 0; j < d->terms; j++) {
        s = (float)((double)s + (double)d->h);
        float dx = (float)((double)p.x - (double)s);
        double r2 = (double)dx * dx + (double)p.y;
        double t = dx / (r2 * sqrt(r2));
        sum += t;
        err += rel * fabs(t);
        mass += fabs(t) * (1 + rel);
    }
    double K = d->terms;
    *ref = sum;
    *bound = err + compensated_sum_bound(d->terms, mass) + (8 * K + 8) * 0x1.0p-53 * mass;
}

/* The summation check. The bound above must allow each term the documented
 * error of its operations (about 8u for the IEEE ones, 14u for the
 * intrinsics), and a sum whose compensation is dropped or has its sign
 * flipped, or the intrinsics in the IEEE program, still fit in that slack. So
 * the check also recomputes, on this GPU and per pool value, the very terms
 * t_k the program adds: the same expressions with the operations of the
 * program's check_rule (dx * dx + b contracted to one FFMA as in the kernels,
 * the rest correctly rounded or the same SFU instructions, so the same bits),
 * summed exactly enough in double (K - 1 roundings of 2^-53 of the magnitude,
 * covered below). The kernel must then be within Kahan's bound of that sum:
 *   |result - sum t_k| <= (2u + 16 K u^2) sum |t_k|
 * (Goldberg, Thm. 8; Higham, sec. 4.3), and exactly t_1 for one term, where
 * the first add into a zero sum is exact (compensated_sum_check_bound, whose
 * last term covers the double sum and keeps a zero term's bound above zero).
 * A host model of these sums (the IEEE terms, which the host reproduces, over
 * 65536 points of the odd size) finds a correct Kahan sum at 0.49 of this
 * bound at most (0.78 at --terms 4), a plain float sum past it on 4663 of
 * 65536 points at the default 32 terms (3.0 times it at worst) and a
 * sign-flipped compensation on 19002 (6.4 times); at --terms 1, __fdividef or
 * rsqrtf in the IEEE program fails wherever it returns another float than '/'
 * or 1.0f / sqrtf. */
__global__ void terms_kernel(float *out, const float *in, int n, int arg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int terms = arg >> 2, fast_div = arg & 1, fast_rsqrt = (arg >> 1) & 1;
    float2 p = make_float2(in[2 * i], in[2 * i + 1]);
    float h = __fdiv_rn(2.0f, (float)terms), s = -1.0f; /* as create's 2.0f / terms */
    double sum = 0.0, mass = 0.0;
    for (int j = 0; j < terms; j++) {
        s += h;
        float dx = p.x - s;
        float r2 = dx * dx + p.y;
        float t = (fast_div ? __fdividef(dx, r2) : dx / r2) * (fast_rsqrt ? rsqrtf(r2) : 1.0f / sqrtf(r2));
        sum = __dadd_rn(sum, (double)t);
        mass = __dadd_rn(mass, fabs((double)t));
    }
    double *o = (double *)out + 2 * (size_t)i; /* 4 floats per point hold 2 doubles */
    o[0] = sum;
    o[1] = mass;
}

static void summation_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct divsqrt *d = (const struct divsqrt *)ctx;
    *ref = d->terms_sum[2 * v];
    *bound = compensated_sum_check_bound(d->terms, d->terms_sum[2 * v + 1]);
}

/* The accuracy table of the README: the largest error of each operation
 * against a double reference, over x in [1, 2) and y spread evenly in
 * log2 over [2^-60, 2^60] (inside __fdividef's range), measured on this GPU.
 * The grid is the same in every run, so the figures do not depend on the
 * seed; both programs print the whole table, since it describes the
 * operations, not the program. Then the case the guide warns of: for
 * 2^126 < |y| < 2^128, __fdividef(x, y) returns 0 where x / y does not. */
#define GRID_POINTS (1 << 18)
#define OPS 5

/* in holds (x, y) pairs; out gets OPS results per point (common/accuracy.h). */
__global__ void operations_kernel(float *out, const float *in, int n, int unused)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)unused;
    if (i < n) {
        float x = in[2 * i], y = in[2 * i + 1];
        out[OPS * i + 0] = x / y;
        out[OPS * i + 1] = __fdividef(x, y);
        out[OPS * i + 2] = 1.0f / sqrtf(y);
        out[OPS * i + 3] = rsqrtf(y);
        out[OPS * i + 4] = sqrtf(y);
    }
}

static void print_accuracy_table(void)
{
    const int n = GRID_POINTS;
    float *xy = (float *)host_alloc(2 * (size_t)n * sizeof(float));
    float *out = (float *)host_alloc((size_t)OPS * n * sizeof(float));
    double *ref = (double *)host_alloc((size_t)OPS * n * sizeof(double));
    for (int j = 0; j < n; j++) {
        xy[2 * j] = 1.0f + (float)j / (float)n;
        xy[2 * j + 1] = (float)exp2(-60.0 + 120.0 * (double)((j * 40503L) % n) / (n - 1));
    }
    accuracy_eval((const void *)operations_kernel, xy, 2, out, OPS, n, 0);
    for (int j = 0; j < n; j++) {
        double x = xy[2 * j], y = xy[2 * j + 1], q = x / y, r = 1.0 / sqrt(y);
        ref[0 * n + j] = q, ref[1 * n + j] = q;
        ref[2 * n + j] = r, ref[3 * n + j] = r;
        ref[4 * n + j] = sqrt(y);
    }
    static const char *names[OPS] = {"div_ulp", "fdividef_ulp", "recip_sqrtf_ulp", "rsqrtf_ulp",
                                      "sqrtf_ulp"};
    for (int k = 0; k < OPS; k++)
        evidence_print(names[k], accuracy_worst_ulp(out + k, OPS, ref + (size_t)k * n, n), "ulp");

    /* x = 2^100, y = 2^127: the quotient is 2^-27, a normal float. */
    float hxy[2] = {0x1.0p100f, 0x1.0p127f}, hout[OPS];
    accuracy_eval((const void *)operations_kernel, hxy, 2, hout, OPS, 1, 0);
    evidence_print("div_2p127_times_2p27", (double)hout[0] * 0x1.0p27, "ratio");
    evidence_print("fdividef_2p127_times_2p27", (double)hout[1] * 0x1.0p27, "ratio");
    printf("check: 2^100 / 2^127 = %g with '/', %g with __fdividef (documented: 0 for "
           "2^126 < |y| < 2^128)\n", (double)hout[0], (double)hout[1]);
    free(xy);
    free(out);
    free(ref);
}

static int check(void *data, struct check_report *r)
{
    struct divsqrt *d = (struct divsqrt *)data;
    size_t n = (size_t)d->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, d->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = pool_check(&d->pool, got, 1, reference_of, d, r);
    printf("check: bounds of %s and %s, %d terms; worst element used %.1f%% of its bound\n",
           d->fast_div ? "__fdividef (2 ulp)" : "'/' (correctly rounded)",
           d->fast_rsqrt ? "rsqrtf (2 ulp)" : "sqrtf and 1.0f / (correctly rounded)",
           d->terms, 100 * worst);
    if (worst == worst)
        evidence_print("bound_used_pct", 100 * worst, "%");
    /* Then Kahan's bound around the sum of this GPU's own terms (summation_of). */
    d->terms_sum = (double *)host_alloc((size_t)d->pool.size * 2 * sizeof(double));
    accuracy_eval((const void *)terms_kernel, (const float *)d->values, 2, (float *)d->terms_sum, 4,
                  (int)d->pool.size, 4 * d->terms + 2 * d->fast_rsqrt + d->fast_div);
    struct check_report sr;
    double sum_worst = pool_check(&d->pool, got, 1, summation_of, d, &sr);
    printf("check: Kahan's bound around the exact sum of this GPU's terms (%s and %s); worst "
           "element used %.1f%% of it%s\n", d->fast_div ? "__fdividef" : "'/'",
           d->fast_rsqrt ? "rsqrtf" : "1.0f / sqrtf",
           100 * sum_worst, sr.passed ? "" : " (failed: a plain or miscompensated sum, or other operations)");
    if (sum_worst == sum_worst)
        evidence_print("sum_bound_used_pct", 100 * sum_worst, "%");
    if (r->passed && !sr.passed)
        *r = sr;
    free(d->terms_sum);
    d->terms_sum = NULL;
    free(got);
    print_accuracy_table();
    return r->passed;
}

static double bytes(const void *data)
{
    return (sizeof(float2) + sizeof(float)) * (double)((const struct divsqrt *)data)->n;
}

/* Not flops: the special-function evaluations METRIC_SFU counts, one
 * division and one reciprocal square root per term, compared with the SFU's
 * peak of 16 results per clock per SM (what the intrinsics would reach if
 * the SFU were their only limit). */
static double flops(const void *data)
{
    const struct divsqrt *d = (const struct divsqrt *)data;
    return 2.0 * d->terms * (double)d->n;
}

static void destroy(void *data)
{
    struct divsqrt *d = (struct divsqrt *)data;
    CUDA_CHECK(cudaFree(d->in));
    CUDA_CHECK(cudaFree(d->out));
    pool_free(&d->pool);
    free(d->values);
    free(d);
}

const struct problem PROBLEM = {
    .number = 27,
    .slug = "division-and-sqrt",
    .title = "Division and square root: __fdividef and rsqrtf instead of / and 1/sqrtf",
    .section = "5.4.1",
    .size_help = "points; each sums the field of --terms sources",
    .default_size = 1L << 24,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {{"terms", "sources per point: divisions and square roots per element", 32, 1, 1024}},
    .nknobs = 1,
    /* The compiled loop over the sources (sm_90) takes 4 at a time, then single ones
     * (terms % 4): 1 runs only the second path, 4, 32 and 256 only the first, 7 both. */
    .test_options = {"--terms 1", "--terms 4", "--terms 256", "--terms 7"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SFU,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "sm__inst_executed_pipe_xu.sum,"
                   "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,"
                   "sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum",
    .sweeps = {"--terms 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
