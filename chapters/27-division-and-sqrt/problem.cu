/* Chapter 27, the problem: for every point (x, b), b = y^2 + softening, the
 * x component of the inverse-square field of `terms` equal sources at
 * s_k = -1 + k h on the x axis: the sum over k of dx / r^3, dx = x - s_k,
 * r^2 = dx^2 + b. One division and one reciprocal square root per term. The
 * check holds each element to an error bound derived from the documented
 * accuracy of the operations the program used (see term_rel) and a
 * double-precision reference. */
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
    return (size_t)c->size * (sizeof(float2) + sizeof(float));
}

/* Input (8), pick and output (4 each), reference and bound (8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 32 + POOL_MAX * 24; }

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_IEEE && c->check_rule != RULE_INTRINSICS) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_IEEE or "
                        "RULE_INTRINSICS in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct divsqrt *d = (struct divsqrt *)calloc(1, sizeof *d);
    d->rule = c->check_rule;
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
 *     2 ulp: 5u each.
 *   The product of the two factors rounds once more: u. */
static double term_rel(int rule)
{
    const double u = 0x1.0p-24, r2 = 2 * u + u * u;
    double from_r2 = pow(1 - r2, -1.5);
    if (rule == RULE_IEEE)
        return from_r2 * pow(1 + u, 3) / (1 - u) * (1 + u) - 1;
    return from_r2 * (1 + 5 * u) * (1 + 5 * u) * (1 + u) - 1;
}

/* Reference and bound of one point. The sources and dx are rebuilt exactly
 * as the kernel rounds them (a float add or subtract done in double and
 * rounded to float is the float operation's result). The kernel adds the
 * terms t_k with Kahan's compensated summation, whose error is at most
 * (2u + O(K u^2)) sum |t_k| (Goldberg, "What every computer scientist should
 * know about floating-point arithmetic", Thm. 8; Higham sec. 4.3); 16 K u^2
 * covers the second-order part. With d_k = rel |t_k| the bound of term k:
 *   |result - sum t_k| <= sum d_k + (2u + 16 K u^2) sum (|t_k| + d_k).
 * The last term covers the reference's own rounding in double. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct divsqrt *d = (const struct divsqrt *)ctx;
    float2 p = d->values[v];
    const double u = 0x1.0p-24;
    double rel = term_rel(d->rule), sum = 0, err = 0, mass = 0;
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
    *bound = err + (2 * u + 16 * K * u * u) * mass + (8 * K + 8) * 0x1.0p-53 * mass;
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
    printf("check: bounds of %s, %d terms; worst element used %.1f%% of its bound\n",
           d->rule == RULE_IEEE ? "'/', sqrtf and 1.0f / (correctly rounded)"
                                : "__fdividef (2 ulp) and rsqrtf (2 ulp)",
           d->terms, 100 * worst);
    if (worst == worst)
        evidence_print("bound_used_pct", 100 * worst, "%");
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
    .test_options = {"--terms 1", "--terms 4", "--terms 256"},
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
