/* Chapter 30, the problem: evaluate one polynomial of degree --degree at every
 * element of an fp16 array by Horner's rule, in fp16. Both programs do the
 * same multiply-adds in the same order, with the same rounding; they differ
 * only in how many values one instruction carries. The check is bit-exact
 * against a host emulation of the same fp16 fused multiply-adds; an accuracy
 * table against a double-precision reference, and the rigorous bound each
 * element stays within, are evidence beside it. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_DEGREE };

#define PATTERNS 65536 /* every fp16 bit pattern */

static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(__half); }

/* Input bits, downloaded output and emulated output (2 bytes each), got as
 * float (4), the reference and bound per element (8 each), the per-pattern
 * tables. */
static size_t host_bytes(const struct config *c)
{
    return (size_t)c->size * 26 + (size_t)PATTERNS * 26;
}

static unsigned short half_bits(__half h)
{
    __half_raw r = h;
    return r.x;
}

static __half half_of_bits(unsigned short b)
{
    __half_raw r;
    r.x = b;
    return __half(r);
}

static void *create(const struct config *c)
{
    struct horner *h = (struct horner *)calloc(1, sizeof *h);
    h->n = c->size;
    h->degree = (int)c->knob[KNOB_DEGREE];
    /* Coefficients c_k = u_k / (k + 1), u_k uniform in [-1, 1), rounded to
     * fp16: with |x| <= 1 every partial sum of Horner's rule stays below
     * sum |c_k| < 7, far inside fp16's range. */
    float u[MAX_DEGREE + 1];
    rng_fill_f32(u, (size_t)h->degree + 1, -1.0f, 1.0f, c->seed, 7);
    for (int k = 0; k <= h->degree; k++) {
        h->p.c[k] = __float2half_rn(u[k] / (float)(k + 1));
    }
    /* Inputs uniform in [-1, 1), rounded to fp16, generated in slices. */
    h->h_in = (unsigned short *)host_alloc((size_t)h->n * sizeof(unsigned short));
    const long SLICE = 1L << 20;
    float *tmp = (float *)host_alloc(SLICE * sizeof(float));
    for (long at = 0; at < h->n; at += SLICE) {
        long m = h->n - at < SLICE ? h->n - at : SLICE;
        rng_fill_f32(tmp, (size_t)m, -1.0f, 1.0f, c->seed, 100 + (uint64_t)(at / SLICE));
        for (long j = 0; j < m; j++)
            h->h_in[at + j] = half_bits(__float2half_rn(tmp[j]));
    }
    free(tmp);
    h->in = (__half *)device_alloc((size_t)h->n * sizeof(__half));
    h->out = (__half *)device_alloc((size_t)h->n * sizeof(__half));
    CUDA_CHECK(cudaMemcpy(h->in, h->h_in, (size_t)h->n * sizeof(__half), cudaMemcpyHostToDevice));
    return h;
}

static void poison(void *data)
{
    struct horner *h = (struct horner *)data;
    poison_device(h->out, (size_t)h->n * sizeof(__half)); /* 0xFFFF: an fp16 NaN */
}

/* Spacing of fp16 values at |v| (one fp16 ulp): 2^(e-11) for v in
 * [2^(e-1), 2^e), and 2^-24 among the subnormals. */
static double ulp16_at(double v)
{
    v = fabs(v);
    if (v < 0x1.0p-14)
        return 0x1.0p-24;
    int e;
    frexp(v, &e);
    return ldexp(1.0, e - 11);
}

/* One fp16 fused multiply-add y * x + c as the GPU computes it (HFMA2, each
 * lane): the exact result, rounded once to the nearest fp16, ties to even.
 * Here |x| <= 1 and |y|, |c| < 8, all multiples of 2^-24 (fp16's smallest
 * spacing), so y * x is a multiple of 2^-48 below 2^3 and the sum a multiple
 * of 2^-48 below 2^4: at most 52 significant bits, exact in a double. The
 * one rounding is then __double2half's (round to nearest even). */
