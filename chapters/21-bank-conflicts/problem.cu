/* Chapter 21, the problem: transpose an n x n float matrix through shared
 * memory. Bit-exact check against a CPU transpose; the work is one read and
 * one write of the matrix. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdlib.h>

static size_t matrix_bytes(long n) { return (size_t)n * (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 2 * matrix_bytes(c->size); }

/* Input, the downloaded output and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * matrix_bytes(c->size); }

static void *create(const struct config *c)
{
    struct banks *t = (struct banks *)calloc(1, sizeof *t);
    t->n = c->size;
    t->rows = (int)c->knob[0]; /* a power of two: the kernels are compiled for those */
    size_t bytes = matrix_bytes(t->n);
    t->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(t->h_in, (size_t)t->n * t->n, -1.0f, 1.0f, c->seed, 0);
    t->in = (float *)device_alloc(bytes);
    t->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, bytes, cudaMemcpyHostToDevice));
    return t;
}

static void poison(void *data)
{
    struct banks *t = (struct banks *)data;
    poison_device(t->out, matrix_bytes(t->n));
}

static int check(void *data, struct check_report *r)
{
    struct banks *t = (struct banks *)data;
    size_t n = (size_t)t->n, bytes = matrix_bytes(t->n);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, t->out, bytes, cudaMemcpyDeviceToHost));
    /* Blocked so that the reference itself stays cache-friendly on the CPU. */
    for (size_t r0 = 0; r0 < n; r0 += 64)
        for (size_t c0 = 0; c0 < n; c0 += 64)
            for (size_t r1 = r0; r1 < r0 + 64 && r1 < n; r1++)
                for (size_t c1 = c0; c1 < c0 + 64 && c1 < n; c1++)
                    ref[c1 * n + r1] = t->h_in[r1 * n + c1];
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n * n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes a transpose must move: read every element, write it once. */
static double bytes(const void *data)
{
    return 2.0 * matrix_bytes(((const struct banks *)data)->n);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct banks *t = (struct banks *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 21,
    .slug = "bank-conflicts",
    .title = "Shared memory bank conflicts: one padding column",
    .section = "5.3.2",
    .size_help = "matrix side n: the matrix is n x n floats (16384: 1 GiB each way)",
    .default_size = 16384,
    .small_size = 1000,
    .odd_size = 1531,
    .min_size = 1,
    .max_size = 32768,
    .knobs = {{"rows", "threads per tile column, naive and optimized: each thread moves "
               "32 / rows elements", BLOCK_ROWS, 1, TILE, 0, KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--rows 4", "--rows 32"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Shared loads: bank conflicts, and wavefronts per load instruction
     * (1 when the 32 threads of a warp hit 32 banks, 32 when they all hit
     * one). Shared stores the same, as the control: both kernels write the
     * tile along its rows. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
                   "smsp__sass_inst_executed_op_shared_st.sum",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
