/* A tiny problem (out = 2 * in) with bugs planted on purpose, built eight
 * ways: PLANT=0 is correct, PLANT=1 leaves the last element unwritten (an
 * off-by-one), PLANT=2 writes a NaN, PLANT=3 drops a barrier, PLANT=4 never
 * resets the work counter its blocks take tiles from (right on fresh memory,
 * wrong on the second run), PLANT=5 leaves out the join of the side stream
 * that writes the second half (right whenever something synchronizes the
 * whole device before the check). The test runner expects the driver to pass
 * 0 and 3 and fail 1, 2, 4 and 5 (proof that the whole check path, from
 * poisoning to the exit code, can fail), and racecheck to pass 0 and fail 3:
 * a race whose result happens to be right is caught only by racecheck.
 *
 * Every build takes its tiles from a counter and hands the second half to a
 * side stream that waits long enough for a check that does not wait to read
 * poison; only the planted line differs. PLANT=6 adds a scratch buffer from the
 * stream-ordered pool that a kernel writes after cudaFreeAsync gave it back:
 * the result is right, and only compute-sanitizer's stream-ordered race
 * tracking (memcheck) sees the use after free. PLANT=7 runs a grid-stride loop
 * over a fixed grid whose stride is twice what it should be: right whenever
 * the size fits in the grid's first pass, wrong at --size passes. */
#include "chapter.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdlib.h>

struct scale {
    long n;
    float *in, *out, *h_in;
    unsigned *next;          /* the next tile a block takes */
    cudaStream_t side;       /* writes the second half */
    cudaEvent_t fork, join;
};

#define TILE 256

__device__ int planted_sink;

__global__ void scale_kernel(float *out, const float *in, long n, unsigned *next,
                             long long wait_cycles)
{
    /* The side stream's launch waits first, so that its half lands well after the first. */
    for (long long t0 = clock64(); clock64() - t0 < wait_cycles;)
        ;
    __shared__ unsigned tile_of_block;
    if (threadIdx.x == 0)
        tile_of_block = atomicAdd(next, 1u);
    __syncthreads();
    long i = (long)tile_of_block * TILE + threadIdx.x;
    /* Each thread reads what a thread of another warp stored in shared memory.
     * The value never reaches the output (only a bit pattern no input has is
     * recorded, in planted_sink), so only the barrier stands between this code
     * and a race the check cannot see. */
    __shared__ float tile[256];
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
#if PLANT != 3
    __syncthreads();
#endif
    if (__float_as_int(tile[threadIdx.x ^ 32]) == 0x7fbadbad)
        planted_sink = 1;
#if PLANT == 1
    if (i < n - 1)
#else
    if (i < n)
#endif
        out[i] = 2.0f * in[i];
#if PLANT == 2
    if (i == n / 2)
        out[i] = __int_as_float(0x7fc00000);
#endif
}

/* Each half's counter starts at its first tile: run() resets both before the work. */
__global__ void reset_kernel(unsigned *next, unsigned first)
{
    next[0] = 0;
    next[1] = first;
}

static size_t device_bytes(const struct config *c) { return 2 * c->size * sizeof(float); }
static size_t host_bytes(const struct config *c) { return 3 * c->size * sizeof(float); }

static void *create(const struct config *c)
{
    struct scale *s = (struct scale *)calloc(1, sizeof *s);
    s->n = c->size;
    s->h_in = (float *)host_alloc(s->n * sizeof(float));
    rng_fill_f32(s->h_in, s->n, -1, 1, c->seed, 0);
    s->in = (float *)device_alloc(s->n * sizeof(float));
    s->out = (float *)device_alloc(s->n * sizeof(float));
    s->next = (unsigned *)device_alloc(2 * sizeof(unsigned));
    unsigned start[2] = {0, (unsigned)(((s->n + TILE - 1) / TILE) / 2)};
    CUDA_CHECK(cudaMemcpy(s->next, start, sizeof start, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->side, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->join, cudaEventDisableTiming));
    CUDA_CHECK(cudaMemcpy(s->in, s->h_in, s->n * sizeof(float), cudaMemcpyHostToDevice));
    return s;
}

static void poison(void *d)
{
    struct scale *s = (struct scale *)d;
    poison_device(s->out, s->n * sizeof(float));
}

static int check(void *d, struct check_report *r)
{
    struct scale *s = (struct scale *)d;
    float *got = (float *)host_alloc(s->n * sizeof(float));
    float *ref = (float *)host_alloc(s->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(got, s->out, s->n * sizeof(float), cudaMemcpyDeviceToHost));
    for (long i = 0; i < s->n; i++)
        ref[i] = 2.0f * s->h_in[i];
    struct tolerance t = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, s->n, &t, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

static double bytes(const void *d) { return 8.0 * ((const struct scale *)d)->n; }
static double flops(const void *d) { return (double)((const struct scale *)d)->n; }

static void destroy(void *d)
{
    struct scale *s = (struct scale *)d;
    CUDA_CHECK(cudaFree(s->in));
    CUDA_CHECK(cudaFree(s->out));
    CUDA_CHECK(cudaFree(s->next));
    CUDA_CHECK(cudaStreamDestroy(s->side));
    CUDA_CHECK(cudaEventDestroy(s->fork));
    CUDA_CHECK(cudaEventDestroy(s->join));
    free(s->h_in);
    free(s);
}

static const struct problem PROBLEM = {
    .number = 99, .slug = "planted", .title = "planted bugs", .section = "-",
    .size_help = "elements", .default_size = 1L << 24, .small_size = 1001, .odd_size = 12345,
    .min_size = 2, .max_size = 1L << 30, .timing = TIME_KERNEL, .metric = METRIC_GBS,
    .device_bytes = device_bytes, .host_bytes = host_bytes, .create = create, .poison = poison,
    .check = check, .bytes = bytes, .flops = flops, .destroy = destroy,
};

#if PLANT == 7
__global__ void stride_kernel(float *out, const float *in, long n)
{
    long stride = 2L * gridDim.x * blockDim.x; /* the planted bug: one grid is the stride */
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = 2.0f * in[i];
}
#endif

static void run(void *d, cudaStream_t st)
{
    struct scale *s = (struct scale *)d;
#if PLANT == 7
    stride_kernel<<<64, TILE, 0, st>>>(s->out, s->in, s->n);
    CHECK_LAUNCH();
    return;
#endif
    long tiles = (s->n + TILE - 1) / TILE, first = tiles / 2;
#if PLANT != 4
    reset_kernel<<<1, 1, 0, st>>>(s->next, (unsigned)first);
    CHECK_LAUNCH();
#endif
    CUDA_CHECK(cudaEventRecord(s->fork, st));
    if (first) {
        scale_kernel<<<(unsigned)first, TILE, 0, st>>>(s->out, s->in, s->n, s->next, 0);
        CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaStreamWaitEvent(s->side, s->fork, 0));
    /* About 20 ms at 2 GHz: far longer than the first half and the check's download. */
    scale_kernel<<<(unsigned)(tiles - first), TILE, 0, s->side>>>(s->out, s->in, s->n,
                                                                   s->next + 1, 40000000LL);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(s->join, s->side));
#if PLANT != 5
    CUDA_CHECK(cudaStreamWaitEvent(st, s->join, 0));
#endif
#if PLANT == 6
    unsigned *scratch;
    CUDA_CHECK(cudaMallocAsync((void **)&scratch, TILE * sizeof(unsigned), st));
    CUDA_CHECK(cudaFreeAsync(scratch, st));
    reset_kernel<<<1, 1, 0, st>>>(scratch, 0);
    CHECK_LAUNCH();
#endif
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