static __half hfma_host(__half y, __half x, __half c)
{
    double exact = (double)__half2float(y) * (double)__half2float(x) + (double)__half2float(c);
    return __double2half(exact);
}

/* What both programs must produce for input x: Horner's rule in emulated fp16. */
static unsigned short emulated_of(const struct horner *h, __half x)
{
    __half y = h->p.c[h->degree];
    for (int k = h->degree - 1; k >= 0; k--)
        y = hfma_host(y, x, h->p.c[k]);
    return half_bits(y);
}

/* Reference and bound of one input x (an fp16 value, |x| <= 1).
 *
 * Horner's rule with a fused multiply-add rounds once per step:
 * y_k = (y_{k+1} x + c_k)(1 + d_k), |d_k| <= u = 2^-11 (fp16 keeps 11
 * significant bits). Unrolled, the term c_k x^k carries at most D such
 * factors, so (Higham, "Accuracy and Stability of Numerical Algorithms",
 * sec. 5.1, with one rounding per step instead of two)
 *   |computed - p(x)| <= gamma_D * sum_k |c_k| |x|^k,  gamma_D = D u / (1 - D u).
 * A step whose result is subnormal in fp16 can err by half the subnormal
 * spacing, 2^-25, absolutely; later steps multiply such an error by
 * |x| (1 + d) <= 1 + u, so D steps add at most D 2^-25 (1 + u)^D < D 2^-24.
 * The inputs and coefficients are fp16 values, exact in double, so the
 * double reference evaluates the same polynomial at the same point; its own
 * error (D double roundings of numbers below 7) is far below 1e-12. */
static void reference_of(const struct horner *h, double x, double *ref, double *bound)
{
    const double u = 0x1.0p-11;
    int D = h->degree;
    double y = __half2float(h->p.c[D]);
    double mass = fabs(y);
    for (int k = D - 1; k >= 0; k--) {
        double ck = __half2float(h->p.c[k]);
        y = y * x + ck;
        mass = mass * fabs(x) + fabs(ck);
    }
    double gamma = D * u / (1 - D * u);
    *ref = y;
    *bound = gamma * mass + D * 0x1.0p-24 + 1e-12;
}

static int check(void *data, struct check_report *r)
{
    struct horner *h = (struct horner *)data;
    size_t n = (size_t)h->n;
    /* Every input is an fp16 value in [-1, 1]: one reference per bit pattern. */
    double *pref = (double *)host_alloc(PATTERNS * sizeof(double));
    double *pbound = (double *)host_alloc(PATTERNS * sizeof(double));
    unsigned short *pbits = (unsigned short *)host_alloc(PATTERNS * sizeof(unsigned short));
    for (int b = 0; b < PATTERNS; b++) {
        double x = __half2float(half_of_bits((unsigned short)b));
        if (fabs(x) <= 1.0) {
            reference_of(h, x, &pref[b], &pbound[b]);
            pbits[b] = emulated_of(h, half_of_bits((unsigned short)b));
        } else {
            pref[b] = NAN, pbound[b] = -1, pbits[b] = 0x7E00; /* never an input */
        }
    }
    unsigned short *bits = (unsigned short *)host_alloc(n * sizeof(unsigned short));
    CUDA_CHECK(cudaMemcpy(bits, h->out, n * sizeof(__half), cudaMemcpyDeviceToHost));
    unsigned short *want = (unsigned short *)host_alloc(n * sizeof(unsigned short));
    for (size_t i = 0; i < n; i++)
        want[i] = pbits[h->h_in[i]];
    /* The check: every output bit for bit what the emulated fp16 FMAs give. */
    check_bytes(bits, want, n, sizeof(unsigned short), r);
    float *got = (float *)host_alloc(n * sizeof(float));
    double *ref = (double *)host_alloc(n * sizeof(double));
    double *bound = (double *)host_alloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        got[i] = __half2float(half_of_bits(bits[i]));
        ref[i] = pref[h->h_in[i]];
        bound[i] = pbound[h->h_in[i]];
    }

    /* The accuracy table, evidence beside the check: largest error absolute
     * and in fp16 ulps of the exact value, its root mean square, and how much
     * of the rigorous bound the worst element used. */
    double max_abs = 0, max_ulp = 0, sq = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]);
        if (e != e) {
            max_abs = max_ulp = used = INFINITY;
            break;
        }
        max_abs = fmax(max_abs, e);
        max_ulp = fmax(max_ulp, e / ulp16_at(ref[i]));
        used = fmax(used, e / bound[i]);
        sq += e * e;
    }
    printf("check: fp16 Horner bound gamma_%d * sum |c_k||x|^k + %d * 2^-24; worst element used "
           "%.2f%% of its bound\n", h->degree, h->degree, 100 * used);
    if (r->passed) {
        evidence_print("max_abs_error", max_abs, "abs");
        evidence_print("max_error_fp16_ulp", max_ulp, "ulp");
        evidence_print("rms_error", sqrt(sq / (double)n), "abs");
        evidence_print("bound_used_pct", 100 * used, "%");
        evidence_print("gamma_bound", h->degree * 0x1.0p-11 / (1 - h->degree * 0x1.0p-11), "rel");
    }
    free(pref);
    free(pbound);
    free(pbits);
    free(want);
    free(bits);
    free(got);
    free(ref);
    free(bound);
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(__half) * ((const struct horner *)data)->n;
}

