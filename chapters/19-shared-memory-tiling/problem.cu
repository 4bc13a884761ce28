/* Chapter 19, the problem: C = A B for n x n float matrices (FP32 inputs,
 * FP32 accumulation), checked in relative L2 norm against a double-precision
 * CPU reference, with a tolerance derived from the rounding error bound of a
 * float dot product (see check). */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Up to this size the check computes every element of C on the CPU (n^3
 * double multiply-adds, under a second); above it, the elements where SIDE
 * random rows cross SIDE random columns (4096 elements), each a full double
 * dot product. A full reference at 4096 would be 6.9e10 multiply-adds,
 * minutes of CPU time. */
#define FULL_CHECK_MAX 1024
#define SIDE 64

static size_t matrix_bytes(long n) { return (size_t)n * (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 3 * matrix_bytes(c->size); }

/* A, B, the downloaded C; at most a matrix of checked floats and one of doubles. */
static size_t host_bytes(const struct config *c) { return 6 * matrix_bytes(c->size); }

static void *create(const struct config *c)
{
    struct gemm *g = (struct gemm *)calloc(1, sizeof *g);
    g->n = c->size;
    size_t bytes = matrix_bytes(g->n), count = (size_t)g->n * g->n;
    g->h_a = (float *)host_alloc(bytes);
    g->h_b = (float *)host_alloc(bytes);
    rng_fill_f32(g->h_a, count, -1.0f, 1.0f, c->seed, 0);
    rng_fill_f32(g->h_b, count, -1.0f, 1.0f, c->seed, 1);
    g->a = (float *)device_alloc(bytes);
    g->b = (float *)device_alloc(bytes);
    g->c = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(g->a, g->h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->b, g->h_b, bytes, cudaMemcpyHostToDevice));
    return g;
}

static void poison(void *data)
{
    struct gemm *g = (struct gemm *)data;
    poison_device(g->c, matrix_bytes(g->n));
}

/* Element (i, j) of A B in double, and sum_k |a_ik b_kj| for its bound;
 * bcol is column j of B, copied so that the walk down it is contiguous. */
static void reference(const struct gemm *g, long i, const float *bcol, double *dot, double *absdot)
{
    long n = g->n;
    const float *arow = g->h_a + i * n;
    double s = 0, t = 0;
    for (long k = 0; k < n; k++) {
        double p = (double)arow[k] * (double)bcol[k];
        s += p;
        t += fabs(p);
    }
    *dot = s;
    *absdot = t;
}

/* The tolerance. A float dot product of length n, summed in any order (with
 * or without fused multiply-adds), is within gamma_n * sum_k |a_k b_k| of the
 * exact value, gamma_n = n u / (1 - n u), u = 2^-24 (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 3.1). So the error matrix E obeys
 * ||E||_2 <= gamma_n || |A||B| ||_2, and the relative L2 error against the
 * exact product is at most gamma_n || |A||B| ||_2 / ||A B||_2, computed here
 * from the same data. It holds for every summation order a correct program
 * may choose, so it is also loose: a correct GEMM lands far below it, while a
 * lost term, a wrong index or an unwritten element lands far above. */
static int check(void *data, struct check_report *r)
{
    struct gemm *g = (struct gemm *)data;
    long n = g->n, side = n <= FULL_CHECK_MAX ? n : SIDE;
    size_t m = (size_t)side * side;
    long *rows = (long *)host_alloc(2 * side * sizeof(long)), *cols = rows + side;
    uint64_t state = 0x5A17ULL ^ (uint64_t)n; /* where the samples fall */
    for (long s = 0; s < side; s++) {
        rows[s] = side == n ? s : (long)(rng_next(&state) % (uint64_t)n);
        cols[s] = side == n ? s : (long)(rng_next(&state) % (uint64_t)n);
    }
    float *c = (float *)host_alloc(matrix_bytes(n)), *bcol = (float *)host_alloc(n * sizeof(float));
    float *got = (float *)host_alloc(m * sizeof(float));
    double *ref = (double *)host_alloc(m * sizeof(double));
    CUDA_CHECK(cudaMemcpy(c, g->c, matrix_bytes(n), cudaMemcpyDeviceToHost));
    double abs2 = 0, ref2 = 0;
    for (long y = 0; y < side; y++) {
        long j = cols[y];
        for (long k = 0; k < n; k++)
            bcol[k] = g->h_b[k * n + j];
        for (long x = 0; x < side; x++) {
            size_t e = (size_t)x * side + y;
            double absdot;
            reference(g, rows[x], bcol, &ref[e], &absdot);
            got[e] = c[rows[x] * n + j];
            abs2 += absdot * absdot;
            ref2 += ref[e] * ref[e];
        }
    }
    double u = 0x1.0p-24, gamma = n * u / (1 - n * u);
    struct tolerance tol = {CHECK_REL_L2, 0, 0, 0, gamma * sqrt(abs2 / ref2)};
    check_f32(got, NULL, ref, m, &tol, NULL, r);
    printf("check: %zu %s, relative L2 tolerance %.3g (gamma_n || |A||B| || / || AB ||)\n", m,
           side == n ? "elements of C, all of them" : "elements of C where random rows and columns cross",
           tol.rel_l2);
    free(rows);
    free(c);
    free(bcol);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes: read A and B once, write C once. */
static double bytes(const void *data) { return 3.0 * matrix_bytes(((const struct gemm *)data)->n); }

/* A multiply-add is two flops. */
static double flops(const void *data)
{
    double n = (double)((const struct gemm *)data)->n;
    return 2.0 * n * n * n;
}

static void destroy(void *data)
{
    struct gemm *g = (struct gemm *)data;
    CUDA_CHECK(cudaFree(g->a));
    CUDA_CHECK(cudaFree(g->b));
    CUDA_CHECK(cudaFree(g->c));
    free(g->h_a);
    free(g->h_b);
    free(g);
}

const struct problem PROBLEM = {
    .number = 19,
    .slug = "shared-memory-tiling",
    .title = "Shared-memory tiling: SGEMM",
    .section = "5.3.2",
    .size_help = "matrix side n: C = A B with n x n floats (4096: 64 MiB each)",
    .default_size = 4096,
    .small_size = 200,
    .odd_size = 333,
    .min_size = 1,
    .max_size = 16384,
    .nknobs = 0,
    .timing = TIME_KERNEL,
    .metric = METRIC_GFLOPS,
    /* Global loads: requests (one per warp-wide load instruction) and the L1
     * hit rate that shows how much reuse the naive kernel already gets from
     * the L1; sectors the L1 asks of the L2; shared-memory instructions and
     * wavefronts of the tiled kernel; the FP32 instructions, the same work. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sector_hit_rate.pct,"
                   "lts__t_sectors_srcunit_tex_op_read.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
                   "smsp__inst_executed.sum",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
