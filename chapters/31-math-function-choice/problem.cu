/* Chapter 31, the problem: for every input x, the sum of f(a_k) over
 * k = 1..terms with a_k = x * (k / terms), for one of five computations f
 * (--function), each written with a general function (naive) and with the
 * function made for it (optimized). Every evaluation reaches the result, so a
 * wrong value at any k shows. The check holds every element to the sum of the
 * documented error bounds of the function the program called, one per term,
 * plus the rounding of each float addition after the first, which adds to
 * zero exactly (reference_of derives it), against
 * a double-precision reference of what that code asks for: the naive cube
 * root, powf(|a|, 1/3.f) with a's sign, is checked as a power with exponent
 * 1/3.f, not as a cube root (its distance from the cube root is shown
 * separately, in the accuracy table). */
#include "problem.h"
#include "cuda_check.h"
#include "accuracy.h"
#include "evidence.h"
#include "rng.h"
#include "sinpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_FUNCTION, KNOB_TERMS };

/* The reference costs a double function per term, far more than the GPU:
 * the inputs are pooled (common/pool.h), and the reference and bound are
 * computed once per distinct value. */

static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float); }

static size_t host_bytes(const struct config *c) { return (size_t)c->size * 28 + POOL_MAX * 20; }

/* Inputs of each function: where the naive form stays on its fast path
 * (for sinf(PI_F * a), |PI_F * a| < 3142). The cube root takes both signs,
 * half the inputs negative, where cbrtf's contract covers them and the
 * naive form must restore the sign itself. */
static void input_range(int fn, float *lo, float *hi)
{
    static const float range[6][2] = {
        {0, 0}, {-1000, 1000}, {-100, 100}, {-1000, 1000}, {-100, 100}, {-10000, 10000}};
    *lo = range[fn][0];
    *hi = range[fn][1];
}

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_GENERAL && c->check_rule != RULE_SPECIFIC) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_GENERAL or "
                        "RULE_SPECIFIC in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct mathchoice *m = (struct mathchoice *)calloc(1, sizeof *m);
    m->rule = c->check_rule;
    m->n = c->size;
    m->fn = (int)c->knob[KNOB_FUNCTION];
    m->terms = (int)c->knob[KNOB_TERMS];
    m->step = 1.0f / (float)m->terms;
    float lo, hi;
    input_range(m->fn, &lo, &hi);
    pool_init(&m->pool, m->n, POOL_MAX, c->seed, 1);
    m->values = (float *)host_alloc((size_t)m->pool.size * sizeof(float));
    rng_fill_f32(m->values, (size_t)m->pool.size, lo, hi, c->seed, 0);
    float *h_in = (float *)host_alloc((size_t)m->n * sizeof(float));
    pool_spread(&m->pool, h_in, m->values, sizeof(float));
    m->in = (float *)device_alloc((size_t)m->n * sizeof(float));
    m->out = (float *)device_alloc((size_t)m->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(m->in, h_in, (size_t)m->n * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);
    return m;
}

static void poison(void *data)
{
    struct mathchoice *m = (struct mathchoice *)data;
    poison_device(m->out, (size_t)m->n * sizeof(float));
}

/* The exact value the program's code asks for at argument a, and its
 * documented error bound (Programming Guide, "Standard Functions": powf 4
 * ulp, cbrtf 1, exp2f 2, sinf and cosf 2, sinpif 1, sincosf 2; a float
 * multiply is correctly rounded, 0 ulp). The guide counts ulps from the
 * correctly rounded result, itself half an ulp from the exact value, so n
 * documented ulps allow n + 1/2 (ulps_f32_bound). The sum s + c rounds once
 * more. *slack bounds how far the double value is from the exact one: libm's
 * double functions are within a few double ulps (2^-52 of the value each),
 * and 2^-46 of the magnitude leaves room for that and for the double
 * rounding of the bound's own sums, while staying 2^-22 of a float ulp. */