/* FP16 flops: one fused multiply-add (2 flops) per element per degree, the
 * same for both programs; METRIC_FP16 compares them with the FP16 peak,
 * which only a __half2 FMA (4 flops per lane) can reach. */
static double flops(const void *data)
{
    const struct horner *h = (const struct horner *)data;
    return 2.0 * h->degree * (double)h->n;
}

static void destroy(void *data)
{
    struct horner *h = (struct horner *)data;
    CUDA_CHECK(cudaFree(h->in));
    CUDA_CHECK(cudaFree(h->out));
    free(h->h_in);
    free(h);
}

const struct problem PROBLEM = {
    .number = 30,
    .slug = "half2-arithmetic",
    .title = "Two half-precision values per instruction: __half2 instead of __half",
    .section = "5.4.1",
    .size_help = "fp16 elements; each gets one polynomial of degree --degree",
    .default_size = 1L << 26,
    .small_size = 1000,
    .odd_size = 1000001,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"degree", "degree of the polynomial: fused multiply-adds per element", 256, 8,
               MAX_DEGREE, 0, KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    /* Every degree the knob admits (powers of two, 8 to 256), the default 256
     * aside: each is its own instance of the kernel (kernel_for), so each is
     * checked. */
    .test_options = {"--degree 8", "--degree 16", "--degree 32", "--degree 64", "--degree 128"},
    .timing = TIME_KERNEL,
    .metric = METRIC_FP16,
    /* The pipes an HFMA2 can go to: the FMA pipe (and its heavy half) for
     * HFMA2; for HFMA2.MMA the fp16 count and the shared (MMA, FP64) pipe's
     * busy cycles; issue active for what binds, and where it does not, the
     * warps resident and what they wait for (every stall reason, so that
     * they add up to a warp's cycles); the ADU pipe and the indexed constant
     * cache, which serve the coefficient loads (LDC). */
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fmaheavy.sum,"
                   "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,"
                   "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,"
                   "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active,"
                   "idc__request_cycles_active.avg.pct_of_peak_sustained_elapsed,"
                   "smsp__warp_issue_stalled_wait_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_not_selected_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_selected_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_drain_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_misc_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct,"
                   "dram__bytes_read.sum",
    /* Few multiply-adds per byte: where DRAM, not the FP16 units, is the limit. */
    .sweeps = {"--degree 32", "--degree 8"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
