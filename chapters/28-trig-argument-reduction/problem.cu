/* Chapter 28, the problem: an oscillator bank. Oscillator i starts at phase
 * p_i cycles (p_i in [2^octave, 2^(octave+1))) and advances f_i cycles per
 * sample; for `terms` samples k = 1..K at phases q_k = p_i + k f_i (rounded
 * once to float) it sums cos(2 pi q_k) and sin(2 pi q_k). Both programs
 * compute that same function of the same float phases; they differ in how.
 * The check holds each sum to two bounds: one derived from what the program
 * computes (see term_bounds) around a double-precision reference, and Kahan's
 * bound around the exact sum of the terms as this GPU computes them (see
 * summation_of), which a plain or miscompensated sum exceeds. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "accuracy.h"
#include "rng.h"
#include "sinpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_TERMS, KNOB_OCTAVE, KNOB_SINPI };

/* The reference costs four double sines and cosines per term, two of them of
 * large arguments; inputs come from a pool of at most POOL distinct
 * oscillators scattered over the array, so that the reference and the bound
 * are computed once per pool value (every element is still checked). */
#define POOL 32768L


static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float2) + POOL * 40; }

/* Input and output (8 each), pick (4), reference and bound (2 x 8 each); per
 * pool value also the terms' sums and magnitudes (32). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 52 + POOL * 60; }

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_RAW_PHASE && c->check_rule != RULE_WRAPPED_PHASE) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_RAW_PHASE or "
                        "RULE_WRAPPED_PHASE in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct trigred *t = (struct trigred *)calloc(1, sizeof *t);
    t->rule = c->check_rule;
    t->n = c->size;
    t->terms = (int)c->knob[KNOB_TERMS];
    t->octave = (int)c->knob[KNOB_OCTAVE];
    t->sinpi = (int)c->knob[KNOB_SINPI];
    pool_init(&t->pool, t->n, POOL, c->seed, 2);
    long np = t->pool.size;
    float *ps = (float *)host_alloc((size_t)np * sizeof(float));
    float *fs = (float *)host_alloc((size_t)np * sizeof(float));
    float lo = ldexpf(1.0f, t->octave);
    rng_fill_f32(ps, (size_t)np, lo, 2 * lo, c->seed, 0);
    rng_fill_f32(fs, (size_t)np, F_MIN, 0.5f, c->seed, 1);
    t->values = (float2 *)host_alloc((size_t)np * sizeof(float2));
    for (long p = 0; p < np; p++)
        t->values[p] = make_float2(ps[p], fs[p]);
    free(ps);
    free(fs);
    float2 *h_in = (float2 *)host_alloc((size_t)t->n * sizeof(float2));
    pool_spread(&t->pool, h_in, t->values, sizeof(float2));
    t->in = (float2 *)device_alloc((size_t)t->n * sizeof(float2));
    t->out = (float2 *)device_alloc((size_t)t->n * sizeof(float2));
    CUDA_CHECK(cudaMemcpy(t->in, h_in, (size_t)t->n * sizeof(float2), cudaMemcpyHostToDevice));
    free(h_in);
    return t;
}

static void poison(void *data)
{
    struct trigred *t = (struct trigred *)data;
    poison_device(t->out, (size_t)t->n * sizeof(float2));
}

/* The float by which the check expects a program to multiply a phase in
 * cycles: 2 pi in double (2 acos(-1), no digit to mistype) rounded to float,
 * the value of the literal 6.28318531f. The bound below holds the program to
 * that product; it does not read TWO_PI_F, the kernels' constant, because a
 * bound built from the kernels' own constant would grant whatever error a
 * wrong digit of it causes (plant TWO_PI_DIGIT). The summation check does
 * share it: it judges only how the terms are added. */
static float two_pi_float(void) { return (float)(2.0 * acos(-1.0)); }

