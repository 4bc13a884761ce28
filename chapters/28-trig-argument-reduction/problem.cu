/* Chapter 28, the problem: an oscillator bank. Oscillator i starts at phase
 * p_i cycles (p_i in [2^octave, 2^(octave+1))) and advances f_i cycles per
 * sample; for `terms` samples k = 1..K at phases q_k = p_i + k f_i (rounded
 * once to float) it sums cos(2 pi q_k) and sin(2 pi q_k). Both programs
 * compute that same function of the same float phases; they differ in how.
 * The check holds each sum to an error bound derived from what the program
 * computes (see term_bounds) and a double-precision reference. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_TERMS, KNOB_OCTAVE };

/* The reference costs four double sines and cosines per term, two of them of
 * large arguments; inputs come from a pool of at most POOL distinct
 * oscillators scattered over the array, so that the reference and the bound
 * are computed once per pool value (every element is still checked). */
#define POOL 32768L

/* The naive program's 2 pi, as the compiler rounds the literal 6.28318531f. */
#define TWO_PI_F 6.28318531f

static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float2); }

/* Input and output (8 each), pick (4), reference and bound (2 x 8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 52 + POOL * 28; }

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_SINF_RADIANS && c->check_rule != RULE_SINPI_WRAPPED) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_SINF_RADIANS or "
                        "RULE_SINPI_WRAPPED in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct trigred *t = (struct trigred *)calloc(1, sizeof *t);
    t->rule = c->check_rule;
    t->n = c->size;
    t->terms = (int)c->knob[KNOB_TERMS];
    t->octave = (int)c->knob[KNOB_OCTAVE];
    t->npool = t->n < POOL ? t->n : POOL;
    float *ps = (float *)host_alloc((size_t)t->npool * sizeof(float));
    float *fs = (float *)host_alloc((size_t)t->npool * sizeof(float));
    float lo = ldexpf(1.0f, t->octave);
    rng_fill_f32(ps, (size_t)t->npool, lo, 2 * lo, c->seed, 0);
    rng_fill_f32(fs, (size_t)t->npool, F_MIN, 0.5f, c->seed, 1);
    t->pool = (float2 *)host_alloc((size_t)t->npool * sizeof(float2));
    for (long p = 0; p < t->npool; p++)
        t->pool[p] = make_float2(ps[p], fs[p]);
    free(ps);
    free(fs);
    t->pick = (int32_t *)host_alloc((size_t)t->n * sizeof(int32_t));
    t->h_in = (float2 *)host_alloc((size_t)t->n * sizeof(float2));
    rng_fill_i32(t->pick, (size_t)t->n, 0, (int32_t)(t->npool - 1), c->seed, 2);
    for (long i = 0; i < t->n; i++)
        t->h_in[i] = t->pool[t->pick[i]];
    t->in = (float2 *)device_alloc((size_t)t->n * sizeof(float2));
    t->out = (float2 *)device_alloc((size_t)t->n * sizeof(float2));
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, (size_t)t->n * sizeof(float2), cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct trigred *t = (struct trigred *)data;
    poison_device(t->out, (size_t)t->n * sizeof(float2));
}

/* sin(pi t) and cos(pi t) in double for |t| <= 1, exact where they are 0 or
 * +-1. libm's sin(M_PI * 1) is 1.2e-16, not 0 (M_PI is not pi), which would
 * charge an exact sinpif millions of ulps at a half-integer phase; folding t
 * into [-1/2, 1/2] by symmetry (exact in double) keeps every zero exact. */
static void sincospi_ref(double t, double *s, double *c)
{
    double r = t, sign = 1;
    if (r > 0.5)
        r = 1 - r, sign = -1; /* sin(pi (1 - r)) = sin(pi r); cos changes sign */
    else if (r < -0.5)
        r = -1 - r, sign = -1;
    *s = sin(M_PI * r);
    *c = sign * sin(M_PI * (0.5 - fabs(r)));
}

/* Exact cos and sin of 2 pi q (in double) for one float phase q, and the
 * bounds of the program's computed cos and sin of it.
 *   RULE_SINPI_WRAPPED: t = 2 (q - rint(q)) is exact, and cospi(t) = cos(2 pi q);
 *     cospif and sinpif are documented to 1 ulp (full range).
 *   RULE_SINF_RADIANS: cosf and sinf get w = fl(6.2831855 q), not 2 pi q: the
 *     difference is deterministic, so the bound holds it exactly,
 *     |cos(w) - cos(2 pi q)|, plus cosf's and sinf's documented 2 ulp
 *     (full range) around cos(w) and sin(w). */
