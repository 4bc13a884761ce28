/* Chapter 22, the problem: for every element, the sum of LOOKUPS entries of a
 * small table, starting at the element's key. The keys are drawn so that the
 * 32 elements of each warp hold exactly --spread distinct keys: 1 is the
 * warp-uniform case that constant memory is built for, 32 the divergent case.
 * Bit-exact check: the kernels add in the same order as the CPU, in float. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_SPREAD, KNOB_ENTRIES, KNOB_TABLE };

static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * (sizeof(int) + sizeof(float)) + MAX_ENTRIES * sizeof(float);
}

/* Keys, the downloaded output and the reference. */
static size_t host_bytes(const struct config *c)
{
    return (size_t)c->size * (sizeof(int) + 2 * sizeof(float)) + 2 * MAX_ENTRIES * sizeof(float);
}

/* The keys of one warp's 32 elements: `spread` distinct values in
 * [0, entries), drawn at random; lane l takes value l % spread. One pass over
 * the keys, each warp seeded on its own. */
static void fill_keys(int *keys, long n, int spread, int entries, unsigned long long seed)
{
    for (long w = 0; w < n; w += 32) {
        uint64_t state = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)w;
        int drawn[32];
        for (int k = 0; k < spread; k++) {
            int v, again;
            do { /* redraw a value this warp already holds */
                v = (int)(rng_next(&state) % (uint64_t)entries);
                again = 0;
                for (int m = 0; m < k; m++)
                    again |= drawn[m] == v;
            } while (again);
            drawn[k] = v;
        }
        for (long i = w; i < w + 32 && i < n; i++)
            keys[i] = drawn[(i - w) % spread];
    }
}

static void *create(const struct config *c)
{
    struct lookup *t = (struct lookup *)calloc(1, sizeof *t);
    t->n = c->size;
    t->spread = (int)c->knob[KNOB_SPREAD];
    t->entries = (int)c->knob[KNOB_ENTRIES];
    t->from_global = (int)c->knob[KNOB_TABLE];
    int sms;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    long blocks = (t->n + BLOCK - 1) / BLOCK;
    t->grid = (unsigned)(blocks < (long)sms * BLOCKS_PER_SM ? blocks : (long)sms * BLOCKS_PER_SM);
    size_t table_b = t->entries * sizeof(float), keys_b = (size_t)t->n * sizeof(int);
    t->h_table = (float *)host_alloc(table_b);
    t->h_keys = (int *)host_alloc(keys_b);
    rng_fill_f32(t->h_table, (size_t)t->entries, -1.0f, 1.0f, c->seed, 0);
    fill_keys(t->h_keys, t->n, t->spread, t->entries, c->seed);
    t->table = (float *)device_alloc(table_b);
    t->keys = (int *)device_alloc(keys_b);
    t->out = (float *)device_alloc((size_t)t->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(t->table, t->h_table, table_b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(t->keys, t->h_keys, keys_b, cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct lookup *t = (struct lookup *)data;
    poison_device(t->out, (size_t)t->n * sizeof(float));
}

static int check(void *data, struct check_report *r)
{
    struct lookup *t = (struct lookup *)data;
    size_t n = (size_t)t->n;
    /* The result depends on the key alone: one sum per possible key, in the
     * kernels' order and precision (float, j = 0, 1, ...), then a pass. */
    float *per_key = (float *)host_alloc(t->entries * sizeof(float));
    unsigned mask = (unsigned)t->entries - 1;
    for (int k = 0; k < t->entries; k++) {
        float sum = 0.0f;
        for (int j = 0; j < LOOKUPS; j++)
            sum += t->h_table[(k + j * STEP) & mask];
        per_key[k] = sum;
    }
    float *got = (float *)host_alloc(n * sizeof(float)), *ref = (float *)host_alloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, t->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        ref[i] = per_key[t->h_keys[i]];
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
    free(per_key);
    free(got);
    free(ref);
    return r->passed;
}

/* DRAM traffic: a 4-byte key in and a 4-byte sum out per element (the table
 * is at most 32 KB). Not what bounds these kernels: the lookups are. */
static double bytes(const void *data)
{
    return 8.0 * (double)((const struct lookup *)data)->n;
}

/* The metric: table lookups, one per thread per entry read (LOOKUPS per
 * element), against the shared-memory roof of 32 per clock per SM (32 banks),
 * which bounds the constant cache too: it serves at most one address, 32
 * lanes of a broadcast, per request. */
static double flops(const void *data)
{
    return (double)LOOKUPS * (double)((const struct lookup *)data)->n;
}

static void destroy(void *data)
{
    struct lookup *t = (struct lookup *)data;
    CUDA_CHECK(cudaFree(t->table));
    CUDA_CHECK(cudaFree(t->keys));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_table);
    free(t->h_keys);
    free(t);
}

const struct problem PROBLEM = {
    .number = 22,
    .slug = "constant-memory",
    .title = "Constant memory: one address per warp, or a table in shared memory",
    .section = "5.3.2",
    .size_help = "elements; each sums 32 entries of the table (16M: 512M lookups)",
    .default_size = 16777216,
    .small_size = 30011,  /* 1M lookups: short under racecheck */
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 268435456,
    .knobs = {
        {"spread", "distinct keys (table entries read at once) among the 32 threads of a "
                   "warp: 1 is warp-uniform, 32 fully divergent", 32, 1, 32, 0, KNOB_POWER_OF_TWO},
        {"entries", "table entries (floats), both programs", 256, MIN_ENTRIES, MAX_ENTRIES, 0,
         KNOB_POWER_OF_TWO},
        {"table", "optimized only: 0 reads the table from shared memory, 1 the same reads "
                  "straight from its global copy (through the L1)", 0, 0, 1},
    },
    .nknobs = 3,
    /* --entries 1024: four passes of each block's copy loop (the default's 256
     * entries take one); --entries 64: a table smaller than a block. */
    .test_options = {"--spread 16", "--spread 32 --entries 1024", "--entries 64",
                     "--table 1 --spread 8"},
    .timing = TIME_KERNEL,
    .metric = METRIC_SHARED_LOOKUPS,
    /* Instructions and where warps wait; the indexed constant cache's hit rate
     * and its replays (one per separate request after the first of an LDC: the
     * guide's serialization, counted); shared-memory wavefronts per load
     * instruction (1: one pass; more: bank conflicts); for the global-memory
     * reads of --table 1, the L1's sectors per request and its hit rate. */
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "idc__request_hit_rate.pct,"
                   "sm__idc_divergent_instruction_replays.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                   "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sector_hit_rate.pct,"
                   "dram__bytes_read.sum",
    /* The spread, from warp-uniform to divergent; the uniform case across table
     * sizes, 256 B to 16 KB, where the constant cache bends (the evidence that
     * the 1 KB default fits); the divergent case at 4, 16 and 32 KB, where
     * misses add to the serialization; and the optimized program reading
     * global memory instead of shared, uniform and divergent. */
    .sweeps = {"--spread 1", "--spread 8",
               "--spread 1 --entries 64", "--spread 1 --entries 128",
               "--spread 1 --entries 512", "--spread 1 --entries 1024",
               "--spread 1 --entries 4096",
               "--entries 1024", "--entries 4096", "--entries 8192",
               "--spread 1 --table 1", "--table 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
