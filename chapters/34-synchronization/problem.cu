/* Chapter 34, the problem: the sum of --size 32-bit ints. The result is one
 * int, the sum modulo 2^32 (two's complement wrap-around, computed with
 * unsigned adds); the inputs are nonzero and average zero, so the exact sum,
 * which the host computes in 64 bits, fits and the wrap never happens in
 * practice. The check is exact: one missing or doubled element changes it. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_ITEMS };

/* The input repeats a pool of seeded random values, so that generating a GiB
 * and its exact sum costs a million random numbers, not 256 million. The
 * pool's length is prime, so the repeats do not line up with the loads. */
static const long POOL = 1048573;

static size_t input_bytes(long n) { return (size_t)n * sizeof(int); }

static size_t device_bytes(const struct config *c)
{
    return input_bytes(c->size) + input_bytes(POOL) + 256;
}

static size_t host_bytes(const struct config *c) { (void)c; return input_bytes(POOL); }

__global__ void fill_kernel(int *in, const int *pool, long n, long pool_n)
{
    long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        in[i] = pool[i % pool_n];
}

static void *create(const struct config *c)
{
    struct reduction *r = (struct reduction *)calloc(1, sizeof *r);
    r->n = c->size;
    r->items = (int)c->knob[KNOB_ITEMS];
    /* Values in -1000..-1 and 1..1000: never zero, so a dropped element
     * always shows. */
    long pool_n = r->n < POOL ? r->n : POOL;
    int *pool = (int *)host_alloc(input_bytes(pool_n));
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 34;
    long long pool_sum = 0, head_sum = 0; /* all of the pool; its first n % pool_n */
    long head = r->n % pool_n;
    for (long i = 0; i < pool_n; i++) {
        int v = (int)(rng_next(&state) % 2000) - 1000;
        pool[i] = v >= 0 ? v + 1 : v;
        pool_sum += pool[i];
        if (i < head)
            head_sum += pool[i];
    }
    r->exact = (r->n / pool_n) * pool_sum + head_sum;
    int *d_pool = (int *)device_alloc(input_bytes(pool_n));
    CUDA_CHECK(cudaMemcpy(d_pool, pool, input_bytes(pool_n), cudaMemcpyHostToDevice));
    r->in = (int *)device_alloc(input_bytes(r->n));
    r->out = (int *)device_alloc(sizeof(int));
    fill_kernel<<<1024, 256>>>(r->in, d_pool, r->n, pool_n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_pool));
    free(pool);
    return r;
}

static void poison(void *data)
{
    struct reduction *r = (struct reduction *)data;
    poison_device(r->out, sizeof(int));
}

static int check(void *data, struct check_report *rep)
{
    struct reduction *r = (struct reduction *)data;
    int got;
    CUDA_CHECK(cudaMemcpy(&got, r->out, sizeof got, cudaMemcpyDeviceToHost));
    /* The exact sum, wrapped to 32 bits as the GPU's unsigned adds wrap. */
    int want = (int)(unsigned)(unsigned long long)r->exact;
    printf("sum: %d on the GPU, %lld exact (64-bit, on the host)\n", got, r->exact);
    check_bytes(&got, &want, 1, sizeof got, rep);
    return rep->passed;
}

/* A reduction reads every int once and writes almost nothing. */
static double bytes(const void *data) { return (double)input_bytes(((const struct reduction *)data)->n); }

static double flops(const void *data) { return (double)((const struct reduction *)data)->n; }

static void destroy(void *data)
{
    struct reduction *r = (struct reduction *)data;
    CUDA_CHECK(cudaFree(r->in));
    CUDA_CHECK(cudaFree(r->out));
    free(r);
}

const struct problem PROBLEM = {
    .number = 34,
    .slug = "synchronization",
    .title = "Fewer synchronization points: a block reduction with one barrier",
    .section = "5.4.3",
    .size_help = "ints to add (256M: 1 GiB)",
    .default_size = 256L << 20,
    .small_size = 100003,
    .odd_size = 1000001,
    .min_size = 1,
    .max_size = 4L << 30,
    .knobs = {{"items", "ints each thread adds before its block combines them (the grid is "
               "size / (256 * items) blocks), all programs but the library", 256, 4, 65536, 0,
               KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--items 4096"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Shared-memory instructions and barrier stalls carry the in-block
     * reduction; instructions executed show its weight beside the loads. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "smsp__sass_inst_executed_op_shared_st.sum,"
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    /* Fewer ints per thread, more blocks, and a block reduction per 256 * items
     * ints: where does the barrier count start to show? */
    .sweeps = {"--items 4", "--items 16", "--items 64"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
