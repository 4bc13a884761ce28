/* Chapter 34, the problem: sort every group of 32 keys of an array of n
 * unsigned ints, each group in its own place (the last group may be short).
 * The check is exact: every output key is compared with the host's sort. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_WARPS };

static long groups_of(long n) { return (n + GROUP - 1) / GROUP; }

/* Keys in and out. */
static size_t device_bytes(const struct config *c)
{
    return 2 * (size_t)c->size * sizeof(unsigned) + 256;
}

static size_t host_bytes(const struct config *c) { return 3 * (size_t)c->size * sizeof(unsigned); }

unsigned resident_grid(const void *kernel, long warps, size_t bytes_a_warp)
{
    int device, sms, per_sm;
    size_t smem = (size_t)warps * bytes_a_warp;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)warps * 32, smem));
    return (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
}

static int less_u32(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

static void *create(const struct config *c)
{
    struct group_sort *r = (struct group_sort *)calloc(1, sizeof *r);
    r->n = c->size;
    r->groups = groups_of(r->n);
    r->warps = c->knob[KNOB_WARPS];
    /* Keys 0 .. 2^32 - 2: never 0xFFFFFFFF, which is both the poison and
     * the padding of a short group, so neither can pass for a key. */
    unsigned *keys = (unsigned *)host_alloc((size_t)r->n * sizeof(unsigned));
    rng_fill_i32((int32_t *)keys, (size_t)r->n, INT32_MIN, INT32_MAX - 1, c->seed, 34);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < r->n; i++)
        keys[i] += 0x80000000u;
    unsigned *in = (unsigned *)device_alloc((size_t)r->n * sizeof(unsigned));
    CUDA_CHECK(cudaMemcpy(in, keys, (size_t)r->n * sizeof(unsigned), cudaMemcpyHostToDevice));
    r->in = in;
    r->out = (unsigned *)device_alloc((size_t)r->n * sizeof(unsigned));
#pragma omp parallel for schedule(static)
    for (long g = 0; g < r->groups; g++) {
        long a = g * GROUP, b = a + GROUP < r->n ? a + GROUP : r->n;
        qsort(keys + a, (size_t)(b - a), sizeof(unsigned), less_u32);
    }
    r->want = keys;
    return r;
}

static void poison(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    poison_device(r->out, (size_t)r->n * sizeof(unsigned));
}

static int check(void *data, struct check_report *rep)
{
    struct group_sort *r = (struct group_sort *)data;
    size_t bytes = (size_t)r->n * sizeof(unsigned);
    unsigned *got = (unsigned *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, r->out, bytes, cudaMemcpyDeviceToHost));
    printf("groups: %ld of %d keys (the last %ld long); group 0 sorted: %u .. %u on the GPU, "
           "%u .. %u on the host\n", r->groups, GROUP, r->n - (r->groups - 1) * GROUP, got[0],
           got[r->n < GROUP ? r->n - 1 : GROUP - 1], r->want[0], r->want[r->n < GROUP ? r->n - 1 : GROUP - 1]);
    /* The grid loops over the groups, grid * warps of them a pass: the odd
     * size needs more than one pass, so a wrong stride shows. */
    if (r->grid)
        printf("group loop: %ld passes of %u blocks x %ld warps\n",
               (r->groups + (long)r->grid * r->warps - 1) / ((long)r->grid * r->warps), r->grid, r->warps);
    check_bytes(got, r->want, (size_t)r->n, sizeof(unsigned), rep);
    free(got);
    return rep->passed;
}

/* Every key is read once and written once. */
static double bytes(const void *data) { return 2.0 * sizeof(unsigned) * ((const struct group_sort *)data)->n; }

/* The issue roof's work: the warp instructions a group needs, counted in the
 * SASS of either program's loop (469 in both, a barrier slot being a BAR in
 * one and a NOP in the other): 14 a split (the place, the store, the load and
 * the two barrier slots) times 32 splits, and 21 around them (the group's
 * index, its load and store, the loop). Like bytes(), the same for both
 * programs; the claim same-instructions holds it to ncu's count. */
static double flops(const void *data)
{
    return (double)groups_of(((const struct group_sort *)data)->n) * (14.0 * KEY_BITS + 21.0);
}

static void destroy(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    CUDA_CHECK(cudaFree((void *)r->in));
    CUDA_CHECK(cudaFree(r->out));
    free(r->want);
    free(r);
}

const struct problem PROBLEM = {
    .number = 34,
    .slug = "synchronization",
    .title = "Synchronize only the threads that share data: warp-wide splits with __syncwarp",
    .section = "5.4.3",
    .size_help = "keys (unsigned ints), sorted in groups of 32 (64M: 256 MiB in, 256 MiB out)",
    .default_size = 1L << 26,
    .small_size = 100003,
    /* 21,121 groups, the last one key long: 2.5 passes of the group loop's
     * grid * warps groups, 132 SMs x 2 blocks x 32 warps = 8,448 on the H100
     * and H200 (more than two on up to 165 SMs); at --warps 2 to 16 (64
     * warps an SM) the same, at --warps 1 (32 one-warp blocks an SM) five
     * and a bit. */
    .odd_size = 675841,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"warps", "warps a block (a power of two): each sorts its own groups, so the "
               "block's size is the number of warps a __syncthreads() holds together", 32, 1, 32, 0,
               KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--warps 2", "--warps 4", "--warps 16"},
    .timing = TIME_KERNEL,
    .metric = METRIC_ISSUE,
    /* Instructions executed and issue activity say both programs do the same
     * work and how often each issues; barrier stalls say where the naive
     * program's warps wait; shared loads and stores that both exchange the
     * same values; DRAM bytes that memory is a small part of the time. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "smsp__sass_inst_executed_op_shared_st.sum,"
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_membar_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
    /* Smaller blocks: fewer warps a barrier holds together, more blocks an SM. */
    .sweeps = {"--warps 8", "--warps 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
