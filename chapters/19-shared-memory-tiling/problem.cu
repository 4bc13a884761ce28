/* Chapter 19, the problem: C = A B for n x n float matrices (FP32 inputs,
 * FP32 accumulation), checked element by element against a double-precision
 * CPU reference, each held to a rounding error bound of a float dot product
 * (see check). */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to this size the check computes every element of C on the CPU (n^3
 * double multiply-adds, under a second); above it, every element of one band
 * of TILE whole rows and one band of TILE whole columns: all the blocks of a
 * block row and of a block column, 2 TILE n^2 double multiply-adds (a second
 * or two at 4096, on all cores). A full reference at 4096 would be 6.9e10,
 * minutes of CPU time. */
#define FULL_CHECK_MAX 1024

/* The probabilistic bound's lambda (see check): at 4 a float dot product on
 * these inputs uses at most a twentieth of the bound, and TF32 inputs at
 * n = 4096 overrun it by up to 1.7 times. */
#define LAMBDA 4.0

static size_t matrix_bytes(long n) { return (size_t)n * (size_t)n * sizeof(float); }

static size_t device_bytes(const struct config *c) { return 3 * matrix_bytes(c->size); }

/* A, B, the downloaded C; at most a matrix of checked floats and one of doubles. */
static size_t host_bytes(const struct config *c) { return 6 * matrix_bytes(c->size); }

/* Round to TF32 (10 mantissa bits, to nearest, ties away, as cvt.rna.tf32)
 * and upload. */
static void upload_tf32(float *dst, const float *src, size_t count)
{
    uint32_t *t = (uint32_t *)host_alloc(count * sizeof(uint32_t));
    memcpy(t, src, count * sizeof(uint32_t));
    for (size_t i = 0; i < count; i++)
        t[i] = (t[i] + 0x1000u) & ~0x1fffu;
    CUDA_CHECK(cudaMemcpy(dst, t, count * sizeof(uint32_t), cudaMemcpyHostToDevice));
    free(t);
}

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
    const char *plant = getenv("GUIDE_PLANT");
    if (plant && strcmp(plant, "tf32") == 0) {
        /* The planted fault: the GPU multiplies TF32 inputs (what cuBLAS does
         * when TF32 tensor cores are allowed) while the reference keeps FP32. */
        upload_tf32(g->a, g->h_a, count);
        upload_tf32(g->b, g->h_b, count);
    } else {
        CUDA_CHECK(cudaMemcpy(g->a, g->h_a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(g->b, g->h_b, bytes, cudaMemcpyHostToDevice));
    }
    return g;
}

static void poison(void *data)
{
    struct gemm *g = (struct gemm *)data;
    poison_device(g->c, matrix_bytes(g->n));
}

/* Row i of A B in double into dot[0, n), and sum_k |a_ik b_kj| into
 * absdot[0, n) for its bound; walks B row by row, so every read is contiguous. */
static void reference_row(const struct gemm *g, long i, double *dot, double *absdot)
{
    long n = g->n;
    const float *arow = g->h_a + i * n;
    for (long j = 0; j < n; j++)
        dot[j] = absdot[j] = 0;
    for (long k = 0; k < n; k++) {
        double a = arow[k];
        const float *brow = g->h_b + k * n;
        for (long j = 0; j < n; j++) {
            double p = a * (double)brow[j];
            dot[j] += p;
            absdot[j] += fabs(p);
        }
    }
}

/* The same for element (i, j), with column j of B given contiguously in bcol. */
static void reference_one(const struct gemm *g, long i, const float *bcol, double *dot,
                          double *absdot)
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