static void term(int fn, int general, float a, double *value, double *bound, double *slack)
{
    const double r = 0x1.0p-46;
    const double u = 0x1.0p-24;
    double g, s, c;
    switch (fn) {
    case FN_CBRT: /* the naive form: powf of |a|, the sign copied back exactly */
        g = general ? copysign(pow(fabs(a), (double)(1.0f / 3.0f)), a) : cbrt(a);
        *value = g, *bound = ulps_f32_bound(g, general ? 4 : 1), *slack = r * fabs(g);
        return;
    case FN_EXP2:
        g = exp2(a);
        *value = g, *bound = ulps_f32_bound(g, general ? 4 : 2), *slack = r * fabs(g);
        return;
    case FN_SINPI:
        if (general) { /* sinf of the float product PI_F * a: the GPU rounds it once */
            float arg = (float)((double)PI_F * (double)a);
            g = sin((double)arg);
        } else {
            g = sinpi_exact(a); /* common/sinpi.h: exact at every zero */
        }
        *value = g, *bound = ulps_f32_bound(g, general ? 2 : 1), *slack = r * fabs(g);
        return;
    case FN_SINCOS:
        s = sin(a), c = cos(a);
        *value = s + c;
        *bound = ulps_f32_bound(s, 2) + ulps_f32_bound(c, 2);
        *bound += u * (fabs(s + c) + *bound);
        *slack = r * (fabs(s) + fabs(c)); /* s + c may cancel: slack of each part */
        return;
    default:
        g = (double)a * (double)a; /* exact: 48 significant bits */
        *value = g, *bound = ulps_f32_bound(g, general ? 4 : 0), *slack = r * g;
        return;
    }
}

/* Reference and bound of one input x. The arguments a_k are rebuilt exactly
 * as the kernel rounds them; v_k is the exact value of term k, y_k the GPU's,
 * |y_k - v_k| <= b_k (term()). The kernel's partial sums are
 * s_k = fl(s_{k-1} + y_k), s_0 = 0, each __fadd_rn rounded to nearest. The
 * first is exact, s_1 = fl(0 + y_1) = y_1, so with S_k the exact partial sum
 * and E_k = |s_k - S_k|, E_1 <= b_1. Each later one is
 * s_k = (s_{k-1} + y_k)(1 + d), |d| <= u = 2^-24 (no overflow at these
 * ranges; a subnormal sum is exact):
 *   E_k <= |s_{k-1} + y_k - S_k| + u |s_{k-1} + y_k|
 *       <= (E_{k-1} + b_k) + u (|S_k| + E_{k-1} + b_k),
 * so B_1 = b_1 and B_k = B_{k-1} + b_k + u (|S_k| + B_{k-1} + b_k) bound E_k
 * by induction. The check compares with the double reference R, not with S:
 * each double v_k is within slack_k of the exact value (term()), and each
 * double addition after the first (which adds to 0, exactly) rounds by at
 * most 2^-53 of the partial sum; 2^-52 of it per step covers that and the
 * rounding of the bound's own sums. At --terms 1 the bound is therefore
 * b_1 + slack_1: the function's documented ulps plus half an ulp, and
 * 2^-46 of the value for the reference, nothing for the sum. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct mathchoice *m = (const struct mathchoice *)ctx;
    const double u = 0x1.0p-24;
    float x = m->values[v];
    double sum = 0, err = 0;
    float k = 0.0f;
    for (int j = 0; j < m->terms; j++) {
        k += 1.0f;
        float mk = (float)((double)k * (double)m->step);
        float a = (float)((double)x * (double)mk);
        double v, b, slack;
        term(m->fn, m->rule == RULE_GENERAL, a, &v, &b, &slack);
        sum += v;
        err += slack;
        if (j == 0)
            err += b; /* s_1 = y_1: the first addition is exact */
        else
            err += b + u * (fabs(sum) + err + b) + 0x1.0p-52 * fabs(sum);
    }
    *ref = sum;
    *bound = err + 1e-300; /* never exactly 0 */
}

/* ---- The accuracy table: each form against the mathematics it stands for,
 * over even grids, measured on this GPU. Both programs print the whole
 * table: it describes the functions, not one program. */
#define GRID 262144

/* Four results per point (common/accuracy.h): the naive and the specific
 * form of fn, and for FN_SINCOS sincosf's sine and cosine. */
