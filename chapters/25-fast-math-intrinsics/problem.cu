/* Chapter 25, the problem: for every input x, the sum over k = 1..terms of
 * sin(a_k) + exp(a_k) with a_k = x * (k / terms), a K-point sum that samples
 * both functions between 0 and x. The check holds each element to two
 * bounds: one derived from the documented accuracy of the functions the
 * program used (see term_bound) around a double-precision reference, and
 * Kahan's bound around the exact sum of the terms as this GPU computes them
 * with those functions (see summation_of), which a plain or miscompensated
 * sum, or other functions than the declared ones, exceed. */
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
static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float) + POOL_MAX * 20; }

/* Input, pick, downloaded output (4 bytes each); reference and bound (8 each);
 * per pool value also the terms' sum and magnitude (16). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 28 + POOL_MAX * 36; }

static void *create(const struct config *c)
{
    if (c->check_rule < RULE_SINF_EXPF || c->check_rule > RULE_FAST_EXP) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_SINF_EXPF, "
                        "RULE_INTRINSICS, RULE_FAST_SIN or RULE_FAST_EXP in its struct variant), "
                        "so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct fastmath *f = (struct fastmath *)calloc(1, sizeof *f);
    f->fast_sin = c->check_rule == RULE_INTRINSICS || c->check_rule == RULE_FAST_SIN;
    f->fast_exp = c->check_rule == RULE_INTRINSICS || c->check_rule == RULE_FAST_EXP;
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
static double term_bound(int fast_sin, int fast_exp, double a, double s, double e)
{
    const double u = 0x1.0p-24;
    double es = fast_sin ? exp2(-21.41) + 0.5 * ulp_f32_at(fabs(s) + exp2(-21.41))
                         : ulps_f32_bound(s, 2.0);
    double ee = fast_exp ? ulps_f32_bound(e, 2.0 + floor(1.173 * fabs(a))) : ulps_f32_bound(e, 2.0);
    return es + ee + u * (fabs(s + e) + es + ee);
}

/* Reference and bound of one input x. The arguments are rebuilt exactly as
 * the kernel rounds them: a product of two floats is exact in double, so
 * rounding it to float reproduces the GPU's single-rounded multiply.
 *
 * The kernel adds the computed terms t_k with Kahan's compensated summation,
 * whose error is at most (2u + O(K u^2)) * sum |t_k| (Goldberg, "What every
 * computer scientist should know about floating-point arithmetic", Thm. 8;
 * Higham, "Accuracy and Stability of Numerical Algorithms", sec. 4.3);
 * compensated_sum_bound (common/accuracy.h) covers the second-order term
 * with 16 K u^2. With d_k the bound of term k:
 *   |result - sum_k (s_k + e_k)| <= sum d_k + (2u + 16 K u^2) sum (|s_k + e_k| + d_k).
 * The last term below covers the reference's own error: libm's sin and exp
 * (under one double ulp each, and |s| + |e| <= |s + e| + 2) and the rounding
 * of the double sum; it is under a millionth of the rest. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct fastmath *f = (const struct fastmath *)ctx;
    float x = f->values[v];
    double sum = 0, err = 0, mass = 0;
    float k = 0.0f;
    for (int j = 0; j < f->terms; j++) {
        k += 1.0f;
        float m = (float)((double)k * (double)f->step);
        float a = (float)((double)x * (double)m);
        if (f->fast_sin && fabs((double)a) > M_PI) { /* cannot happen: |a| <= |x| < pi */
            *ref = 0;
            *bound = -1; /* no documented bound: fail rather than guess */
            return;
        }
        double s = sin((double)a), e = exp((double)a);
        double d = term_bound(f->fast_sin, f->fast_exp, a, s, e);
        sum += s + e;
        err += d;
        mass += fabs(s + e) + d;
    }
    double K = f->terms;
    *ref = sum;
    *bound = err + compensated_sum_bound(f->terms, mass) + (4 * K + 8) * 0x1.0p-53 * (mass + 2 * K);
}

