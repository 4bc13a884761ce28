/* Chapter 32, the problem: out[i] = path_even(in[i]) for even i and
 * path_odd(in[i]) for odd i (problem.h), `iters` steps of four FMA
 * recurrences each. Both paths are linear in x, so the exact result is
 * x * G for a gain G of the path, and the rounding error is at most
 * |x| * E for a bound E of the path: the host computes both once, in
 * double, by running the recurrences on x = 1 (gain) and on the rounding
 * errors' worst case (bound). The check is then one pass over the output. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_ITERS };

static size_t device_bytes(const struct config *c) { return 2 * (size_t)c->size * sizeof(float); }

/* Input and downloaded output (4 bytes each), reference and bound (8 each). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 24; }

static void *create(const struct config *c)
{
    struct divergence *d = (struct divergence *)calloc(1, sizeof *d);
    d->n = c->size;
    d->iters = (int)c->knob[KNOB_ITERS];
    size_t bytes = (size_t)d->n * sizeof(float);
    d->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(d->h_in, (size_t)d->n, -1.0f, 1.0f, c->seed, 0);
    d->in = (float *)device_alloc(bytes);
    d->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(d->in, d->h_in, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void poison(void *data)
{
    struct divergence *d = (struct divergence *)data;
    poison_device(d->out, (size_t)d->n * sizeof(float));
}

/* One recurrence y <- m*y + s*x from y = x, on x = 1: its gain g (exact in
 * double to far better than float) and a bound e on the float error. Each
 * fmaf rounds once, by at most u of its result, and the error carried in y
 * is multiplied by |m| every step:
 *   e_k = |m| e_(k-1) + u (|g_k| + |m| e_(k-1)). */
struct chain {
    double g, e;
};

static struct chain recurrence(double m, double s, int iters)
{
    const double u = 0x1.0p-24;
    struct chain c = {1.0, 0.0};
    for (int k = 0; k < iters; k++) {
        c.g = m * c.g + s;
        c.e = fabs(m) * c.e + u * (fabs(c.g) + fabs(m) * c.e);
    }
    return c;
}

/* p + sign * q, rounded once: the errors add, plus u of the sum. */
static struct chain combine(struct chain p, struct chain q, double sign)
{
    const double u = 0x1.0p-24;
    struct chain r;
    r.g = p.g + sign * q.g;
    r.e = p.e + q.e + u * (fabs(r.g) + p.e + q.e);
    return r;
}

/* The paths of problem.h, on x = 1: the same constants, signs and order. */
static struct chain even_gain(int iters)
{
    struct chain a = recurrence(EVEN_M0, 1, iters), b = recurrence(EVEN_M1, 1, iters);
    struct chain c = recurrence(EVEN_M2, 1, iters), d = recurrence(EVEN_M3, 1, iters);
    return combine(combine(a, b, 1), combine(c, d, 1), 1);
}

static struct chain odd_gain(int iters)
{
    struct chain a = recurrence(ODD_M0, -1, iters), b = recurrence(ODD_M1, 1, iters);
    struct chain c = recurrence(ODD_M2, 1, iters), d = recurrence(ODD_M3, -1, iters);
    return combine(combine(a, b, -1), combine(c, d, -1), 1);
}

static int check(void *data, struct check_report *r)
{
    struct divergence *d = (struct divergence *)data;
    size_t n = (size_t)d->n;
    struct chain path[2] = {even_gain(d->iters), odd_gain(d->iters)};
    float *got = (float *)host_alloc(n * sizeof(float));
    double *ref = (double *)host_alloc(n * sizeof(double));
    double *bound = (double *)host_alloc(n * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, d->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        const struct chain *p = &path[i % 2];
        double x = d->h_in[i];
        ref[i] = x * p->g;
        /* The double gain's own error (about iters * 2^-53 relative) is
         * covered many times over by the last term. */
        bound[i] = fabs(x) * (p->e + 1e-12 * (1 + fabs(p->g)));
    }
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, n, &tol, bound, r);
    free(got);
    free(ref);
    free(bound);
    return r->passed;
}

static double bytes(const void *data)
{
    return 2.0 * sizeof(float) * ((const struct divergence *)data)->n;
}

/* The FMAs of the paths, 2 flops each: four a step. The three adds that
 * combine the recurrences are not counted. */
static double flops(const void *data)
{
    const struct divergence *d = (const struct divergence *)data;
    return 8.0 * d->iters * (double)d->n;
}

static void destroy(void *data)
{
    struct divergence *d = (struct divergence *)data;
    CUDA_CHECK(cudaFree(d->in));
    CUDA_CHECK(cudaFree(d->out));
    free(d->h_in);
    free(d);
}

const struct problem PROBLEM = {
    .number = 32,
    .slug = "warp-divergence",
    .title = "Warp divergence: a branch condition aligned with the warps",
    .section = "5.4.2",
    .size_help = "elements; each runs one of two heavy paths, chosen by its index's parity",
    .default_size = 1L << 25,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {{"iters", "steps of each path's four FMA recurrences (work per element)", 256, 1,
               4096}},
    .nknobs = 1,
    /* Each path's loop compiles (sm_90) to passes of 16, 8 and 4 steps, then single steps
     * (iters % 4). The sweeps' 4, 16, 64 and the default 256 reach only the 4- or 16-step
     * path, 1 only the single step; 3 repeats the single step, 7 runs a pass of 4 and three
     * single steps, 31 all four paths. */
    .test_options = {"--iters 1", "--iters 1024", "--iters 3", "--iters 7", "--iters 31"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GFLOPS,
    /* Divergence: branch targets taken by part of a warp, and the threads
     * active per executed instruction (32 when no warp diverges). */
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__thread_inst_executed_per_inst_executed.ratio,"
                   "smsp__sass_branch_targets_threads_divergent.sum,"
                   "smsp__sass_branch_targets_threads_uniform.sum,"
                   "smsp__sass_average_branch_targets_threads_uniform.pct,"
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    /* Less work per byte: where does memory hide the divergence? One step and 1024 are the
     * ends exercise 1 asks about. */
    .sweeps = {"--iters 1", "--iters 4", "--iters 16", "--iters 64", "--iters 1024"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
