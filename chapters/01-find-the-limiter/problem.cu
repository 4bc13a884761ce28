/* Chapter 01, the problem: y = 1 / (1 + exp(-(SCALE * x + SHIFT))) over n
 * floats. Checked element by element against a double-precision reference,
 * within a bound derived from the documented accuracy of every float step. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>

static size_t array_bytes(long n) { return (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

/* Input and downloaded output (floats), reference and bound (doubles). */
static size_t host_bytes(const struct config *c) { return 6 * array_bytes(c->size); }

static void *create(const struct config *c)
{
    struct logistic *p = (struct logistic *)calloc(1, sizeof *p);
    p->n = c->size;
    p->fast_exp = (int)c->knob[0];
    size_t bytes = array_bytes(p->n);
    p->h_x = (float *)host_alloc(bytes);
    rng_fill_f32(p->h_x, (size_t)p->n, X_LO, X_HI, c->seed, 0);
    p->x = (float *)device_alloc(bytes);
    p->y = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(p->x, p->h_x, bytes, cudaMemcpyHostToDevice));
    return p;
}

static void poison(void *data)
{
    struct logistic *p = (struct logistic *)data;
    poison_device(p->y, array_bytes(p->n));
}

/* The exact logistic of the program's own argument (to double precision) and
 * the largest error the float program may make on it. The argument is the
 * float z = fmaf(SCALE, x, SHIFT), rounded once on either side (fmaf is
 * correctly rounded in C, and FFMA is), so it carries no error into the
 * bound: what remains is the exponential, documented by the CUDA Math API
 * within 2 ulp of the correctly rounded result for expf and 2 + floor(|1.173 v|)
 * ulp for __expf (so within k + 1/2 ulp of the exact value: ulps_f32_bound),
 * then one rounding of 1 + e and one of the IEEE division, each half an ulp of
 * its result. Every term is measured in the ulp of the value it rounds, not as
 * a worst-case multiple of 2^-24, so the bound is as tight as the documented
 * accuracy allows: __expf, whose error grows with |v|, falls outside it where
 * e is large (z < -4; see the README) and the default check fails it. */
static void reference(float xf, int fast_exp, double *y_out, double *bound_out)
{
    float zf = fmaf(SCALE, xf, SHIFT);
    double e = exp(-(double)zf);
    double y = 1.0 / (1.0 + e);
    double k = fast_exp ? 2.0 + floor(1.173 * fabs((double)zf)) : 2.0;
    /* |E - e| <= de for the float exponential E. */
    double de = ulps_f32_bound(e, k);
    /* 1 / (1 + E) is off from y by at most de / ((1 + e - de)(1 + e)); the sum 1 + E
     * rounds by half an ulp at most at 1 + e + de, which moves the quotient by that
     * over (1 + e - de - that)^2; the division rounds by half an ulp of its result. */
    double lo = 1.0 + e - de;
    double hs = 0.5 * ulp_f32_at(1.0 + e + de);
    double dy = de / (lo * (1.0 + e)) + hs / ((lo - hs) * (lo - hs));
    double dq = 0.5 * ulp_f32_at(y + dy);
    *y_out = y;
    /* + the reference's own rounding (a few double ulps), with room to spare */
    *bound_out = dy + dq + y * 0x1.0p-44;
}

static int check(void *data, struct check_report *r)
{
    struct logistic *p = (struct logistic *)data;
    size_t n = (size_t)p->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    double *ref = (double *)host_alloc(n * sizeof(double));
    double *bound = (double *)host_alloc(n * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, p->y, array_bytes(p->n), cudaMemcpyDeviceToHost));
    /* Every element on its own: all cores, the same values as one. */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        reference(p->h_x[i], p->fast_exp, &ref[i], &bound[i]);
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, n, &tol, bound, r);
    free(got);
    free(ref);
    free(bound);
    return r->passed;
}

/* The fewest bytes the computation must move: read x once, write y once. */
static double bytes(const void *data)
{
    return 2.0 * array_bytes(((const struct logistic *)data)->n);
}

/* Five operations per element: multiply, add, exp, add, divide. */
static double flops(const void *data) { return 5.0 * ((const struct logistic *)data)->n; }

static void destroy(void *data)
{
    struct logistic *p = (struct logistic *)data;
    CUDA_CHECK(cudaFree(p->x));
    CUDA_CHECK(cudaFree(p->y));
    free(p->h_x);
    free(p);
}

const struct problem PROBLEM = {
    .number = 1,
    .slug = "find-the-limiter",
    .title = "Find the limiter: fuse memory-bound kernels, do not tune their instructions",
    .section = "5.1",
    .size_help = "elements n: y = logistic(1.7 x + 0.3) over n floats (256M: 1 GiB each way)",
    .default_size = 268435456,
    .small_size = 1000003,
    .odd_size = 77777,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"fast-exp", "1: the __expf intrinsic instead of expf in the kernels", 0, 0, 1}},
    .nknobs = 1,
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    .sweeps = {"--fast-exp 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
