/* Chapter 07, the problem: copy n floats at a fixed, low occupancy. Bit-exact
 * check against the input; the work is one read and one write of the array.
 * Both programs move it as float4s (n / 4 of them, then the n % 4 floats left). */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_WARPS, KNOB_ILP };

static size_t array_bytes(long n) { return (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

/* Input (also the reference) and the downloaded output. */
static size_t host_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

static void *create(const struct config *c)
{
    long ilp = c->knob[KNOB_ILP]; /* a power of two: the knob's rule */
    /* A thread of the optimized copy holds ILP float4s, 4 * ILP registers. Kept to half
     * of an SM's 65536 registers (32 * warps threads x 4 * ILP <= 32768), the other half
     * is left for addresses and counters: --warps 32 with --ilp 16 would ask for the
     * whole register file in loaded values alone, and the launch would fail. */
    if (c->knob[KNOB_WARPS] * ilp > 256) {
        fprintf(stderr, "error: --warps %ld with --ilp %ld: warps x ilp must be at most 256 "
                "(the loaded values alone would fill more than half of an SM's registers)\n",
                c->knob[KNOB_WARPS], ilp);
        exit(EXIT_USAGE);
    }
    struct ilp_copy *t = (struct ilp_copy *)calloc(1, sizeof *t);
    t->n = c->size;
    t->warps = (int)c->knob[KNOB_WARPS];
    t->ilp = (int)ilp;
    CUDA_CHECK(cudaDeviceGetAttribute(&t->sms, cudaDevAttrMultiProcessorCount, 0));
    size_t bytes = array_bytes(t->n);
    t->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(t->h_in, (size_t)t->n, -1.0f, 1.0f, c->seed, 0);
    t->in = (float *)device_alloc(bytes);
    t->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, bytes, cudaMemcpyHostToDevice));
    printf("launch: %d blocks (one per SM) of %d threads = %d warps per SM = %.1f%% of the "
           "64 an SM can hold\n",
           t->sms, 32 * t->warps, t->warps, 100.0 * t->warps / 64);
    return t;
}

static void poison(void *data)
{
    struct ilp_copy *t = (struct ilp_copy *)data;
    poison_device(t->out, array_bytes(t->n));
}

static int check(void *data, struct check_report *r)
{
    struct ilp_copy *t = (struct ilp_copy *)data;
    float *got = (float *)host_alloc(array_bytes(t->n));
    CUDA_CHECK(cudaMemcpy(got, t->out, array_bytes(t->n), cudaMemcpyDeviceToHost));
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, t->h_in, NULL, (size_t)t->n, &tol, NULL, r);
    free(got);
    return r->passed;
}

/* A copy reads every element once and writes it once. */
static double bytes(const void *data)
{
    return 2.0 * array_bytes(((const struct ilp_copy *)data)->n);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct ilp_copy *t = (struct ilp_copy *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 7,
    .slug = "instruction-level-parallelism",
    .title = "Instruction-level parallelism: several loads in flight per thread at low occupancy",
    .section = "5.2.3",
    .size_help = "floats to copy (268435456: 1 GiB read and 1 GiB written)",
    .default_size = 268435456,
    .small_size = 1000003,
    .odd_size = 2999999,
    .min_size = 1,
    .max_size = 4294967296L,
    .knobs = {
        {"warps", "warps per SM: one block of 32*warps threads on each SM", 8, 1, 32},
        /* The optimized kernel is compiled for 1, 2, 4, 8 and 16 float4 loads in flight. */
        {"ilp", "16-byte loads in flight per thread, optimized only", 8, 1, 16, 0,
         KNOB_POWER_OF_TWO},
    },
    .nknobs = 2,
    .test_options = {"--ilp 1", "--warps 2", "--warps 4", "--warps 32", "--warps 16 --ilp 4",
                     "--warps 32 --ilp 2", "--warps 16 --ilp 16"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "dram__bytes_read.sum,dram__bytes_write.sum,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
                   "smsp__warps_issue_stalled_long_scoreboard.sum,smsp__inst_executed_op_global_ld.sum,"
                   "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,"
                   "sm__cycles_elapsed.sum,gpu__time_duration.sum",
    /* Loads in flight per SM, warps x ILP x 512 bytes (default 8 x 8 x 512 = 32 KB):
     * 8, 16 and 64 KB by ILP; 64 KB from twice the warps; 32 KB from half of them. */
    .sweeps = {"--ilp 2", "--ilp 4", "--ilp 16", "--warps 16", "--warps 4 --ilp 16"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
