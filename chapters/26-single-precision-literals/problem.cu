/* Chapter 26, the problem: for every input x in [-1, 1), the sum over
 * k = 1..terms of p(a_k), a_k = x * (k / terms), where p is the degree-9
 * Taylor polynomial of e^a written with ten literal coefficients. The check
 * holds each element to an error bound derived from how the program rounds
 * (its check_rule) and a double-precision reference. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_TERMS };

/* The programs' literals, highest power first, as the compiler reads them
 * without a suffix (doubles). They must match naive.cu and optimized.cu. */
#define NCOEFF 10
static const double COEFF[NCOEFF] = {2.7557319e-6, 2.4801587e-5, 1.9841270e-4, 1.3888889e-3,
                                     8.3333333e-3, 4.1666667e-2, 1.6666667e-1, 0.5, 1.0, 1.0};

/* The reference costs 10 double operations per term: the inputs are pooled
 * (common/pool.h), and the reference and bound are computed once per
 * distinct value. */

static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float); }

/* Input, pick, downloaded output (4 bytes each); reference and bound (8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 28 + POOL_MAX * 20; }

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_DOUBLE_LITERALS && c->check_rule != RULE_FLOAT_LITERALS) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_DOUBLE_LITERALS or "
                        "RULE_FLOAT_LITERALS in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct literals *l = (struct literals *)calloc(1, sizeof *l);
    l->rule = c->check_rule;
    l->n = c->size;
    l->terms = (int)c->knob[KNOB_TERMS];
    l->step = 1.0f / (float)l->terms;
    pool_init(&l->pool, l->n, POOL_MAX, c->seed, 1);
    l->values = (float *)host_alloc((size_t)l->pool.size * sizeof(float));
    rng_fill_f32(l->values, (size_t)l->pool.size, -INPUT_LIMIT, INPUT_LIMIT, c->seed, 0);
    float *h_in = (float *)host_alloc((size_t)l->n * sizeof(float));
    pool_spread(&l->pool, h_in, l->values, sizeof(float));
    l->in = (float *)device_alloc((size_t)l->n * sizeof(float));
    l->out = (float *)device_alloc((size_t)l->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(l->in, h_in, (size_t)l->n * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);
    return l;
}

static void poison(void *data)
{
    struct literals *l = (struct literals *)data;
    poison_device(l->out, (size_t)l->n * sizeof(float));
}

/* Value and error bound of one computed p(a), by Horner's rule. P is the
 * exact partial value with the double coefficients (the reference), B a
 * bound on how far the program's float partial value q can be from it. A
 * line turns q into fl(q a + c); its local error d enters the result times
 * a^(lines left), at most d since |a| <= 1, so the bounds simply add up.
 * u = 2^-24 is the unit roundoff of float.
 *   Both programs: the first literal is rounded to float at compile time.
 *   RULE_DOUBLE_LITERALS: m = fl32(q a) (error <= u |q a|), the double add
 *     m + c (<= 2^-53 of it), the conversion back (<= u of it). Where c is
 *     exact in float (0.5, 1.0) the compiler makes the line one FFMA, whose
 *     single rounding this bound covers too.
 *   RULE_FLOAT_LITERALS: c rounded to float (<= u |c|: decimal to float, or
 *     to double and then float, a hair more), then one FFMA (<= u of its
 *     result); the bound also covers an FMUL and FADD pair. */
static double poly_bound(int rule, double a, double *value)
{
    const double u = 0x1.0p-24;
    double P = COEFF[0], B = u * COEFF[0], aa = fabs(a);
    for (int j = 1; j < NCOEFF; j++) {
        double c = COEFF[j];
        double Pn = P * a + c;
        double qa = (fabs(P) + B) * aa; /* |q a| at most */
        double next = fabs(Pn) + B * aa; /* |q a + c| at most */
        double d;
        if (rule == RULE_DOUBLE_LITERALS) {
            d = u * qa + (u + 0x1.0p-52) * (next + u * qa);
        } else {
            double dc = u * fabs(c) * (1 + 0x1.0p-28);
            d = dc + u * qa + u * (next + dc + u * qa);
        }
        B = B * aa + d;
        P = Pn;
    }
    *value = P;
    return B;
}

/* Reference and bound of one input x. The arguments are rebuilt exactly as
 * the kernel rounds them: a product of two floats is exact in double, so
 * rounding it to float reproduces the GPU's single-rounded multiply. The
 * kernel adds the terms t_k in float, one after another: that sum is off by
 * at most gamma(K-1) sum |t_k|, gamma(m) = m u / (1 - m u) (Higham,
 * "Accuracy and Stability of Numerical Algorithms", sec. 4.2), and each
 * computed |t_k| is at most |p(a_k)| + its bound. The last term covers the
 * reference's own rounding in double. */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct literals *l = (const struct literals *)ctx;
    float x = l->values[v];
    const double u = 0x1.0p-24;
    double sum = 0, err = 0, mass = 0;
    float k = 0.0f;
    for (int j = 0; j < l->terms; j++) {
        k += 1.0f;
        float m = (float)((double)k * (double)l->step);
        float a = (float)((double)x * (double)m);
        double t, b = poly_bound(l->rule, a, &t);
        sum += t;
        err += b;
        mass += fabs(t) + b;
    }
    double K = l->terms, gamma = (K - 1) * u / (1 - (K - 1) * u);
    *ref = sum;
    *bound = err + gamma * mass + (16 * K + 64) * 0x1.0p-53 * mass;
}

static int check(void *data, struct check_report *r)
{
    struct literals *l = (struct literals *)data;
    size_t n = (size_t)l->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, l->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = pool_check(&l->pool, got, 1, reference_of, l, r);
    printf("check: rounding of %s, %d terms; worst element used %.1f%% of its bound\n",
           l->rule == RULE_DOUBLE_LITERALS ? "float products with double adds"
                                            : "float fused multiply-adds with float coefficients",
           l->terms, 100 * worst);
    /* How close the worst element came to its bound, and the largest error in
     * units of the float at the reference: the evidence that the two
     * programs' results differ only in the last bits. */
    if (worst == worst) {
        evidence_print("bound_used_pct", 100 * worst, "%");
        evidence_print("max_error_ulp", r->max_ulp, "ulp");
    }
    free(got);
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float) * ((const struct literals *)data)->n;
}

/* FP32 flops that the work needs: per term the polynomial's nine
 * multiply-adds (two flops each) and the add into the sum. The argument's
 * two multiplies and the counter are bookkeeping, not counted. */
static double flops(const void *data)
{
    const struct literals *l = (const struct literals *)data;
    return 19.0 * l->terms * (double)l->n;
}

static void destroy(void *data)
{
    struct literals *l = (struct literals *)data;
    CUDA_CHECK(cudaFree(l->in));
    CUDA_CHECK(cudaFree(l->out));
    pool_free(&l->pool);
    free(l->values);
    free(l);
}

const struct problem PROBLEM = {
    .number = 26,
    .slug = "single-precision-literals",
    .title = "Single-precision literals: 0.5f, not 0.5, in float code",
    .section = "5.4.1",
    .size_help = "elements; each sums --terms values of a degree-9 polynomial",
    .default_size = 1L << 24,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {{"terms", "polynomial evaluations per element (work per byte moved)", 32, 1, 1024}},
    .nknobs = 1,
    .test_options = {"--terms 1", "--terms 4", "--terms 256"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GFLOPS,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,"
                   "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,"
                   "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,"
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
                   "sm__inst_executed_pipe_fp64.sum,sm__inst_executed_pipe_fma.sum,"
                   "sm__inst_executed_pipe_xu.sum",
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
