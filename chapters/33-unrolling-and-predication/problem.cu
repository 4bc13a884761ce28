/* Chapter 33, the problem: a zero-padded 1D convolution with 2 R + 1 random
 * weights, out[i] = sum_k w[k] * in[i + k - R]. Checked against a double
 * reference within the rounding error of a chain of 2 R + 1 fmaf. */
#include "problem.h"
#include "ncu_stalls.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_RADIUS, KNOB_SELECT };

static size_t device_bytes(const struct config *c)
{
    return (2 * (size_t)c->size + 2 * MAX_RADIUS) * sizeof(float);
}

/* Input and downloaded output (4 bytes each), the reference (8). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * 16; }

static void *create(const struct config *c)
{
    struct conv *v = (struct conv *)calloc(1, sizeof *v);
    v->n = (int)c->size;
    v->radius = (int)c->knob[KNOB_RADIUS];
    v->select = (int)c->knob[KNOB_SELECT];
    size_t bytes = (size_t)v->n * sizeof(float);
    v->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(v->h_in, (size_t)v->n, -1.0f, 1.0f, c->seed, 0);
    rng_fill_f32(v->h_w, 2 * v->radius + 1, -0.5f, 0.5f, c->seed, 1);
    /* The weights past the last tap are NaN and uploaded too: a tap loop that runs one weight
     * too far reads NaN, not the zero a fresh __constant__ array holds, and fails the check. */
    for (int k = 2 * v->radius + 1; k < MAX_TAPS; k++)
        v->h_w[k] = nanf("");
    /* The padding is the kernels' to supply: a kernel that loads in[j] outside 0..n-1 (and,
     * say, multiplies it by a mask of 0) reads NaN from these guards, and the check sees it. */
    v->in_alloc = (float *)device_alloc(bytes + 2 * MAX_RADIUS * sizeof(float));
    CUDA_CHECK(cudaMemset(v->in_alloc, 0xFF, bytes + 2 * MAX_RADIUS * sizeof(float)));
    v->in = v->in_alloc + MAX_RADIUS;
    v->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(v->in, v->h_in, bytes, cudaMemcpyHostToDevice));
    return v;
}

static void poison(void *data)
{
    struct conv *v = (struct conv *)data;
    poison_device(v->out, (size_t)v->n * sizeof(float));
}

/* The kernels add at most m = 2 R + 1 products with fmaf from 0 (a tap
 * outside the array adds an exact 0): the error is at most
 * gamma_m * sum_k |w[k] in[j]|, gamma_m = m u / (1 - m u), u = 2^-24
 * (Higham, "Accuracy and Stability of Numerical Algorithms", sec. 3.1). The
 * inputs lie in [-1, 1), so sum_k |w[k]| bounds that sum everywhere: one
 * absolute tolerance, far below the |w| |in| that an output shifted by one
 * element, or a tap lost at an edge, would be off by. */
static int check(void *data, struct check_report *r)
{
    struct conv *v = (struct conv *)data;
    long n = v->n;
    int taps = 2 * v->radius + 1;
    float *got = (float *)host_alloc((size_t)n * sizeof(float));
    double *ref = (double *)host_alloc((size_t)n * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, v->out, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    double wsum = 0;
    for (long i = 0; i < n; i++)
        ref[i] = 0;
    /* Tap by tap, over the outputs whose input lies inside: one pass per
     * tap along contiguous arrays, which the host compiler vectorises. */
    for (int k = 0; k < taps; k++) {
        double wk = v->h_w[k];
        long shift = k - v->radius; /* out[i] takes in[i + shift] */
        long lo = shift < 0 ? -shift : 0, hi = shift > 0 ? n - shift : n;
        for (long i = lo; i < hi; i++)
            ref[i] += wk * v->h_in[i + shift];
        wsum += fabs(wk);
    }
    const double u = 0x1.0p-24, m = taps;
    /* The double reference's own error is covered by the last term. */
    struct tolerance tol = {CHECK_ABS_REL, 0, m * u / (1 - m * u) * wsum + 1e-12, 0, 0};
    check_f32(got, NULL, ref, (size_t)n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes: each input read once, each output written once. */
static double bytes(const void *data)
{
    return 2.0 * sizeof(float) * ((const struct conv *)data)->n;
}

/* The issue roof's work: the warp instructions the unrolled kernel needs per
 * 32 outputs, about 6.5 a tap (load, FFMA, the bounds compares and their
 * predicate, the address) and 14 around them (index, guard, store), counted
 * from its SASS and the first edition's profile (126 at 17 taps, 33 at 3).
 * Like bytes(), the fewest that must issue: both programs are credited with
 * it. Claims issue-count-* hold it to ncu's count. */
static double flops(const void *data)
{
    const struct conv *v = (const struct conv *)data;
    return (6.5 * (2 * v->radius + 1) + 14.0) * (double)v->n / 32.0;
}

static void destroy(void *data)
{
    struct conv *v = (struct conv *)data;
    CUDA_CHECK(cudaFree(v->in_alloc));
    CUDA_CHECK(cudaFree(v->out));
    free(v->h_in);
    free(v);
}

const struct problem PROBLEM = {
    .number = 33,
    .slug = "unrolling-and-predication",
    .title = "Unrolling and predication: the loop the compiler would have unrolled",
    .section = "5.4.2",
    .size_help = "elements of the signal (each output sums 2 radius + 1 taps)",
    .default_size = 1L << 26,
    .small_size = 1000,
    .odd_size = 100003,
    .min_size = 1,
    .max_size = 1L << 29,
    .knobs = {{"radius", "taps on each side of the centre: 2 radius + 1 taps (both programs)", 8,
               1, MAX_RADIUS, 0, KNOB_POWER_OF_TWO},
              {"select", "1: the zero padding as a select of the loaded value or 0, not an if "
               "around the load (both programs)", 0, 0, 1}},
    .nknobs = 2,
    .test_options = {"--radius 2", "--radius 4", "--select 1", "--radius 1 --select 1"},
    .timing = TIME_KERNEL,
    .metric = METRIC_ISSUE,
    /* Instructions and branches executed (the loop's overhead), the load
     * requests and the sectors they touch (a misaligned warp load spans two
     * 128-byte lines: the L1's work per load), DRAM; then what else may hold
     * a kernel below the issue roof: the L1's busiest unit, and the stalls
     * per issued instruction on the L1's queue (lg_throttle), on loads in
     * flight (long_scoreboard) and on fixed latencies (wait). */
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__sass_inst_executed_op_branch.sum,"
                   "smsp__sass_inst_executed_op_global_ld.sum,"
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
                   "smsp__thread_inst_executed_per_inst_executed.ratio,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                   "l1tex__throughput.avg.pct_of_peak_sustained_active,"
                   "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,"
                   /* every stall reason, as a share of a warp's active cycles, and
                    * achieved occupancy: the unrolled kernel's issue below the roof */
                   NCU_WARP_STATES,
    /* Three taps and 33; the padding as a select (the exercise's answer). */
    .sweeps = {"--radius 1", "--radius 16", "--select 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