/* Exact cos and sin of 2 pi q (in double) for one float phase q, and the
 * bounds of the program's computed cos and sin of it. The program hands the
 * trigonometry x = q (RULE_RAW_PHASE) or x = q - rint(q) (RULE_WRAPPED_PHASE,
 * exact in float); either way cos(2 pi x) = cos(2 pi q).
 *   --sinpi 1: sincospif(2 x), 2 x exact, documented to 1 ulp (full range).
 *   --sinpi 0: sincosf gets w = fl(6.2831855 x), not 2 pi x: the difference
 *     is deterministic, so the bound holds it exactly, |cos(w) - cos(2 pi q)|,
 *     plus sincosf's documented 2 ulp (full range) around cos(w) and sin(w),
 *     with 6.2831855 from two_pi_float, not from the kernels. */
static void term_bounds(int rule, int sinpi, float q, double *c, double *s, double *dc, double *ds)
{
    sincospi_exact(2.0 * ((double)q - rint((double)q)), s, c);
    if (sinpi) {
        *dc = ulps_f32_bound(*c, 1.0);
        *ds = ulps_f32_bound(*s, 1.0);
    } else {
        double x = rule == RULE_WRAPPED_PHASE ? (double)q - rint((double)q) : (double)q;
        double w = (double)(float)((double)two_pi_float() * x);
        double cw = cos(w), sw = sin(w);
        *dc = fabs(cw - *c) + ulps_f32_bound(cw, 2.0);
        *ds = fabs(sw - *s) + ulps_f32_bound(sw, 2.0);
    }
}

/* Reference and bounds of one oscillator. The phases are rebuilt exactly as
 * the kernel rounds them: with f >= 2^-6 and q < 2^22, p + k f is exact in
 * double, so rounding it to float reproduces the kernel's fmaf. Each sum is
 * Kahan's compensated sum, whose error is at most (2u + O(K u^2)) times the
 * sum of the terms' magnitudes (Goldberg, Thm. 8; Higham sec. 4.3);
 * compensated_sum_bound (common/accuracy.h) covers the second-order part
 * with 16 K u^2. The last term covers the reference's own
 * rounding in double (libm's sin and cos of arguments up to 2^24 radians are
 * accurate to about an ulp of double). */
static void reference_of(const void *ctx, long v, double ref[2], double bound[2])
{
    const struct trigred *t = (const struct trigred *)ctx;
    float2 o = t->values[v];
    double sum[2] = {0, 0}, err[2] = {0, 0}, mass[2] = {0, 0};
    float k = 0.0f;
    for (int j = 0; j < t->terms; j++) {
        k += 1.0f;
        float q = (float)((double)k * (double)o.y + (double)o.x);
        double v[2], d[2];
        term_bounds(t->rule, t->sinpi, q, &v[0], &v[1], &d[0], &d[1]);
        for (int c = 0; c < 2; c++) {
            sum[c] += v[c];
            err[c] += d[c];
            mass[c] += fabs(v[c]) + d[c];
        }
    }
    double K = t->terms;
    for (int c = 0; c < 2; c++) {
        ref[c] = sum[c];
        bound[c] = err[c] + compensated_sum_bound(t->terms, mass[c]) + (8 * K + 8) * 0x1.0p-53 * (mass[c] + K);
    }
}