__global__ void forms_kernel(float *out, const float *x, int n, int fn)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i], s, c;
    float4 r = make_float4(0, 0, 0, 0);
    switch (fn) {
    case FN_CBRT: r = make_float4(powf(a, 1.0f / 3.0f), cbrtf(a), 0, 0); break;
    case FN_EXP2: r = make_float4(powf(2.0f, a), exp2f(a), 0, 0); break;
    case FN_SINPI: r = make_float4(sinf(PI_F * a), sinpif(a), 0, 0); break;
    case FN_SINCOS: sincosf(a, &s, &c); r = make_float4(sinf(a), cosf(a), s, c); break;
    default: r = make_float4(powf(a, 2.0f), a * a, 0, 0); break;
    }
    ((float4 *)out)[i] = r;
}

/* Largest errors of the forms of fn over an even grid of [lo, hi]:
 * e[0], e[1] in ulps of the exact value (for FN_SINCOS e[0] sinf, e[1] cosf,
 * e[2] the worse of sincosf's two), e[3] and e[4] absolute (naive, optimized).
 * A NaN where the exact value is a number counts as infinitely wrong. */
static void grid_error(int fn, double lo, double hi, double e[5])
{
    float *x = (float *)host_alloc(GRID * sizeof(float));
    float *out = (float *)host_alloc(4 * (size_t)GRID * sizeof(float));
    double *v = (double *)host_alloc(GRID * sizeof(double));
    double *w = (double *)host_alloc(GRID * sizeof(double));
    accuracy_grid(x, GRID, lo, hi);
    accuracy_eval((const void *)forms_kernel, x, 1, out, 4, GRID, fn);
    for (int j = 0; j < GRID; j++) {
        double a = x[j];
        v[j] = fn == FN_CBRT ? cbrt(a) : fn == FN_EXP2 ? exp2(a) : fn == FN_SINPI ? sinpi_exact(a)
             : fn == FN_SINCOS ? sin(a) : a * a;
        w[j] = cos(a);
    }
    memset(e, 0, 5 * sizeof(double));
    e[0] = accuracy_worst_ulp(out + 0, 4, v, GRID);
    if (fn == FN_SINCOS) {
        e[1] = accuracy_worst_ulp(out + 1, 4, w, GRID);
        e[2] = fmax(accuracy_worst_ulp(out + 2, 4, v, GRID), accuracy_worst_ulp(out + 3, 4, w, GRID));
    } else {
        e[1] = accuracy_worst_ulp(out + 1, 4, v, GRID);
        e[3] = accuracy_worst_abs(out + 0, 4, v, GRID);
        e[4] = accuracy_worst_abs(out + 1, 4, v, GRID);
    }
    free(x);
    free(out);
    free(v);
    free(w);
}

__global__ void minus_eight_kernel(float *out)
{
    out[0] = powf(-8.0f, 1.0f / 3.0f);
    out[1] = cbrtf(-8.0f);
}

static void print_accuracy_table(void)
{
    double e[5];
    grid_error(FN_CBRT, 0, 1000, e);
    evidence_print("cbrt_powf_ulp_1e3", e[0], "ulp");
    evidence_print("cbrt_cbrtf_ulp_1e3", e[1], "ulp");
    grid_error(FN_CBRT, 1e20, 1e30, e);
    evidence_print("cbrt_powf_ulp_1e30", e[0], "ulp");
    evidence_print("cbrt_cbrtf_ulp_1e30", e[1], "ulp");
    /* cbrtf's negative half on its own, against its documented bound, over
     * the negative half of the timed band (powf has no real value there). */
    grid_error(FN_CBRT, -1000, 0, e);
    evidence_print("cbrt_cbrtf_ulp_neg", e[1], "ulp");
    grid_error(FN_EXP2, -100, 100, e);
    evidence_print("exp2_powf_ulp", e[0], "ulp");
    evidence_print("exp2_exp2f_ulp", e[1], "ulp");
    grid_error(FN_SINPI, -1000, 1000, e);
    evidence_print("sinpi_sinf_abs", e[3], "abs");
    evidence_print("sinpi_sinpif_abs", e[4], "abs");
    evidence_print("sinpi_sinpif_ulp", e[1], "ulp");
    grid_error(FN_SINCOS, -100, 100, e);
    evidence_print("sincos_sinf_ulp", e[0], "ulp");
    evidence_print("sincos_cosf_ulp", e[1], "ulp");
    evidence_print("sincos_sincosf_ulp", e[2], "ulp");
    grid_error(FN_SQUARE, -10000, 10000, e);
    evidence_print("square_powf_ulp", e[0], "ulp");
    evidence_print("square_mul_ulp", e[1], "ulp");
    /* The cube root of -8 is -2, but -8 to the power 1/3.f is not a real
     * number (1/3.f is not an odd integer's reciprocal): powf returns NaN. */
    float *d, h[2];
    d = (float *)device_alloc(2 * sizeof(float));
    minus_eight_kernel<<<1, 1>>>(d);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d));
    printf("check: powf(-8, 1/3.f) = %g, cbrtf(-8) = %g\n", h[0], h[1]);
    evidence_print("pow_minus8_third_is_nan", h[0] != h[0], "bool");
    evidence_print("cbrtf_minus8", h[1], "value");
}

