/* Chapter 11, the problem: --steps Jacobi sweeps of an n x n grid of floats
 * (the heat equation's simplest solver). After each step the host needs the
 * size of the change, || new - old ||_2, to decide whether to go on, as a
 * solver checks for convergence. The grid starts on the host and the final
 * grid and every step's norm must end there.
 *
 * The check: the final grid bit for bit against a CPU run of the same steps
 * (the stencil's float arithmetic is written in one order on both sides), and
 * each norm within the rounding of a long double-precision sum. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KNOB_STEPS };

/* Blocks of the device norm's first pass: a fixed count, so the partial sums,
 * and with them the order of the additions, do not depend on the GPU. */
#define NORM_BLOCKS 1024
#define NORM_THREADS 256

// [stencil]
__global__ void stencil_kernel(float *out, const float *in, long n)
{
    long x = blockIdx.x * (long)TILE_X + threadIdx.x;
    long y = blockIdx.y * (long)TILE_Y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    long i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
        out[i] = in[i];
    else
        out[i] = 0.25f * ((in[i - n] + in[i + n]) + (in[i - 1] + in[i + 1]));
}
// [stencil]

void stencil_step(float *out, const float *in, long n)
{
    dim3 block(TILE_X, TILE_Y);
    dim3 grid((unsigned)((n + TILE_X - 1) / TILE_X), (unsigned)((n + TILE_Y - 1) / TILE_Y));
    stencil_kernel<<<grid, block>>>(out, in, n);
    CHECK_LAUNCH();
}