/* The summation check. The bound above must allow each term what the
 * program's formula may cost (for the raw phase in radians, the whole
 * |cos w - cos 2 pi q|, about 2^-6 at 2^15 cycles), and a sum whose
 * compensation is dropped or has its sign flipped still fits in that slack.
 * So the check also recomputes, on this GPU and per pool value, the very
 * terms the program adds: the same phase (fmaf), the same wrap or none as the
 * program's check_rule, and the same sincos_cycles call (problem.h), so the
 * same bits; summed exactly enough in double (K - 1 roundings of 2^-53 of the
 * magnitude, covered below). Each of the program's two sums must then be
 * within Kahan's bound of that sum:
 *   |result - sum t_k| <= (2u + 16 K u^2) sum |t_k|
 * (Goldberg, Thm. 8; Higham, sec. 4.3), and exactly t_1 for one sample, where
 * the first add into a zero sum is exact (compensated_sum_check_bound, whose
 * last term covers the double sum and keeps a zero sum's bound above zero).
 * A host model of these sums (glibc's cosf and sinf of the same float
 * arguments standing in for the GPU's, 32768 oscillators of the odd size,
 * octaves 0, 14, 15 and 20, raw and wrapped) finds a correct Kahan sum at 0.47
 * of this bound at most at 32 samples (0.82 at 4), a plain float sum past it
 * on 27 to 513 of the 65536 sums at the default 32 samples (86 at octave 15,
 * raw; up to 4.3 times the bound) and a sign-flipped compensation on 548 to
 * 1625. Cosines and sines cancel over a cycle, so the partial sums stay small
 * and a plain sum loses less here than in chapters 25 and 27: 32 samples show
 * it, 256 barely. */
__global__ void terms_kernel(float *out, const float *in, int n, int arg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int terms = arg >> 2, wrapped = (arg >> 1) & 1, sinpi = arg & 1;
    float2 o = make_float2(in[2 * i], in[2 * i + 1]);
    double sum[2] = {0.0, 0.0}, mass[2] = {0.0, 0.0};
    float k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        float q = fmaf(k, o.y, o.x);
        float x = wrapped ? q - rintf(q) : q, t[2];
        if (sinpi)
            sincos_cycles<1>(x, &t[1], &t[0]);
        else
            sincos_cycles<0>(x, &t[1], &t[0]);
        for (int c = 0; c < 2; c++) {
            sum[c] = __dadd_rn(sum[c], (double)t[c]);
            mass[c] = __dadd_rn(mass[c], fabs((double)t[c]));
        }
    }
    double *r = (double *)out + 4 * (size_t)i; /* 8 floats per oscillator hold 4 doubles */
    r[0] = sum[0], r[1] = mass[0], r[2] = sum[1], r[3] = mass[1];
}