static void term_bounds(int rule, float q, double *c, double *s, double *dc, double *ds)
{
    sincospi_ref(2.0 * ((double)q - rint((double)q)), s, c);
    if (rule == RULE_SINPI_WRAPPED) {
        *dc = ulps_f32_bound(*c, 1.0);
        *ds = ulps_f32_bound(*s, 1.0);
    } else {
        double w = (double)(float)((double)TWO_PI_F * (double)q);
        double cw = cos(w), sw = sin(w);
        *dc = fabs(cw - *c) + ulps_f32_bound(cw, 2.0);
        *ds = fabs(sw - *s) + ulps_f32_bound(sw, 2.0);
    }
}

/* Reference and bounds of one oscillator. The phases are rebuilt exactly as
 * the kernel rounds them: with f >= 2^-6 and q < 2^22, p + k f is exact in
 * double, so rounding it to float reproduces the kernel's fmaf. Each sum is
 * Kahan's compensated sum, whose error is at most (2u + O(K u^2)) times the
 * sum of the terms' magnitudes (Goldberg, Thm. 8; Higham sec. 4.3); 16 K u^2
 * covers the second-order part. The last term covers the reference's own
 * rounding in double (libm's sin and cos of arguments up to 2^24 radians are
 * accurate to about an ulp of double). */
static void reference_of(const struct trigred *t, float2 o, double ref[2], double bound[2])
{
    const double u = 0x1.0p-24;
    double sum[2] = {0, 0}, err[2] = {0, 0}, mass[2] = {0, 0};
    float k = 0.0f;
    for (int j = 0; j < t->terms; j++) {
        k += 1.0f;
        float q = (float)((double)k * (double)o.y + (double)o.x);
        double v[2], d[2];
        term_bounds(t->rule, q, &v[0], &v[1], &d[0], &d[1]);
        for (int c = 0; c < 2; c++) {
            sum[c] += v[c];
            err[c] += d[c];
            mass[c] += fabs(v[c]) + d[c];
        }
    }
    double K = t->terms;
    for (int c = 0; c < 2; c++) {
        ref[c] = sum[c];
        bound[c] = err[c] + (2 * u + 16 * K * u * u) * mass[c] + (8 * K + 8) * 0x1.0p-53 * (mass[c] + K);
    }
}

/* The accuracy table of the README: over random float phases p in each band
 * [2^m, 2^(m+1)) cycles (the same in every run; an even grid would hold only
 * whole and half cycles in the high bands), the largest error against sin(2 pi p) in double
 * of the naive form sinf(6.2831855f p) (absolute) and of the optimized form
 * sinpif(2 (p - rint(p))) (ulp), and how close sinf itself stays to the sine
 * of the float argument it was given (ulp). The grid is the same in every
 * run; both programs print the whole table, since it describes the two
 * formulas, not the program. */
#define BAND_POINTS (1 << 16)
#define BAND_SEED 28

__global__ void forms_kernel(float *out, const float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = sinf(TWO_PI_F * p[i]);
        out[2 * i + 1] = sinpif(2.0f * (p[i] - rintf(p[i])));
    }
}

struct band_error {
    double radians_abs, sinpi_ulp, sinf_ulp;
};

static void band_error(int m, struct band_error *e)
{
    const int n = BAND_POINTS;
    float *h_p = (float *)host_alloc(n * sizeof(float));
    float *h_out = (float *)host_alloc(2 * n * sizeof(float));
    float lo = ldexpf(1.0f, m);
    rng_fill_f32(h_p, (size_t)n, lo, 2 * lo, BAND_SEED, (uint64_t)m);
    float *d_p = (float *)device_alloc(n * sizeof(float));
    float *d_out = (float *)device_alloc(2 * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_p, h_p, n * sizeof(float), cudaMemcpyHostToDevice));
    forms_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_out, d_p, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h_out, d_out, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    memset(e, 0, sizeof *e);
    for (int j = 0; j < n; j++) {
        double s, c;
        sincospi_ref(2.0 * ((double)h_p[j] - rint((double)h_p[j])), &s, &c);
        double w = (double)(float)((double)TWO_PI_F * (double)h_p[j]);
        e->radians_abs = fmax(e->radians_abs, fabs((double)h_out[2 * j] - s));
        e->sinpi_ulp = fmax(e->sinpi_ulp, ulp_distance_f32(h_out[2 * j + 1], s));
        e->sinf_ulp = fmax(e->sinf_ulp, ulp_distance_f32(h_out[2 * j], sin(w)));
    }
    CUDA_CHECK(cudaFree(d_p));
    CUDA_CHECK(cudaFree(d_out));
    free(h_p);
    free(h_out);
}

