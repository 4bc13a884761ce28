/* Chapter 08, the problem: n independent signals, each filtered by its own
 * 64-stage cascade. Bit-exact check against the same float operations on the
 * CPU (fmaf is exactly rounded on both sides). */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_MIN_BLOCKS, KNOB_STEPS };

static size_t states_bytes(long n) { return (size_t)n * STAGES * sizeof(float); }
static size_t input_bytes(long n, long steps) { return (size_t)n * (size_t)steps * sizeof(float); }

/* Samples, coefficients and final states. */
static size_t device_bytes(const struct config *c)
{
    return input_bytes(c->size, c->knob[KNOB_STEPS]) + 2 * states_bytes(c->size);
}

/* The same, plus the reference. */
static size_t host_bytes(const struct config *c)
{
    return input_bytes(c->size, c->knob[KNOB_STEPS]) + 3 * states_bytes(c->size);
}

static void *create(const struct config *c)
{
    /* The samples are steps x n floats, in[t * n + i]. Kept under 2^31 (the
     * coefficients and states, STAGES x n <= 2^30, already are), so that no
     * index the kernels form can wrap, even an int one: a size and --steps
     * past it is refused here, before anything is allocated, rather than run
     * where no test reaches (the 2^31 check of tests/run.sh keys on
     * max_size). */
    if ((double)c->size * (double)c->knob[KNOB_STEPS] > 2147483648.0) {
        fprintf(stderr, "error: --size %ld with --steps %ld: signals x steps must be at most 2^31 "
                "(2147483648) samples\n", c->size, c->knob[KNOB_STEPS]);
        exit(EXIT_USAGE);
    }
    struct cascade *t = (struct cascade *)calloc(1, sizeof *t);
    t->n = c->size;
    t->steps = (int)c->knob[KNOB_STEPS];
    t->min_blocks = (int)c->knob[KNOB_MIN_BLOCKS];
    size_t in_b = input_bytes(t->n, t->steps), st_b = states_bytes(t->n);
    t->h_in = (float *)host_alloc(in_b);
    t->h_coef = (float *)host_alloc(st_b);
    rng_fill_f32(t->h_in, (size_t)t->n * t->steps, -1.0f, 1.0f, c->seed, 0);
    /* a in [0.5, 1): every stage is a stable low-pass with unit gain at DC. */
    rng_fill_f32(t->h_coef, (size_t)t->n * STAGES, 0.5f, 1.0f, c->seed, 1);
    t->in = (float *)device_alloc(in_b);
    t->coef = (float *)device_alloc(st_b);
    t->out = (float *)device_alloc(st_b);
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, in_b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(t->coef, t->h_coef, st_b, cudaMemcpyHostToDevice));
    return t;
}

void report_registers(const void *kernel)
{
    struct cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    int regs_sm, threads_sm, blocks;
    CUDA_CHECK(cudaDeviceGetAttribute(&regs_sm, cudaDevAttrMaxRegistersPerMultiprocessor, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, CASCADE_BLOCK, 0));
    /* Guide 5.2.3 on cc 7.0 and later: registers go to whole warps in units
     * of 256, out of the quarter of the register file that belongs to each
     * of the SM's 4 schedulers. */
    int per_warp = (fa.numRegs * 32 + 255) / 256 * 256;
    int warps_per_scheduler = regs_sm / 4 / per_warp;
    int warps_per_block = CASCADE_BLOCK / 32;
    printf("kernel: %d registers per thread, %zu bytes of local memory (spills) per thread\n",
           fa.numRegs, fa.localSizeBytes);
    printf("registers: %d x 32 threads = %d per warp; %d per scheduler / %d = %d warps per "
           "scheduler, %d per SM; in blocks of %d warps: %d blocks\n",
           fa.numRegs, per_warp, regs_sm / 4, per_warp, warps_per_scheduler,
           4 * warps_per_scheduler, warps_per_block, 4 * warps_per_scheduler / warps_per_block);
    printf("occupancy: %d blocks of %d threads per SM = %d warps = %.1f%% of the %d an SM can "
           "hold (cudaOccupancyMaxActiveBlocksPerMultiprocessor)\n",
           blocks, CASCADE_BLOCK, blocks * warps_per_block,
           100.0 * blocks * warps_per_block / (threads_sm / 32), threads_sm / 32);
}

static void poison(void *data)
{
    struct cascade *t = (struct cascade *)data;
    poison_device(t->out, states_bytes(t->n));
}

/* The cascade on the CPU, 16 signals at a time so that their states stay in
 * cache; the same float operations in the same order as the kernels. */
static void reference(const struct cascade *t, float *ref)
{
    const size_t GROUP = 16;
    size_t n = (size_t)t->n;
    /* Groups of cascades on all cores; each cascade is computed as on one. */
#pragma omp parallel for schedule(static)
    for (size_t i0 = 0; i0 < n; i0 += GROUP) {
        float a[16][STAGES], y[16][STAGES];
        size_t m = n - i0 < GROUP ? n - i0 : GROUP;
        for (size_t j = 0; j < m; j++)
            for (int k = 0; k < STAGES; k++) {
                a[j][k] = t->h_coef[k * n + i0 + j];
                y[j][k] = 0.0f;
            }
        for (int s = 0; s < t->steps; s++)
            for (size_t j = 0; j < m; j++) {
                float prev = t->h_in[(size_t)s * n + i0 + j];
                for (int k = 0; k < STAGES; k++) {
                    y[j][k] = fmaf(a[j][k], y[j][k] - prev, prev);
                    prev = y[j][k];
                }
            }
        for (size_t j = 0; j < m; j++)
            for (int k = 0; k < STAGES; k++)
                ref[k * n + i0 + j] = y[j][k];
    }
}

static int check(void *data, struct check_report *r)
{
    struct cascade *t = (struct cascade *)data;
    size_t bytes = states_bytes(t->n);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, t->out, bytes, cudaMemcpyDeviceToHost));
    reference(t, ref);
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, (size_t)t->n * STAGES, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* Each stage of each step: one subtraction and one fused multiply-add. */
static double flops(const void *data)
{
    const struct cascade *t = (const struct cascade *)data;
    return 3.0 * (double)t->n * t->steps * STAGES;
}

static double bytes(const void *data)
{
    const struct cascade *t = (const struct cascade *)data;
    return (double)input_bytes(t->n, t->steps) + 2.0 * states_bytes(t->n);
}

static void destroy(void *data)
{
    struct cascade *t = (struct cascade *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->coef));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t->h_coef);
    free(t);
}

const struct problem PROBLEM = {
    .number = 8,
    .slug = "register-pressure",
    .title = "Register pressure: trading registers per thread for resident warps",
    .section = "5.2.3",
    .size_help = "signals, one per thread, each through its own 64-stage filter cascade",
    .default_size = 131072,
    .small_size = 1001,
    .odd_size = 33333,
    .min_size = 1,
    .max_size = 16777216,
    .knobs = {
        {"min-blocks", "optimized only: blocks per SM promised in __launch_bounds__ (1-4)", 2, 1,
         4},
        {"steps", "samples per signal", 64, 1, 4096},
    },
    .nknobs = 2,
    .test_options = {"--min-blocks 1", "--min-blocks 3", "--min-blocks 4", "--steps 256"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GFLOPS,
    .ncu_metrics = "launch__registers_per_thread,launch__occupancy_limit_registers,"
                   "sm__maximum_warps_per_active_cycle_pct,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
                   "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,"
                   "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,gpu__time_duration.sum",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
