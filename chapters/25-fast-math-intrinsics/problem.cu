/* Chapter 25, the problem: for every input x, the sum over k = 1..terms of
 * sin(a_k) + exp(a_k) with a_k = x * (k / terms), a K-point sum that samples
 * both functions between 0 and x. The check holds each element to an error
 * bound derived from the documented accuracy of the functions the program
 * used (see term_bound) and a double-precision reference. */
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

/* The CPU reference costs about one double sin and exp per term, far more
 * than the GPU: the inputs are pooled (common/pool.h), and the reference and
 * bound are computed once per distinct value. */
static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float); }

/* Input, pick, downloaded output (4 bytes each); reference and bound (8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 28 + POOL_MAX * 20; }

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_SINF_EXPF && c->check_rule != RULE_INTRINSICS) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_SINF_EXPF or "
                        "RULE_INTRINSICS in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct fastmath *f = (struct fastmath *)calloc(1, sizeof *f);
    f->intrinsics = c->check_rule == RULE_INTRINSICS;
    f->n = c->size;
    f->terms = (int)c->knob[KNOB_TERMS];
    f->step = 1.0f / (float)f->terms;
    pool_init(&f->pool, f->n, POOL_MAX, c->seed, 1);
    f->values = (float *)host_alloc((size_t)f->pool.size * sizeof(float));
    rng_fill_f32(f->values, (size_t)f->pool.size, -INPUT_LIMIT, INPUT_LIMIT, c->seed, 0);
    float *h_in = (float *)host_alloc((size_t)f->n * sizeof(float));
    pool_spread(&f->pool, h_in, f->values, sizeof(float));
    f->in = (float *)device_alloc((size_t)f->n * sizeof(float));
    f->out = (float *)device_alloc((size_t)f->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(f->in, h_in, (size_t)f->n * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);
    return f;
}

static void poison(void *data)
{
    struct fastmath *f = (struct fastmath *)data;
    poison_device(f->out, (size_t)f->n * sizeof(float));
}

/* Absolute error bound of one computed term fl(sin(a) + exp(a)), where s and e
 * are the exact values, from the CUDA Math API's documented bounds:
 *   sinf 2 ulp, expf 2 ulp (full range);
 *   __sinf 2^-21.41 absolute for a in [-pi, pi] (plus the same half ulp, in
 *   case that figure too is counted from the rounded float);
 *   __expf 2 + floor(1.173 |a|) ulp (older editions of the guide: 1.16; both
 *   give the same integer for |a| < pi).
 * The guide says these come from extensive but not exhaustive tests. The
 * final add rounds once more: at most u = 2^-24 of the computed sum's size. */
static double term_bound(int intrinsics, double a, double s, double e)
{
    const double u = 0x1.0p-24;
    double es, ee;
    if (intrinsics) {
        es = exp2(-21.41) + 0.5 * ulp_f32_at(fabs(s) + exp2(-21.41));
        ee = ulps_f32_bound(e, 2.0 + floor(1.173 * fabs(a)));
    } else {
        es = ulps_f32_bound(s, 2.0);
        ee = ulps_f32_bound(e, 2.0);
    }
    return es + ee + u * (fabs(s + e) + es + ee);
}

/* Reference and bound of one input x. The arguments are rebuilt exactly as
 * the kernel rounds them: a product of two floats is exact in double, so
 * rounding it to float reproduces the GPU's single-rounded multiply.
 *
 * The kernel adds the computed terms t_k with Kahan's compensated summation,
 * whose error is at most (2u + O(K u^2)) * sum |t_k| (Goldberg, "What every
 * computer scientist should know about floating-point arithmetic", Thm. 8;
 * Higham, "Accuracy and Stability of Numerical Algorithms", sec. 4.3). We
 * cover the second-order term generously with 16 K u^2, under 0.05 % of the
 * first even at --terms 1024. With d_k the bound of term k:
 *   |result - sum_k (s_k + e_k)| <= sum d_k + (2u + 16 K u^2) sum (|s_k + e_k| + d_k).
 * The last term below covers the reference's own error: libm's sin and exp
 * (under one double ulp each, and |s| + |e| <= |s + e| + 2) and the rounding
 * of the double sum; it is under a millionth of the rest. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct fastmath *f = (const struct fastmath *)ctx;
    float x = f->values[v];
    const double u = 0x1.0p-24;
    double sum = 0, err = 0, mass = 0;
    float k = 0.0f;
    for (int j = 0; j < f->terms; j++) {
        k += 1.0f;
        float m = (float)((double)k * (double)f->step);
        float a = (float)((double)x * (double)m);
        if (f->intrinsics && fabs((double)a) > M_PI) { /* cannot happen: |a| <= |x| < pi */
            *ref = 0;
            *bound = -1; /* no documented bound: fail rather than guess */
            return;
        }
        double s = sin((double)a), e = exp((double)a);
        double d = term_bound(f->intrinsics, a, s, e);
        sum += s + e;
        err += d;
        mass += fabs(s + e) + d;
    }
    double K = f->terms;
    *ref = sum;
    *bound = err + (2 * u + 16 * K * u * u) * mass + (4 * K + 8) * 0x1.0p-53 * (mass + 2 * K);
}

/* The accuracy table of the README: the largest error of each function
 * against a double reference over bands of arguments, measured on this GPU.
 * The bands reach where the documented bounds stop (__sinf beyond pi) or grow
 * (__expf with |x|); the arguments are an even grid over +-[lo, hi], the same
 * in every run, so the figures do not depend on the seed. Both programs print
 * the whole table: it describes the functions, not the program. */
#define BAND_POINTS (1 << 18)