/* The summation check. The bound above must allow each term the documented
 * error of its functions (2 ulp each, or more), and a sum whose compensation
 * is dropped or has its sign flipped still fits in that slack: the functions
 * are far better than documented. So the check also recomputes, on this GPU
 * and per pool value, the very terms t_k the program adds: the same
 * expressions with the functions of the program's check_rule (float
 * operations without an add to contract, and the same library code, so the
 * same bits), summed exactly enough in double (K - 1 roundings of 2^-53 of
 * the magnitude, covered below). The kernel must then be within Kahan's bound
 * of that sum:
 *   |result - sum t_k| <= (2u + 16 K u^2) sum |t_k|
 * (Goldberg, Thm. 8; Higham, sec. 4.3), and exactly t_1 for one term, where
 * the first add into a zero sum is exact (compensated_sum_check_bound, whose
 * last term covers the double sum and keeps a zero term's bound above zero).
 * A host model of these sums (glibc's sinf and expf standing in for the GPU's,
 * 65536 inputs of the odd size) finds a correct Kahan sum at 0.55 of this
 * bound at most (0.86 at --terms 4), a plain float sum past it on 5716 of
 * 65536 values at the default 32 terms (3.2 times it at worst) and a
 * sign-flipped compensation on 21791 (6.3 times); at --terms 1 any other
 * function than the declared one fails where it returns another float.
 * Computing these terms is not a reference of the functions: the documented
 * bound above checks those. */
__global__ void terms_kernel(float *out, const float *in, int n, int arg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int terms = arg >> 2, fast_sin = arg & 1, fast_exp = (arg >> 1) & 1;
    float x = in[i], step = __fdiv_rn(1.0f, (float)terms), k = 0.0f; /* as create's 1.0f / terms */
    double sum = 0.0, mass = 0.0;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        float a = x * (k * step);
        float t = __fadd_rn(fast_sin ? __sinf(a) : sinf(a), fast_exp ? __expf(a) : expf(a));
        sum = __dadd_rn(sum, (double)t);
        mass = __dadd_rn(mass, fabs((double)t));
    }
    double *o = (double *)out + 2 * (size_t)i; /* 4 floats per point hold 2 doubles */
    o[0] = sum;
    o[1] = mass;
}

static void summation_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct fastmath *f = (const struct fastmath *)ctx;
    *ref = f->terms_sum[2 * v];
    *bound = compensated_sum_check_bound(f->terms, f->terms_sum[2 * v + 1]);
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
    printf("check: bounds of %s and %s, %d terms; worst element used %.1f%% of its bound\n",
           f->fast_sin ? "__sinf (2^-21.41 absolute)" : "sinf (2 ulp)",
           f->fast_exp ? "__expf (2 + floor(1.173|a|) ulp)" : "expf (2 ulp)",
           f->terms, 100 * worst);
    /* Then Kahan's bound around the sum of this GPU's own terms (summation_of). */
    f->terms_sum = (double *)host_alloc((size_t)f->pool.size * 2 * sizeof(double));
    accuracy_eval((const void *)terms_kernel, f->values, 1, (float *)f->terms_sum, 4,
                  (int)f->pool.size, 4 * f->terms + 2 * f->fast_exp + f->fast_sin);
    struct check_report sr;
    double sum_worst = pool_check(&f->pool, got, 1, summation_of, f, &sr);
    printf("check: Kahan's bound around the exact sum of this GPU's %s + %s terms; worst "
           "element used %.1f%% of it%s\n", f->fast_sin ? "__sinf" : "sinf",
           f->fast_exp ? "__expf" : "expf",
           100 * sum_worst, sr.passed ? "" : " (failed: a plain or miscompensated sum, or other functions)");
    if (sum_worst == sum_worst)
        evidence_print("sum_bound_used_pct", 100 * sum_worst, "%");
    if (r->passed && !sr.passed)
        *r = sr;
    free(f->terms_sum);
    f->terms_sum = NULL;
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
    .test_options = {"--terms 1", "--terms 256"},
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