static void summation_of(const void *ctx, long v, double ref[2], double bound[2])
{
    const struct trigred *t = (const struct trigred *)ctx;
    for (int c = 0; c < 2; c++) {
        ref[c] = t->terms_sum[4 * v + 2 * c];
        bound[c] = compensated_sum_check_bound(t->terms, t->terms_sum[4 * v + 2 * c + 1]);
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

__global__ void forms_kernel(float *out, const float *p, int n, int unused)
{
    (void)unused;
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
    double *exact = (double *)host_alloc(n * sizeof(double)); /* sin(2 pi p) */
    double *own = (double *)host_alloc(n * sizeof(double));   /* sin of sinf's argument */
    float lo = ldexpf(1.0f, m);
    rng_fill_f32(h_p, (size_t)n, lo, 2 * lo, BAND_SEED, (uint64_t)m);
    accuracy_eval((const void *)forms_kernel, h_p, 1, h_out, 2, n, 0); /* common/accuracy.h */
    for (int j = 0; j < n; j++) {
        double c;
        sincospi_exact(2.0 * ((double)h_p[j] - rint((double)h_p[j])), &exact[j], &c);
        own[j] = sin((double)(float)((double)TWO_PI_F * (double)h_p[j]));
    }
    e->radians_abs = accuracy_worst_abs(h_out, 2, exact, n);
    e->sinpi_ulp = accuracy_worst_ulp(h_out + 1, 2, exact, n);
    e->sinf_ulp = accuracy_worst_ulp(h_out, 2, own, n);
    free(h_p);
    free(h_out);
    free(exact);
    free(own);
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
    float *got = (float *)host_alloc(2 * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, t->out, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = pool_check(&t->pool, got, 2, reference_of, t, r);
    printf("check: %s (%s) of the %s phase, %d terms, phases in [2^%d, 2^%d) cycles; worst "
           "element used %.1f%% of its bound\n",
           t->sinpi ? "sincospif of 2 x" : "sincosf of fl(6.2831855f x)",
           t->sinpi ? "1 ulp" : "2 ulp", t->rule == RULE_WRAPPED_PHASE ? "wrapped" : "raw",
           t->terms, t->octave, t->octave + 1, 100 * worst);
    if (worst == worst) {
        evidence_print("bound_used_pct", 100 * worst, "%");
        evidence_print("max_error_abs", r->max_abs, "abs");
    }
    /* Then Kahan's bound around the sums of this GPU's own terms (summation_of). */
    t->terms_sum = (double *)host_alloc((size_t)t->pool.size * 4 * sizeof(double));
    accuracy_eval((const void *)terms_kernel, (const float *)t->values, 2, (float *)t->terms_sum, 8,
                  (int)t->pool.size, 4 * t->terms + 2 * (t->rule == RULE_WRAPPED_PHASE) + t->sinpi);
    struct check_report sr;
    double sum_worst = pool_check(&t->pool, got, 2, summation_of, t, &sr);
    printf("check: Kahan's bound around the exact sums of this GPU's own terms; worst element "
           "used %.1f%% of it%s\n", 100 * sum_worst,
           sr.passed ? "" : " (failed: a plain or miscompensated sum, or other terms)");
    if (sum_worst == sum_worst)
        evidence_print("sum_bound_used_pct", 100 * sum_worst, "%");
    if (r->passed && !sr.passed)
        *r = sr;
    free(t->terms_sum);
    t->terms_sum = NULL;
    free(got);
    print_accuracy_table();
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float2) * ((const struct trigred *)data)->n;
}

/* The issue roof's work (METRIC_ISSUE), warp instructions: 32 per 32 samples
 * (a warp's trip through the loop), credited to every program like bytes().
 * This is a floor, not a count: it must sit under every program and option,
 * or a row could read above 100% of the roof. The leanest program is the
 * naive one with --sinpi 1 (no wrap; sincospif's main path): its PTX holds,
 * per sample, 29 floating-point operations that each become a SASS
 * instruction (11 FMAs, the 8 adds of the two compensated sums, 3 other adds,
 * a multiply, 3 roundings or conversions, 3 selects) and 5 tests (the
 * quadrant's bits, whole and huge arguments), at least 3 instructions however
 * ptxas folds them, branches or predicates: 32. A program that issues more
 * per sample (the radians forms, the wrapped ones, the slow path) reads below
 * its issue activity in the ratio of 32 to what it issues: its % of this roof
 * is not how busy issue is (smsp__issue_active says that). Claim
 * credit-under-every-program holds 32 under every profiled program. */
static double flops(const void *data)
{
    const struct trigred *t = (const struct trigred *)data;
    return 32.0 * t->terms * (double)t->n / 32.0;
}

static void destroy(void *data)
{
    struct trigred *t = (struct trigred *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    pool_free(&t->pool);
    free(t->values);
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
              {"octave", "start phases in [2^octave, 2^(octave+1)) cycles", 15, 0, 20},
              {"sinpi", "1: sincospif of the phase in half cycles instead of sincosf in radians "
               "(both programs)", 0, 0, 1}},
    .nknobs = 3,
    .test_options = {"--terms 1", "--octave 0", "--octave 14", "--octave 20", "--sinpi 1",
                     "--sinpi 1 --octave 20"},
    .timing = TIME_KERNEL,
    .metric = METRIC_ISSUE,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_inst_executed_op_local_ld.sum,"
                   "smsp__sass_inst_executed_op_local_st.sum,"
                   "smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,"
                   "sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum,"
                   /* the slow path's local memory: how much of it the L1 serves */
                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,"
                   /* where the warps wait (the first edition's prediction missed) */
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_wait_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct",
    /* Fast path for both; past 2^20; and the same pair in half cycles. */
    .sweeps = {"--octave 10", "--octave 20", "--sinpi 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
