/* Chapter 10, the problem: n table walks. Element i starts at in[i] and
 * takes `steps` dependent lookups in a table of TABLE floats that every
 * block holds in shared memory; the output is the sum of the values read.
 * Bit-exact check against the same walks on the CPU (float sums in the same
 * order, no fused operations). */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_BLOCK, KNOB_STEPS };

static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * (sizeof(uint32_t) + sizeof(float)) + TABLE_BYTES;
}

/* Pick, staged input, downloaded output (4 bytes each), each element's
 * reference and bound in the check (8 each); the pool's values, references
 * and bounds. */
static size_t host_bytes(const struct config *c)
{
    return (size_t)c->size * 28 + POOL_MAX * 20 + TABLE_BYTES;
}

static void *create(const struct config *c)
{
    struct walk *w = (struct walk *)calloc(1, sizeof *w);
    w->n = c->size;
    w->hand_block = (int)c->knob[KNOB_BLOCK];
    w->steps = (int)c->knob[KNOB_STEPS];
    w->h_table = (float *)host_alloc(TABLE_BYTES);
    rng_fill_f32(w->h_table, TABLE, -1.0f, 1.0f, c->seed, 0);
    /* The CPU walks cost `steps` lookups each: the starts are pooled
     * (common/pool.h) and each distinct start is walked once. */
    pool_init(&w->pool, w->n, POOL_MAX, c->seed, 2);
    w->values = (uint32_t *)host_alloc((size_t)w->pool.size * sizeof(uint32_t));
    rng_fill_i32((int32_t *)w->values, (size_t)w->pool.size, INT32_MIN, INT32_MAX, c->seed, 1);
    uint32_t *h_in = (uint32_t *)host_alloc((size_t)w->n * sizeof(uint32_t));
    pool_spread(&w->pool, h_in, w->values, sizeof(uint32_t));
    w->table = (float *)device_alloc(TABLE_BYTES);
    w->in = (uint32_t *)device_alloc((size_t)w->n * sizeof(uint32_t));
    w->out = (float *)device_alloc((size_t)w->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(w->table, w->h_table, TABLE_BYTES, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w->in, h_in, (size_t)w->n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    free(h_in);
    return w;
}

void report_occupancy(const void *kernel, int block)
{
    int blocks, threads_sm;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, TABLE_BYTES));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    /* The guide's conversion (5.2.3.1): blocks x warps per block = resident
     * warps; over the SM's maximum = occupancy. A block that is not a
     * multiple of 32 still takes whole warps, so threads are shown too. */
    int warps = blocks * ((block + 31) / 32), max_warps = threads_sm / 32;
    printf("occupancy: %d blocks of %d threads per SM = %d warps = %.1f%% of the %d warps an "
           "SM can hold (%d threads resident)\n",
           blocks, block, warps, 100.0 * warps / max_warps, max_warps, blocks * block);
    /* The README's occupancy lines read these, never typed figures. */
    evidence_print("block_threads", block, "threads");
    evidence_print("blocks_per_sm", blocks, "blocks");
    evidence_print("warps_per_sm", warps, "warps");
    evidence_print("occupancy_pct", 100.0 * warps / max_warps, "%");
}

static void poison(void *data)
{
    struct walk *w = (struct walk *)data;
    poison_device(w->out, (size_t)w->n * sizeof(float));
}

/* The walk from one start, as the kernels take it. The sum is a chain of
 * float adds in order, which the GPU does the same way, so the result is
 * exact to the bit; the bound is 0 (a tiny floor for check_pooled_f32). */
static void reference_of(const void *ctx, long v, double *ref, double *bound)
{
    const struct walk *w = (const struct walk *)ctx;
    uint32_t x = w->values[v];
    float sum = 0.0f;
    for (int s = 0; s < w->steps; s++) {
        float t = w->h_table[x % TABLE];
        sum += t;
        x = walk_next(x, t);
    }
    *ref = sum;
    *bound = 1e-300;
}

static int check(void *data, struct check_report *r)
{
    struct walk *w = (struct walk *)data;
    size_t n = (size_t)w->n;
    float *got = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, w->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    pool_check(&w->pool, got, 1, reference_of, w, r);
    free(got);
    return r->passed;
}

/* What DRAM must move: each start in, each sum out. Not the headline. */
static double bytes(const void *data)
{
    return 8.0 * (double)((const struct walk *)data)->n;
}

/* The headline counts shared-memory lookups, one per lane per step
 * (METRIC_SHARED_LOOKUPS: against 32 per clock per SM, the banks' rate). */
static double lookups(const void *data)
{
    const struct walk *w = (const struct walk *)data;
    return (double)w->n * w->steps;
}

static void destroy(void *data)
{
    struct walk *w = (struct walk *)data;
    CUDA_CHECK(cudaFree(w->table));
    CUDA_CHECK(cudaFree(w->in));
    CUDA_CHECK(cudaFree(w->out));
    free(w->h_table);
    free(w->values);
    pool_free(&w->pool);
    free(w);
}

const struct problem PROBLEM = {
    .number = 10,
    .slug = "occupancy-api",
    .title = "Occupancy API: let the runtime choose the block size",
    .section = "5.2.3.1",
    .size_help = "table walks, each of --steps dependent lookups in a 32 KB shared-memory table",
    .default_size = 1L << 26,
    .small_size = 100003,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 1L << 28,
    .knobs = {
        {"block", "naive only: the hard-coded threads per block", 32, 1, 1024},
        {"steps", "dependent lookups per element", 32, 1, 4096},
    },
    .nknobs = 2,
    .test_options = {"--block 64", "--block 1000", "--steps 1"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SHARED_LOOKUPS,
    .ncu_metrics = "launch__block_size,launch__occupancy_limit_blocks,"
                   "launch__occupancy_limit_shared_mem,sm__maximum_warps_per_active_cycle_pct,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,"
                   "smsp__inst_executed_op_shared_ld.sum,"
                   "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,"
                   "gpu__time_duration.sum",
    .sweeps = {"--block 256"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = lookups,
    .destroy = destroy,
};