// [norm]
/* Pass 1: each block sums (next - prev)^2 over its share, in double. */
__global__ void norm_parts_kernel(double *parts, const float *next, const float *prev,
                                  long cells)
{
    __shared__ double sum[NORM_THREADS];
    double t = 0;
    for (long i = blockIdx.x * (long)NORM_THREADS + threadIdx.x; i < cells;
         i += (long)NORM_BLOCKS * NORM_THREADS) {
        double d = (double)next[i] - (double)prev[i];
        t += d * d;
    }
    sum[threadIdx.x] = t;
    __syncthreads();
    for (int half = NORM_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            sum[threadIdx.x] += sum[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        parts[blockIdx.x] = sum[0];
}

/* Pass 2: one block adds the partial sums and takes the root. A single block
 * uses a sliver of the GPU, and that is fine: the guide's advice is to run
 * such code on the device anyway rather than copy its input back. */
__global__ void norm_total_kernel(double *norm, const double *parts)
{
    __shared__ double sum[NORM_THREADS];
    double t = 0;
    for (int i = threadIdx.x; i < NORM_BLOCKS; i += NORM_THREADS)
        t += parts[i];
    sum[threadIdx.x] = t;
    __syncthreads();
    for (int half = NORM_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            sum[threadIdx.x] += sum[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *norm = sqrt(sum[0]);
}
// [norm]

void device_norm(struct stencil *s, const float *next, const float *prev)
{
    long cells = s->n * s->n;
    norm_parts_kernel<<<NORM_BLOCKS, NORM_THREADS>>>(s->d_parts, next, prev, cells);
    CHECK_LAUNCH();
    norm_total_kernel<<<1, NORM_THREADS>>>(s->d_norm, s->d_parts);
    CHECK_LAUNCH();
}

// [host-norm]
/* One pass over both grids on every core of the host (OpenMP): each thread
 * sums its share with four running sums, so its additions do not wait for
 * each other and the loop runs at the speed of the host's memory, not of one
 * core. The order of the additions depends on the thread count; the check's
 * bound allows any order (all terms are positive). */
double host_norm_threads(const float *next, const float *prev, size_t cells, int threads)
{
    double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    long quads = (long)(cells / 4);
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : t0, t1, t2, t3)
    for (long q = 0; q < quads; q++) {
        size_t i = 4 * (size_t)q;
        double d0 = (double)next[i] - (double)prev[i];
        double d1 = (double)next[i + 1] - (double)prev[i + 1];
        double d2 = (double)next[i + 2] - (double)prev[i + 2];
        double d3 = (double)next[i + 3] - (double)prev[i + 3];
        t0 += d0 * d0;
        t1 += d1 * d1;
        t2 += d2 * d2;
        t3 += d3 * d3;
    }
    for (size_t i = 4 * (size_t)quads; i < cells; i++) {
        double d = (double)next[i] - (double)prev[i];
        t0 += d * d;
    }
    return sqrt((t0 + t1) + (t2 + t3));
}

double host_norm(const float *next, const float *prev, size_t cells)
{
    return host_norm_threads(next, prev, cells, omp_get_max_threads());
}
// [host-norm]

static size_t bytes_of(const struct config *c)
{
    return (size_t)c->size * (size_t)c->size * sizeof(float);
}

/* The two grids, the norm's partial sums and the norm. */
static size_t device_bytes(const struct config *c)
{
    return 2 * bytes_of(c) + NORM_BLOCKS * sizeof(double) + sizeof(double);
}

/* The input and two work grids (pinned), and the check's two reference grids. */
static size_t host_bytes(const struct config *c) { return 5 * bytes_of(c); }

static void *create(const struct config *c)
{
    struct stencil *s = (struct stencil *)calloc(1, sizeof *s);
    s->n = c->size;
    s->steps = (int)c->knob[KNOB_STEPS];
    s->stop_norm = 0; /* an exact fixed point: a 3 x 3 grid reaches it at the second step */
    size_t bytes = grid_bytes(s), cells = (size_t)s->n * (size_t)s->n;
    s->h_grid = (float *)pinned_alloc(bytes);
    s->h_work[0] = (float *)pinned_alloc(bytes);
    s->h_work[1] = (float *)pinned_alloc(bytes);
    s->norm = (double *)host_alloc((size_t)s->steps * sizeof(double));
    /* Values in [1, 2): every grid the steps make stays in [1, 2], so the
     * difference of two cells is exact in float and its square in double. */
    rng_fill_f32(s->h_grid, cells, 1.0f, 2.0f, c->seed, 11);
    s->d_a = (float *)device_alloc(bytes);
    s->d_b = (float *)device_alloc(bytes);
    s->d_parts = (double *)device_alloc(NORM_BLOCKS * sizeof(double));
    s->d_norm = (double *)device_alloc(sizeof(double));
    return s;
}

static void poison(void *data)
{
    struct stencil *s = (struct stencil *)data;
    poison_device(s->d_a, grid_bytes(s));
    poison_device(s->d_b, grid_bytes(s));
    poison_device(s->d_norm, sizeof(double));
    memset(s->h_work[0], 0xFF, grid_bytes(s));
    memset(s->h_work[1], 0xFF, grid_bytes(s));
    memset(s->norm, 0xFF, (size_t)s->steps * sizeof(double));
    s->result = NULL;
    s->steps_done = -1;
}

/* The CPU's Jacobi step, the kernel's arithmetic in the kernel's order. */
static void cpu_step(float *out, const float *in, long n)
{
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++) {
            long i = y * n + x;
            if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
                out[i] = in[i];
            else
                out[i] = 0.25f * ((in[i - n] + in[i + n]) + (in[i - 1] + in[i + 1]));
        }
}

static int check(void *data, struct check_report *r)
{
    struct stencil *s = (struct stencil *)data;
    size_t cells = (size_t)s->n * (size_t)s->n;
    /* The reference runs the programs' loop, stopping rule included: a grid
     * with one interior cell (n = 3) reaches its fixed point at the second
     * step, and the host must stop there, not run the steps it asked for. */
    float *a = (float *)host_alloc(grid_bytes(s)), *b = (float *)host_alloc(grid_bytes(s));
    double *ref_norm = (double *)host_alloc((size_t)s->steps * sizeof(double));
    memcpy(a, s->h_grid, grid_bytes(s));
    int ref_steps = 0;
    for (int k = 0; k < s->steps; k++) {
        cpu_step(b, a, s->n);
        ref_norm[k] = host_norm(b, a, cells);
        ref_steps = k + 1;
        float *t = a;
        a = b;
        b = t;
        if (ref_norm[k] <= s->stop_norm)
            break;
    }
    if (s->steps_done != ref_steps || !s->result) {
        printf("check: the program ran %d steps, the reference %d of %d\n", s->steps_done,
               ref_steps, s->steps);
        memset(r, 0, sizeof *r);
        r->n = cells;
        r->bad = 1;
        free(a);
        free(b);
        free(ref_norm);
        return r->passed = 0;
    }
    /* Each squared difference is exact, so the two norms differ only by how
     * the sums were ordered: each is within (cells - 1) units of 2^-53 of the
     * exact sum (all terms are positive), and the root adds half a unit. */
    const double bound = (2.0 * cells + 2) * 0x1p-53;
    int norms_ok = 1;
    double worst = 0;
    for (int k = 0; k < ref_steps; k++) {
        /* A zero norm (the fixed point) is exact on both sides. */
        double rel = ref_norm[k] > 0 ? fabs(s->norm[k] - ref_norm[k]) / ref_norm[k]
                                     : (s->norm[k] == 0 ? 0 : INFINITY);
        if (!(rel <= bound)) {
            if (norms_ok)
                printf("check: step %d norm %.17g, reference %.17g\n", k, s->norm[k], ref_norm[k]);
            norms_ok = 0;
        }
        if (rel > worst || rel != rel)
            worst = rel;
    }
    printf("check: %d step norms, worst relative difference %.3g (bound %.3g): %s\n", ref_steps,
           worst, bound, norms_ok ? "pass" : "FAIL");
    check_bytes(s->result, a, cells, sizeof(float), r);
    r->passed = r->passed && norms_ok;
    free(a);
    free(b);
    free(ref_norm);
    return r->passed;
}

/* The fewest bytes the work must move across the link: the grid up once and
 * down once, compared with the pinned link's host-to-device rate (the
 * download runs at the same rate within a few percent: report_steps). */
static double bytes(const void *data)
{
    return 2.0 * (double)grid_bytes((const struct stencil *)data);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct stencil *s = (struct stencil *)data;
    CUDA_CHECK(cudaFree(s->d_a));
    CUDA_CHECK(cudaFree(s->d_b));
    CUDA_CHECK(cudaFree(s->d_parts));
    CUDA_CHECK(cudaFree(s->d_norm));
    CUDA_CHECK(cudaFreeHost(s->h_grid));
    CUDA_CHECK(cudaFreeHost(s->h_work[0]));
    CUDA_CHECK(cudaFreeHost(s->h_work[1]));
    free(s->norm);
    free(s);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { TRIES = 3 };

/* Best of three of one part of a step, by the host clock around the part and
 * a device synchronization. */
#define BEST_MS(best, part)                                                                 \
    do {                                                                                    \
        best = 1e30;                                                                        \
        for (int try_ = 0; try_ < TRIES; try_++) {                                          \
            CUDA_CHECK(cudaDeviceSynchronize());                                            \
            double t0_ = now_ms();                                                          \
            part;                                                                           \
            CUDA_CHECK(cudaDeviceSynchronize());                                            \
            double t_ = now_ms() - t0_;                                                     \
            best = t_ < best ? t_ : best;                                                   \
        }                                                                                   \
    } while (0)

void report_steps(struct stencil *s)
{
    size_t bytes = grid_bytes(s), cells = (size_t)s->n * (size_t)s->n;
    double up, down, step, hnorm, hnorm1, dnorm, scalar, h = 0;
    BEST_MS(up, CUDA_CHECK(cudaMemcpy(s->d_a, s->h_grid, bytes, cudaMemcpyHostToDevice)));
    BEST_MS(step, stencil_step(s->d_b, s->d_a, s->n));
    BEST_MS(down, CUDA_CHECK(cudaMemcpy(s->h_work[0], s->d_b, bytes, cudaMemcpyDeviceToHost)));
    BEST_MS(hnorm, h = host_norm(s->h_work[0], s->h_grid, cells));
    BEST_MS(hnorm1, h = host_norm_threads(s->h_work[0], s->h_grid, cells, 1));
    BEST_MS(dnorm, device_norm(s, s->d_b, s->d_a));
    BEST_MS(scalar, CUDA_CHECK(cudaMemcpy(&h, s->d_norm, sizeof h, cudaMemcpyDeviceToHost)));
    printf("step parts: each alone, best of %d: upload %.3f ms, stencil %.3f ms, download %.3f ms, "
           "host norm %.3f ms on %d threads (%.3f ms on one), device norm %.3f ms, norm to the "
           "host %.4f ms\n",
           TRIES, up, step, down, hnorm, omp_get_max_threads(), hnorm1, dnorm, scalar);
    printf("per step: copied %zu bytes by the naive program, %zu by the optimized one\n", bytes,
           sizeof(double));
    evidence_print("steps", s->steps, "steps");
    evidence_print("upload_ms", up, "ms");
    evidence_print("stencil_ms", step, "ms");
    evidence_print("download_ms", down, "ms");
    evidence_print("host_norm_ms", hnorm, "ms");
    evidence_print("host_norm_one_core_ms", hnorm1, "ms");
    evidence_print("host_threads", omp_get_max_threads(), "threads");
    evidence_print("device_norm_ms", dnorm, "ms");
    evidence_print("scalar_ms", scalar, "ms");
    evidence_print("host_norm_gbs", 2.0 * bytes / hnorm / 1e6, "GB/s");
    evidence_print("link_gbs", bytes / up / 1e6, "GB/s");
}

const struct problem PROBLEM = {
    .number = 11,
    .slug = "keep-data-on-device",
    .title = "Keep data on the device: a solver that copies one number per step, not the grid",
    .section = "5.3.1",
    .size_help = "grid side n: the grid is n x n floats (8192: 256 MiB)",
    .default_size = 8192,
    .small_size = 700,
    .odd_size = 333,
    .min_size = 3,
    .max_size = 16384,
    .knobs = {{"steps", "Jacobi steps, each followed by a norm the host reads", 5, 1, 1000}},
    .nknobs = 1,
    .test_options = {"--steps 3", "--steps 50"},
    .timing = TIME_REGION,
    .metric = METRIC_LINK_H2D,
    /* The lesson is what crosses the link, and the host figures carry it. */
    .ncu_metrics = "",
    /* Fewer steps: how much of the gain is per step, how much fixed. */
    .sweeps = {"--steps 1", "--steps 2"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