__global__ void functions_kernel(float *out, const float *x, int n, int unused)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)unused;
    if (i < n) {
        out[4 * i + 0] = sinf(x[i]);
        out[4 * i + 1] = __sinf(x[i]);
        out[4 * i + 2] = expf(x[i]);
        out[4 * i + 3] = __expf(x[i]);
    }
}

struct band_error {
    double sinf_ulp, fast_sinf_abs, expf_ulp, fast_expf_ulp;
    double fast_expf_used; /* the largest fraction of __expf's bound at its own x */
};

/* The four functions over the band +-[lo, hi] (common/accuracy.h). */
static void band_error(double lo, double hi, struct band_error *e)
{
    const int n = BAND_POINTS;
    float *x = (float *)host_alloc(n * sizeof(float));
    float *out = (float *)host_alloc(4 * (size_t)n * sizeof(float));
    double *s = (double *)host_alloc(n * sizeof(double));
    double *ex = (double *)host_alloc(n * sizeof(double));
    accuracy_grid_pm(x, n, lo, hi);
    accuracy_eval((const void *)functions_kernel, x, 1, out, 4, n, 0);
    for (int j = 0; j < n; j++)
        s[j] = sin((double)x[j]), ex[j] = exp((double)x[j]);
    e->sinf_ulp = accuracy_worst_ulp(out + 0, 4, s, n);
    e->fast_sinf_abs = accuracy_worst_abs(out + 1, 4, s, n);
    e->expf_ulp = accuracy_worst_ulp(out + 2, 4, ex, n);
    e->fast_expf_ulp = accuracy_worst_ulp(out + 3, 4, ex, n);
    /* __expf's bound depends on x: 2 + floor(1.173 |x|) ulp, counted (as the
     * guide counts) from the correctly rounded value, so 0.5 ulp more from
     * the exact one. A worst error near the top of the band says nothing of
     * the points below it; this holds every point to its own bound. */
    e->fast_expf_used = 0;
    for (int j = 0; j < n; j++) {
        double b = 2.0 + floor(1.173 * fabs((double)x[j])) + 0.5;
        e->fast_expf_used = fmax(e->fast_expf_used, ulp_distance_f32(out[4 * j + 3], ex[j]) / b);
    }
    free(x);
    free(out);
    free(s);
    free(ex);
}

static void print_accuracy_table(void)
{
    struct band_error in, near, far, e1, e10, e80;
    band_error(0, M_PI, &in);      /* where __sinf's bound holds */
    band_error(M_PI, 100, &near);  /* beyond it */
    band_error(100, 1e4, &far);
    band_error(0, 1, &e1);         /* __expf's bound: 3, 13 and 95 ulp */
    band_error(0, 10, &e10);
    band_error(0, 80, &e80);       /* e^80 and e^-80 are normal floats */
    evidence_print("sinf_ulp_pi", in.sinf_ulp, "ulp");
    evidence_print("sinf_ulp_1e4", fmax(near.sinf_ulp, far.sinf_ulp), "ulp");
    evidence_print("fast_sinf_abs_pi", in.fast_sinf_abs, "abs");
    evidence_print("fast_sinf_abs_100", near.fast_sinf_abs, "abs");
    evidence_print("fast_sinf_abs_1e4", far.fast_sinf_abs, "abs");
    evidence_print("expf_ulp_80", e80.expf_ulp, "ulp");
    evidence_print("fast_expf_ulp_1", e1.fast_expf_ulp, "ulp");
    evidence_print("fast_expf_ulp_10", e10.fast_expf_ulp, "ulp");
    evidence_print("fast_expf_ulp_80", e80.fast_expf_ulp, "ulp");
    evidence_print("fast_expf_bound_used", fmax(e1.fast_expf_used, e80.fast_expf_used), "fraction");
}

static int check(void *data, struct check_report *r)
{
    struct fastmath *f = (struct fastmath *)data;
    size_t n = (size_t)f->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, f->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = pool_check(&f->pool, got, 1, reference_of, f, r);
    printf("check: bounds of %s, %d terms; worst element used %.1f%% of its bound\n",
           f->intrinsics ? "__sinf (2^-21.41 absolute) and __expf (2 + floor(1.173|a|) ulp)"
                         : "sinf (2 ulp) and expf (2 ulp)",
           f->terms, 100 * worst);
    free(got);
    print_accuracy_table();
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float) * ((const struct fastmath *)data)->n;
}

/* Not flops: the special-function evaluations METRIC_SFU counts, one sin and
 * one exp per term, compared with the SFU's peak of one result per lane per
 * clock (what the intrinsics would reach if the SFU were their only limit). */
static double flops(const void *data)
{
    const struct fastmath *f = (const struct fastmath *)data;
    return 2.0 * f->terms * (double)f->n;
}

static void destroy(void *data)
{
    struct fastmath *f = (struct fastmath *)data;
    CUDA_CHECK(cudaFree(f->in));
    CUDA_CHECK(cudaFree(f->out));
    pool_free(&f->pool);
    free(f->values);
    free(f);
}

const struct problem PROBLEM = {
    .number = 25,
    .slug = "fast-math-intrinsics",
    .title = "Fast math intrinsics: __sinf and __expf instead of sinf and expf",
    .section = "5.4.1",
    .size_help = "elements; each sums --terms values of sin(a) + exp(a)",
    .default_size = 1L << 26,
    .small_size = 1000,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {{"terms", "sin+exp pairs per element (work per byte moved)", 32, 1, 1024}},
    .nknobs = 1,
    .test_options = {"--terms 1"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SFU,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fma.sum,"
                   "sm__inst_executed_pipe_alu.sum,"
                   "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,"
                   "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,"
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
