/* A tiny problem (out = 2 * in) with bugs planted on purpose, built four
 * ways: PLANT=0 is correct, PLANT=1 leaves the last element unwritten (an
 * off-by-one), PLANT=2 writes a NaN, PLANT=3 drops a barrier. The test runner
 * expects the driver to pass 0 and 3 and fail 1 and 2 (proof that the whole
 * check path, from poisoning to the exit code, can fail), and racecheck to
 * pass 0 and fail 3: a race whose result happens to be right is caught only
 * by racecheck. */
#include "chapter.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdlib.h>

struct scale {
    long n;
    float *in, *out, *h_in;
};

__device__ int planted_sink;

__global__ void scale_kernel(float *out, const float *in, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
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
    free(s->h_in);
    free(s);
}

static const struct problem PROBLEM = {
    .number = 99, .slug = "planted", .title = "planted bugs", .section = "-",
    .size_help = "elements", .default_size = 1000, .small_size = 1001, .odd_size = 12345,
    .min_size = 2, .max_size = 1L << 30, .timing = TIME_KERNEL, .metric = METRIC_GBS,
    .device_bytes = device_bytes, .host_bytes = host_bytes, .create = create, .poison = poison,
    .check = check, .bytes = bytes, .flops = flops, .destroy = destroy,
};

static void run(void *d, cudaStream_t st)
{
    struct scale *s = (struct scale *)d;
    scale_kernel<<<(unsigned)((s->n + 255) / 256), 256, 0, st>>>(s->out, s->in, s->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