static const char *fn_name(int general, int fn)
{
    static const char *names[2][6] = {
        {"", "cbrtf (1 ulp)", "exp2f (2 ulp)", "sinpif (1 ulp)", "sincosf (2 ulp each)",
         "a * a (correctly rounded)"},
        {"", "powf (4 ulp) of |a| with exponent 1/3.f", "powf (4 ulp) with base 2",
         "sinf (2 ulp) of PI_F * a", "sinf and cosf (2 ulp each)", "powf (4 ulp) with exponent 2"}};
    return names[general][fn];
}

static int check(void *data, struct check_report *r)
{
    struct mathchoice *m = (struct mathchoice *)data;
    size_t n = (size_t)m->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, m->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = pool_check(&m->pool, got, 1, reference_of, m, r);
    printf("check: bound of %s, %d terms; worst element used %.1f%% of its bound\n",
           fn_name(m->rule == RULE_GENERAL, m->fn), m->terms, 100 * worst);
    free(got);
    print_accuracy_table();
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float) * ((const struct mathchoice *)data)->n;
}

/* Not flops: function evaluations, which METRIC_SFU compares with the SFU's
 * 16 results per SM per clock (see the README for why that roof, and where
 * a form needs no SFU at all). */
static double flops(const void *data)
{
    const struct mathchoice *m = (const struct mathchoice *)data;
    return (double)m->terms * (double)m->n;
}

/* The square's specific form, a * a, uses no special-function unit at all,
 * so the SFU is no ceiling for it (the optimized square ran above the SFU's
 * rate when shown against it): that configuration is shown against FP32, one multiply per
 * evaluation, a true if distant ceiling. What binds every configuration is
 * instruction issue (see evidence.toml). */
static enum metric metric_of(const void *data)
{
    return ((const struct mathchoice *)data)->fn == FN_SQUARE ? METRIC_GFLOPS : METRIC_SFU;
}

static void destroy(void *data)
{
    struct mathchoice *m = (struct mathchoice *)data;
    CUDA_CHECK(cudaFree(m->in));
    CUDA_CHECK(cudaFree(m->out));
    pool_free(&m->pool);
    free(m->values);
    free(m);
}

const struct problem PROBLEM = {
    .number = 31,
    .slug = "math-function-choice",
    .title = "Choosing the math function: cbrtf, exp2f, sinpif, sincosf and x*x instead of the "
             "general forms",
    .section = "BPG 11.1.5",
    .size_help = "elements; each sums --terms evaluations of the function",
    .default_size = 1L << 24,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {{"function", "1 cube root, 2 power of two, 3 sin(pi a), 4 sin + cos, 5 square", 1,
               1, 5},
              {"terms", "evaluations per element (work per byte moved)", 32, 1, 1024}},
    .nknobs = 2,
    /* --terms 1 checks each function one evaluation per element, against its
     * own documented bound (at 32 terms the summed bound hides a few ulps). */
    .test_options = {"--terms 1", "--function 2 --terms 1", "--function 3 --terms 1",
                     "--function 4 --terms 1", "--function 5 --terms 1"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SFU,
    .metric_of = metric_of,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fma.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active",
    .sweeps = {"--function 2", "--function 3", "--function 4", "--function 5"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
