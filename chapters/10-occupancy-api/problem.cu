/* Chapter 10, the problem: n random lookups into a large table. Bit-exact
 * check against the same lookups on the CPU. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_BLOCK, KNOB_SMEM };

static long table_entries(long n)
{
    return n > TABLE_MAX / TABLE_PER_LOOKUP ? TABLE_MAX : n * TABLE_PER_LOOKUP;
}

static size_t lookups_bytes(long n) { return (size_t)n * (sizeof(int) + sizeof(float)); }

static size_t device_bytes(const struct config *c)
{
    return (size_t)table_entries(c->size) * sizeof(float) + lookups_bytes(c->size);
}

/* Table, indices, the downloaded output and the reference. */
static size_t host_bytes(const struct config *c)
{
    return device_bytes(c) + (size_t)c->size * sizeof(float);
}

static void *create(const struct config *c)
{
    struct gather *g = (struct gather *)calloc(1, sizeof *g);
    g->n = c->size;
    g->entries = table_entries(g->n);
    g->hand_block = (int)c->knob[KNOB_BLOCK];
    g->smem = (size_t)c->knob[KNOB_SMEM];
    size_t table_b = (size_t)g->entries * sizeof(float);
    g->h_table = (float *)host_alloc(table_b);
    g->h_idx = (int *)host_alloc((size_t)g->n * sizeof(int));
    rng_fill_f32(g->h_table, (size_t)g->entries, -1.0f, 1.0f, c->seed, 0);
    rng_fill_i32(g->h_idx, (size_t)g->n, 0, (int)(g->entries - 1), c->seed, 1);
    g->table = (float *)device_alloc(table_b);
    g->idx = (int *)device_alloc((size_t)g->n * sizeof(int));
    g->out = (float *)device_alloc((size_t)g->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(g->table, g->h_table, table_b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->idx, g->h_idx, (size_t)g->n * sizeof(int), cudaMemcpyHostToDevice));
    return g;
}

void print_occupancy(const void *kernel, int block, size_t smem)
{
    int blocks, threads_sm;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, smem));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    /* The guide's conversion (5.2.3.1): blocks x warps per block = resident
     * warps; over the SM's maximum = occupancy. A block that is not a
     * multiple of 32 still takes whole warps, so threads are shown too. */
    int warps = blocks * ((block + 31) / 32), max_warps = threads_sm / 32;
    printf("occupancy: %d blocks of %d threads per SM = %d warps = %.1f%% of the %d warps an "
           "SM can hold (%d threads resident)\n",
           blocks, block, warps, 100.0 * warps / max_warps, max_warps, blocks * block);
}

static void poison(void *data)
{
    struct gather *g = (struct gather *)data;
    poison_device(g->out, (size_t)g->n * sizeof(float));
}

static int check(void *data, struct check_report *r)
{
    struct gather *g = (struct gather *)data;
    size_t n = (size_t)g->n, bytes = n * sizeof(float);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, g->out, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        ref[i] = g->h_table[g->h_idx[i]];
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* What the memory system must move per lookup: the 4-byte index, the whole
 * 32-byte sector that holds the table entry (a random read cannot fetch
 * less, though only 4 of its bytes are used), and the 4-byte result. Not the
 * headline: a random sector costs DRAM far more than 32 streamed bytes, so
 * bytes over the copy roof would say little. */
static double bytes(const void *data)
{
    return (4.0 + 32.0 + 4.0) * (double)((const struct gather *)data)->n;
}

/* The headline counts lookups (METRIC_LOOKUPS), against the rate at which
 * this GPU serves random 4-byte reads from DRAM, each in its own sector. */
static double lookups(const void *data) { return (double)((const struct gather *)data)->n; }

static void destroy(void *data)
{
    struct gather *g = (struct gather *)data;
    CUDA_CHECK(cudaFree(g->table));
    CUDA_CHECK(cudaFree(g->idx));
    CUDA_CHECK(cudaFree(g->out));
    free(g->h_table);
    free(g->h_idx);
    free(g);
}

const struct problem PROBLEM = {
    .number = 10,
    .slug = "occupancy-api",
    .title = "Occupancy API: let the runtime choose the block size",
    .section = "5.2.3.1",
    .size_help = "random lookups into a table of 32 entries per lookup, at most 2 GiB",
    .default_size = 16777216,
    .small_size = 100003,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 268435456,
    .knobs = {
        {"block", "naive only: the hard-coded threads per block", 32, 1, 1024},
        {"smem", "dynamic shared memory per block in bytes, both programs (the kernel "
                 "does not use it)", 0, 0, 49152},
    },
    .nknobs = 2,
    .test_options = {"--block 64", "--smem 16384"},
    .timing = TIME_KERNEL,
    .metric = METRIC_LOOKUPS,
    .ncu_metrics = "launch__block_size,launch__occupancy_limit_blocks,"
                   "launch__occupancy_limit_shared_mem,sm__maximum_warps_per_active_cycle_pct,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__sectors_read.sum,"
                   "gpu__time_duration.sum",
    .sweeps = {"--block 16", "--block 8", "--smem 49152"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = lookups,
    .destroy = destroy,
};
