/* Chapter 24, the problem: a histogram of BINS bins over n items, where item
 * i's bin is gathered from a table: bin = table[window][key[i]], the window
 * being that of the item's chunk of CHUNK items (chunk % WINDOWS). The table
 * is 128 windows of --window KB (at most 8 MB: in the L2); a chunk's gathers
 * reuse one window, so each resident block needs one window in the L1. Each block
 * counts into its own histogram in shared memory and writes it out; the
 * check adds the blocks' histograms and compares them with the CPU's. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_CARVEOUT, KNOB_WINDOW };

static size_t table_bytes(long window_kb) { return (size_t)WINDOWS * window_kb * 1024; }

static size_t hist_bytes(int sms)
{
    return (size_t)MAX_BLOCKS_PER_SM * sms * BINS * sizeof(unsigned);
}

/* Sized for GPUs of up to 160 SMs before the GPU is asked; create() uses its real count. */
static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * sizeof(int) + table_bytes(c->knob[KNOB_WINDOW]) + hist_bytes(160);
}

static size_t host_bytes(const struct config *c)
{
    return (size_t)c->size * sizeof(int) + table_bytes(c->knob[KNOB_WINDOW]) + hist_bytes(160);
}

static void *create(const struct config *c)
{
    struct gather *g = (struct gather *)calloc(1, sizeof *g);
    g->n = c->size;
    g->carveout = (int)c->knob[KNOB_CARVEOUT];
    g->window = (int)c->knob[KNOB_WINDOW] * ENTRIES_PER_KB;
    size_t table_b = table_bytes(c->knob[KNOB_WINDOW]);
    CUDA_CHECK(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, 0));
    size_t keys_b = (size_t)g->n * sizeof(int);
    g->h_keys = (int *)host_alloc(keys_b);
    g->h_table = (unsigned *)host_alloc(table_b);
    rng_fill_i32(g->h_keys, (size_t)g->n, 0, g->window - 1, c->seed, 0);
    rng_fill_i32((int32_t *)g->h_table, (size_t)WINDOWS * g->window, 0, BINS - 1, c->seed, 1);
    g->keys = (int *)device_alloc(keys_b);
    g->table = (unsigned *)device_alloc(table_b);
    g->hist = (unsigned *)device_alloc(hist_bytes(g->sms));
    g->next = (unsigned *)device_alloc(sizeof *g->next);
    CUDA_CHECK(cudaMemcpy(g->keys, g->h_keys, keys_b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->table, g->h_table, table_b, cudaMemcpyHostToDevice));
    return g;
}

void settle_grid(struct gather *g, const void *kernel, int carveout)
{
    int blocks;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, BLOCK, 0));
    if (blocks < 1)
        blocks = 1;
    long chunks = (g->n + CHUNK - 1) / CHUNK; /* no more blocks than there is work for */
    g->grid = (unsigned)((long)blocks * g->sms < chunks ? (long)blocks * g->sms : chunks);
    printf("carveout: preferred %d%s; %d blocks of %d threads per SM (%d warps), each with "
           "%zu bytes of shared memory\n", carveout, carveout < 0 ? " (the driver's default)" : "%",
           blocks, BLOCK, blocks * BLOCK / 32, BINS * sizeof(unsigned) + sizeof(long));
    evidence_print("carveout_pct", carveout, "%");
    evidence_print("blocks_per_sm", blocks, "blocks");
}

static void poison(void *data)
{
    struct gather *g = (struct gather *)data;
    poison_device(g->hist, hist_bytes(g->sms));
}

static int check(void *data, struct check_report *r)
{
    struct gather *g = (struct gather *)data;
    size_t blocks_b = (size_t)g->grid * BINS * sizeof(unsigned);
    unsigned *got = (unsigned *)host_alloc(blocks_b);
    CUDA_CHECK(cudaMemcpy(got, g->hist, blocks_b, cudaMemcpyDeviceToHost));
    unsigned sum[BINS], ref[BINS];
    memset(sum, 0, sizeof sum);
    memset(ref, 0, sizeof ref);
    for (size_t b = 0; b < g->grid; b++)
        for (int k = 0; k < BINS; k++)
            sum[k] += got[b * BINS + k]; /* a block left poisoned adds 0xFFFFFFFF */
    for (long i = 0; i < g->n; i++)
        ref[g->h_table[(size_t)(i / CHUNK % WINDOWS) * g->window + g->h_keys[i]]]++;
    check_bytes(sum, ref, BINS, sizeof(unsigned), r);
    free(got);
    return r->passed;
}

/* Per item: the 4-byte key streamed from DRAM, and a 4-byte gather that the
 * L1 or the L2 serves. Not the headline. */
static double bytes(const void *data) { return 8.0 * (double)((const struct gather *)data)->n; }

/* The headline counts gathers (METRIC_L1_GATHER), against random 4-byte reads
 * from a table resident in the L1: the rate a kernel whose gathers all hit
 * could reach at most. */
static double lookups(const void *data) { return (double)((const struct gather *)data)->n; }

static void destroy(void *data)
{
    struct gather *g = (struct gather *)data;
    CUDA_CHECK(cudaFree(g->keys));
    CUDA_CHECK(cudaFree(g->table));
    CUDA_CHECK(cudaFree(g->hist));
    CUDA_CHECK(cudaFree(g->next));
    free(g->h_keys);
    free(g->h_table);
    free(g);
}

const struct problem PROBLEM = {
    .number = 24,
    .slug = "l1-shared-carveout",
    .title = "The L1 and shared-memory carveout",
    .section = "5.3.2",
    .size_help = "items: each gathers its bin from one --window KB window of a table of 128",
    .default_size = 1L << 26,
    .small_size = 100003,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 1L << 29,
    .knobs = {{"carveout", "optimized only: preferred shared-memory carveout, % of the SM's "
                           "largest shared memory", 40, 0, 100},
              {"window", "KB of the table a chunk gathers from, both programs: the working set "
                         "is one window per resident block", 24, 4, MAX_WINDOW_KB, 4}},
    .nknobs = 2,
    .test_options = {"--carveout 0", "--carveout 50", "--window 4 --carveout 100",
                     "--window 64"},
    .timing = TIME_KERNEL,
    .metric = METRIC_L1_GATHER,
    .ncu_metrics = "gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum",
    /* The window across both L1 capacities (the driver's default leaves about
     * 92 KB of L1 for 8 blocks, the optimized carveout 156 KB for 5): both
     * fit, one fits, neither fits. And the carveout itself at the default
     * window: less shared memory (3 blocks, a larger L1), and all of it (the
     * smallest L1). */
    .sweeps = {"--window 4", "--window 8", "--window 12", "--window 16", "--window 32",
               "--window 48", "--carveout 25", "--carveout 100"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = lookups,
    .destroy = destroy,
};
