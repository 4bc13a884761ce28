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

/* The exact result (to double precision) and the largest error the float
 * program may make for input x. Each float operation rounds to nearest, a
 * relative error of at most u = 2^-24; ulp(v) <= 2^-23 |v| for a normal v;
 * the CUDA Math API documents expf within 2 ulp and __expf(v) within
 * 2 + floor(|1.173 v|) ulp. Second-order terms are bounded, not dropped. */
static void reference(float xf, int fast_exp, double *y_out, double *bound_out)
{
    const double u = 0x1.0p-24;
    double ax = (double)SCALE * xf; /* exact: a 24-bit by 24-bit product */
    double z = ax + (double)SHIFT;
    double e = exp(-z);
    double y = 1.0 / (1.0 + e);
    /* z in float: one rounding if the compiler fuses the multiply-add, two
     * if it does not; this covers both. */
    double dz = u * (1.0 + u) * (fabs(ax) + fabs(z));
    /* exp of the rounded argument is off by a factor of at most
     * e^dz <= 1 + dz + dz^2; then exp adds its own k ulp. */
    double k = fast_exp ? 2.0 + floor(1.173 * (fabs(z) + dz)) : 2.0;
    double rel_e = k * 0x1.0p-23 + dz * (1.0 + dz) * (1.0 + k * 0x1.0p-23);
    /* A relative error r in e moves 1 + e by r * e / (1 + e) = r * e * y;
     * 1 + e and the IEEE division round once each: relative error of y at
     * most (h + 2u) / (1 - h - u), and h + u < 2^-16 here. */
    double h = rel_e * e * y;
    double rel_y = (h + 2.0 * u) * (1.0 + 0x1.0p-15);
    *y_out = y;
    *bound_out = y * (rel_y + 0x1.0p-48); /* + the reference's own rounding */
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