/* The tolerance, per element. A float dot product of length n, summed in any
 * order (with or without fused multiply-adds), is within gamma_n sum_k |a_k
 * b_k| of the exact value, gamma_n = n u / (1 - n u), u = 2^-24 (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 3.1). That bound is
 * rigorous but, at n = 4096, too loose to see TF32 inputs: their rounding
 * (u = 2^-11, random in sign) lands near a tenth of it. Rounding errors of
 * random sign add like a random walk, so Higham and Mary's probabilistic
 * bound (SIAM J. Sci. Comput. 41(5), 2019, theorem 3.1) replaces n u by about
 * lambda sqrt(n) u. Each element is held to the smaller of the two:
 *   |c_ij - (AB)_ij| <= min(gamma_n, LAMBDA sqrt(n) u) sum_k |a_ik b_kj|.
 * On these inputs a float dot product summed in order (the largest errors)
 * uses at most 0.05 of it at n = 200 and 0.02 at 4096, while TF32 inputs put
 * 704 of 131072 elements over it at 4096, the worst at 1.7 times (a CPU
 * simulation over one band of 32 rows; at 333 nearly every element is over). */
static int check(void *data, struct check_report *r)
{
    struct gemm *g = (struct gemm *)data;
    long n = g->n, full = n <= FULL_CHECK_MAX;
    uint64_t state = 0x5A17ULL ^ (uint64_t)n; /* where the row band falls */
    long r0 = full ? 0 : (long)(rng_next(&state) % (uint64_t)((n + TILE - 1) / TILE)) * TILE;
    long w = full ? n : (n - r0 < TILE ? n - r0 : TILE);  /* rows of the row band */
    long c0 = full ? n : (n - 1) / TILE * TILE, wc = n - c0; /* the last block column */
    size_t m = (size_t)w * n + (size_t)(n - w) * wc;
    float *c = (float *)host_alloc(matrix_bytes(n)), *got = (float *)host_alloc(m * sizeof(float));
    double *ref = (double *)host_alloc(m * sizeof(double)), *bound = (double *)host_alloc(m * sizeof(double));
    float *bcols = (float *)host_alloc((wc ? wc : 1) * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(c, g->c, matrix_bytes(n), cudaMemcpyDeviceToHost));
    /* The row band (every row when full): whole rows of C. */
    #pragma omp parallel for schedule(dynamic)
    for (long x = 0; x < w; x++) {
        reference_row(g, r0 + x, ref + x * n, bound + x * n);
        memcpy(got + x * n, c + (r0 + x) * n, n * sizeof(float));
    }
    /* The column band: its rows outside the row band, against columns of B
     * copied so that each walk down one is contiguous. */
    for (long y = 0; y < wc; y++)
        for (long k = 0; k < n; k++)
            bcols[y * n + k] = g->h_b[k * n + c0 + y];
    #pragma omp parallel for schedule(dynamic)
    for (long q = 0; q < n - w; q++) {
        long i = q < r0 ? q : q + w;
        for (long y = 0; y < wc; y++) {
            size_t e = (size_t)w * n + (size_t)q * wc + y;
            reference_one(g, i, bcols + y * n, &ref[e], &bound[e]);
            got[e] = c[i * n + c0 + y];
        }
    }
    double u = 0x1.0p-24, gamma = n * u / (1 - n * u), prob = LAMBDA * sqrt((double)n) * u;
    double factor = gamma < prob ? gamma : prob;
    for (size_t e = 0; e < m; e++)
        bound[e] *= factor;
    const char *plant = getenv("GUIDE_PLANT");
    if (plant && strcmp(plant, "one-wrong") == 0) {
        /* The planted fault: one element (the largest checked) 50% off. */
        size_t big = 0;
        for (size_t e = 1; e < m; e++)
            if (fabs(ref[e]) > fabs(ref[big]))
                big = e;
        got[big] *= 1.5f;
    }
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, m, &tol, bound, r);
    double used = 0;
    for (size_t e = 0; e < m; e++) {
        double f = fabs((double)got[e] - ref[e]) / bound[e];
        if (!(f <= used))
            used = f;
    }
    if (full)
        printf("check: all %zu elements of C", m);
    else
        printf("check: %zu elements of C, every one of rows %ld-%ld and of columns %ld-%ld", m, r0,
               r0 + w - 1, c0, n - 1);
    printf(", each within %.3g sum_k |a_ik b_kj| (%s); the worst used %.3g of its bound\n", factor,
           factor == gamma ? "gamma_n" : "lambda sqrt(n) u, lambda 4", used);
    free(c);
    free(got);
    free(ref);
    free(bound);
    free(bcols);
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
    .plants = {"tf32", "one-wrong"},
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