static void print_accuracy_table(void)
{
    static const int octaves[] = {0, 10, 15, 20};
    char name[64];
    double sinf_ulp = 0, sinpi_ulp = 0;
    for (int b = 0; b < 4; b++) {
        struct band_error e;
        band_error(octaves[b], &e);
        snprintf(name, sizeof name, "radians_abs_o%d", octaves[b]);
        evidence_print(name, e.radians_abs, "abs");
        snprintf(name, sizeof name, "sinpi_ulp_o%d", octaves[b]);
        evidence_print(name, e.sinpi_ulp, "ulp");
        sinf_ulp = fmax(sinf_ulp, e.sinf_ulp);
        sinpi_ulp = fmax(sinpi_ulp, e.sinpi_ulp);
    }
    evidence_print("sinf_own_argument_ulp", sinf_ulp, "ulp");
    evidence_print("sinpi_ulp_max", sinpi_ulp, "ulp");
}

static int check(void *data, struct check_report *r)
{
    struct trigred *t = (struct trigred *)data;
    size_t n = (size_t)t->n;
    double *pref = (double *)host_alloc((size_t)t->npool * 2 * sizeof(double));
    double *pbound = (double *)host_alloc((size_t)t->npool * 2 * sizeof(double));
    for (long p = 0; p < t->npool; p++)
        reference_of(t, t->pool[p], &pref[2 * p], &pbound[2 * p]);

    float *got = (float *)host_alloc(2 * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, t->out, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = check_pooled_f32(got, n, 2, t->pick, pref, pbound, r);
    printf("check: %s, %d terms, phases in [2^%d, 2^%d) cycles; worst element used %.1f%% of "
           "its bound\n",
           t->rule == RULE_SINF_RADIANS ? "cosf and sinf (2 ulp) of fl(6.2831855f q)"
                                        : "cospif and sinpif (1 ulp) of the wrapped phase",
           t->terms, t->octave, t->octave + 1, 100 * worst);
    if (worst == worst) {
        evidence_print("bound_used_pct", 100 * worst, "%");
        evidence_print("max_error_abs", r->max_abs, "abs");
    }
    free(pref);
    free(pbound);
    free(got);
    print_accuracy_table();
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float2) * ((const struct trigred *)data)->n;
}

/* Not flops: the evaluations METRIC_SFU counts, one cosine and one sine per
 * sample, compared with the SFU's 16 results per clock per SM: the rate the
 * hardware sine (__sinf, __cosf) would deliver. Neither program uses it; the
 * README says what bounds each one. */
static double flops(const void *data)
{
    const struct trigred *t = (const struct trigred *)data;
    return 2.0 * t->terms * (double)t->n;
}

static void destroy(void *data)
{
    struct trigred *t = (struct trigred *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t->pick);
    free(t->pool);
    free(t);
}

const struct problem PROBLEM = {
    .number = 28,
    .slug = "trig-argument-reduction",
    .title = "Trigonometric argument reduction: wrapped phases and sinpif for large angles",
    .section = "5.4.1",
    .size_help = "oscillators; each sums cos and sin over --terms samples",
    .default_size = 1L << 24,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 27,
    .knobs = {{"terms", "samples per oscillator (work per byte moved)", 32, 1, 1024},
              {"octave", "start phases in [2^octave, 2^(octave+1)) cycles", 15, 0, 20}},
    .nknobs = 2,
    .test_options = {"--terms 1", "--octave 0", "--octave 14", "--octave 20"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SFU,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_inst_executed_op_local_ld.sum,"
                   "smsp__sass_inst_executed_op_local_st.sum,"
                   "smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,"
                   "sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum",
    .sweeps = {"--octave 10", "--octave 20"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
