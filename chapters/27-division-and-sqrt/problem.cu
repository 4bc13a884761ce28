/* Chapter 27, the problem: for every point (x, b), b = y^2 + softening, the
 * x component of the inverse-square field of `terms` equal sources at
 * s_k = -1 + k h on the x axis: the sum over k of dx / r^3, dx = x - s_k,
 * r^2 = dx^2 + b. One division and one reciprocal square root per term. The
 * check holds each element to an error bound derived from the documented
 * accuracy of the operations the program used (see term_rel) and a
 * double-precision reference. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_TERMS };

/* The reference costs a double division and square root per term; inputs
 * come from a pool of at most POOL distinct points scattered over the array,
 * so that the reference and the bound are computed once per pool value (every
 * element is still checked). The kernels cannot tell. */
#define POOL 65536L

static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * (sizeof(float2) + sizeof(float));
}

/* Input (8), pick and output (4 each), reference and bound (8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 32 + POOL * 24; }

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
    d->npool = d->n < POOL ? d->n : POOL;
    float *xs = (float *)host_alloc((size_t)d->npool * sizeof(float));
    float *bs = (float *)host_alloc((size_t)d->npool * sizeof(float));
    rng_fill_f32(xs, (size_t)d->npool, -1.0f, 1.0f, c->seed, 0);
    rng_fill_f32(bs, (size_t)d->npool, B_MIN, 1.0f, c->seed, 1);
    d->pool = (float2 *)host_alloc((size_t)d->npool * sizeof(float2));
    for (long p = 0; p < d->npool; p++)
        d->pool[p] = make_float2(xs[p], bs[p]);
    free(xs);
    free(bs);
    d->pick = (int32_t *)host_alloc((size_t)d->n * sizeof(int32_t));
    d->h_in = (float2 *)host_alloc((size_t)d->n * sizeof(float2));
    rng_fill_i32(d->pick, (size_t)d->n, 0, (int32_t)(d->npool - 1), c->seed, 2);
    for (long i = 0; i < d->n; i++)
        d->h_in[i] = d->pool[d->pick[i]];
    d->in = (float2 *)device_alloc((size_t)d->n * sizeof(float2));
    d->out = (float *)device_alloc((size_t)d->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d->in, d->h_in, (size_t)d->n * sizeof(float2), cudaMemcpyHostToDevice));
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
static void reference_of(const struct divsqrt *d, float2 p, double *ref, double *bound)
{
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

__global__ void operations_kernel(float *out, const float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[OPS * i + 0] = x[i] / y[i];
        out[OPS * i + 1] = __fdividef(x[i], y[i]);
        out[OPS * i + 2] = 1.0f / sqrtf(y[i]);
        out[OPS * i + 3] = rsqrtf(y[i]);
        out[OPS * i + 4] = sqrtf(y[i]);
    }
}

/* Runs operations_kernel on n points; out gets OPS results per point. */
static void run_operations(const float *h_x, const float *h_y, float *h_out, int n)
{
    float *d_x = (float *)device_alloc(n * sizeof(float));
    float *d_y = (float *)device_alloc(n * sizeof(float));
    float *d_out = (float *)device_alloc((size_t)OPS * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, n * sizeof(float), cudaMemcpyHostToDevice));
    operations_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_out, d_x, d_y, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h_out, d_out, (size_t)OPS * n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_out));
}

static void print_accuracy_table(void)
{
    const int n = GRID_POINTS;
    float *x = (float *)host_alloc(n * sizeof(float));
    float *y = (float *)host_alloc(n * sizeof(float));
    float *out = (float *)host_alloc((size_t)OPS * n * sizeof(float));
    for (int j = 0; j < n; j++) {
        x[j] = 1.0f + (float)j / (float)n;
        y[j] = (float)exp2(-60.0 + 120.0 * (double)((j * 40503L) % n) / (n - 1));
    }
    run_operations(x, y, out, n);
    double e[OPS] = {0};
    for (int j = 0; j < n; j++) {
        double q = (double)x[j] / (double)y[j], r = 1.0 / sqrt((double)y[j]);
        double ref[OPS] = {q, q, r, r, sqrt((double)y[j])};
        for (int k = 0; k < OPS; k++)
            e[k] = fmax(e[k], ulp_distance_f32(out[OPS * j + k], ref[k]));
    }
    evidence_print("div_ulp", e[0], "ulp");
    evidence_print("fdividef_ulp", e[1], "ulp");
    evidence_print("recip_sqrtf_ulp", e[2], "ulp");
    evidence_print("rsqrtf_ulp", e[3], "ulp");
    evidence_print("sqrtf_ulp", e[4], "ulp");

    /* x = 2^100, y = 2^127: the quotient is 2^-27, a normal float. */
    float hx = 0x1.0p100f, hy = 0x1.0p127f, hout[OPS];
    run_operations(&hx, &hy, hout, 1);
    evidence_print("div_2p127_times_2p27", (double)hout[0] * 0x1.0p27, "ratio");
    evidence_print("fdividef_2p127_times_2p27", (double)hout[1] * 0x1.0p27, "ratio");
    printf("check: 2^100 / 2^127 = %g with '/', %g with __fdividef (documented: 0 for "
           "2^126 < |y| < 2^128)\n", (double)hout[0], (double)hout[1]);
    free(x);
    free(y);
    free(out);
}

static int check(void *data, struct check_report *r)
{
    struct divsqrt *d = (struct divsqrt *)data;
    size_t n = (size_t)d->n;
    double *pref = (double *)host_alloc((size_t)d->npool * sizeof(double));
    double *pbound = (double *)host_alloc((size_t)d->npool * sizeof(double));
    for (long p = 0; p < d->npool; p++)
        reference_of(d, d->pool[p], &pref[p], &pbound[p]);

    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, d->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = check_pooled_f32(got, n, 1, d->pick, pref, pbound, r);
    printf("check: bounds of %s, %d terms; worst element used %.1f%% of its bound\n",
           d->rule == RULE_IEEE ? "'/', sqrtf and 1.0f / (correctly rounded)"
                                : "__fdividef (2 ulp) and rsqrtf (2 ulp)",
           d->terms, 100 * worst);
    if (worst == worst)
        evidence_print("bound_used_pct", 100 * worst, "%");
    free(pref);
    free(pbound);
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
    free(d->h_in);
    free(d->pick);
    free(d->pool);
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
