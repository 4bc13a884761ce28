/* Chapter 02, the problem: n words go host -> device, through a compute
 * stage, and back, host memory pinned on both sides. The check is bit-exact:
 * ROUNDS steps of x = A x + C collapse into one step x = A' x + C', which the
 * CPU applies to every element. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// [kernel]
/* A stand-in for any compute stage whose cost we can dial: each thread runs
 * `rounds` dependent steps of a generator on its element. A and C arrive as
 * arguments, so the compiler cannot fold the steps together. */
__global__ void rounds_kernel(uint32_t *out, const uint32_t *in, long n, int rounds, uint32_t a,
                              uint32_t c)
{
    long i = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (i < n) {
        uint32_t x = in[i];
        for (int r = 0; r < rounds; r++)
            x = a * x + c;
        out[i] = x;
    }
}
// [kernel]

void launch_rounds(const struct pipeline *p, long first, long count, cudaStream_t s)
{
    if (count <= 0)
        return;
    unsigned blocks = (unsigned)((count + BLOCK - 1) / BLOCK);
#ifdef PLANT_ROUNDS_REMAINDER /* planted fault: an unroll by 4 whose remainder steps are dropped */
    int rounds = p->rounds & ~3;
#else
    int rounds = p->rounds;
#endif
    rounds_kernel<<<blocks, BLOCK, 0, s>>>(p->d_out + first, p->d_in + first, count, rounds,
                                           LCG_A, LCG_C);
    CHECK_LAUNCH();
}

static size_t array_bytes(long n) { return (size_t)n * sizeof(uint32_t); }

static size_t device_bytes(const struct config *c) { return 2 * array_bytes(c->size); }

/* Pinned input and output, and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * array_bytes(c->size); }

static void *create(const struct config *c)
{
    struct pipeline *p = (struct pipeline *)calloc(1, sizeof *p);
    p->n = c->size;
    p->streams = (int)c->knob[0];
    p->chunks = (int)c->knob[1];
    p->rounds = (int)c->knob[2];
    size_t bytes = array_bytes(p->n);
    p->h_in = (uint32_t *)pinned_alloc(bytes);
    p->h_out = (uint32_t *)pinned_alloc(bytes);
    rng_fill_i32((int32_t *)p->h_in, (size_t)p->n, INT32_MIN, INT32_MAX, c->seed, 0);
    p->d_in = (uint32_t *)device_alloc(bytes);
    p->d_out = (uint32_t *)device_alloc(bytes);
    return p;
}

/* Both ends of the pipeline: the device buffers, and the host output that
 * the check reads. A missing upload, kernel or download leaves 0xFF words. */
static void poison(void *data)
{
    struct pipeline *p = (struct pipeline *)data;
    poison_device(p->d_in, array_bytes(p->n));
    poison_device(p->d_out, array_bytes(p->n));
    memset(p->h_out, 0xFF, array_bytes(p->n));
}

/* The ordered run (common/driver.cu, ordered_run): the first word of the host output, which
 * the download of the first chunk writes, is the word to watch; a chunk whose upload, kernel
 * and download do not wait for the stream (a fork left out) writes it while the stream is
 * held. The poison is poison()'s, queued on the stream. */
static const unsigned *watch(void *data) { return ((struct pipeline *)data)->h_out; }

static void poison_on(void *data, cudaStream_t s)
{
    struct pipeline *p = (struct pipeline *)data;
    poison_async(p->d_in, array_bytes(p->n), s);
    poison_async(p->d_out, array_bytes(p->n), s);
    poison_async(p->h_out, array_bytes(p->n), s); /* pinned: a kernel writes it directly */
}

static int check(void *data, struct check_report *r)
{
    struct pipeline *p = (struct pipeline *)data;
    /* Composing x -> A x + C with itself `rounds` times gives x -> a x + c. */
    uint32_t a = 1, c = 0;
    for (int i = 0; i < p->rounds; i++) {
        a = LCG_A * a;
        c = LCG_A * c + LCG_C;
    }
    uint32_t *ref = (uint32_t *)host_alloc(array_bytes(p->n));
    for (long i = 0; i < p->n; i++)
        ref[i] = a * p->h_in[i] + c;
    check_bytes(p->h_out, ref, (size_t)p->n, sizeof(uint32_t), r);
    free(ref);
    return r->passed;
}

/* The bytes that cross the bus: n words each way. */
static double bytes(const void *data)
{
    return 2.0 * array_bytes(((const struct pipeline *)data)->n);
}

static double flops(const void *data) { (void)data; return 0; }

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

void report_overlap(void *data, void (*run)(void *, cudaStream_t))
{
    struct pipeline *p = (struct pipeline *)data;
    size_t bytes = array_bytes(p->n);
    cudaStream_t s;
    cudaEvent_t ev[4];
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaEventCreate(&ev[i]));
    /* Each stage alone: one stream, whole array, events between stages. */
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(ev[0], s));
    CUDA_CHECK(cudaMemcpyAsync(p->d_in, p->h_in, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(ev[1], s));
    launch_rounds(p, 0, p->n, s);
    CUDA_CHECK(cudaEventRecord(ev[2], s));
    CUDA_CHECK(cudaMemcpyAsync(p->h_out, p->d_out, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(ev[3], s));
    CUDA_CHECK(cudaEventSynchronize(ev[3]));
    float h2d = elapsed_ms(ev[0], ev[1]), kernel = elapsed_ms(ev[1], ev[2]);
    float d2h = elapsed_ms(ev[2], ev[3]), sum = h2d + kernel + d2h;
    /* The program's own run, end to end: the best of three. */
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        run(data, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        double t = now_ms() - t0;
        if (t < best)
            best = t;
    }
    int engines = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
    printf("overlap: copy engines (asyncEngineCount) %d: with 2 or more, an upload, a download "
           "and kernels can all run at once\n", engines);
    printf("overlap: stages alone: H2D %.2f ms + kernel %.2f ms + D2H %.2f ms = %.2f ms; "
           "this program end to end %.2f ms = %.0f%% of that sum\n",
           h2d, kernel, d2h, sum, best, 100.0 * best / sum);
    /* The same figures as data, for the README's evidence and claims. */
    evidence_print("copy_engines", engines, "engines");
    evidence_print("h2d_ms", h2d, "ms");
    evidence_print("kernel_ms", kernel, "ms");
    evidence_print("d2h_ms", d2h, "ms");
    evidence_print("stages_sum_ms", sum, "ms");
    evidence_print("end_to_end_ms", best, "ms");
    evidence_print("overlap_pct", 100.0 * best / sum, "%");
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaEventDestroy(ev[i]));
    CUDA_CHECK(cudaStreamDestroy(s));
}

static void destroy(void *data)
{
    struct pipeline *p = (struct pipeline *)data;
    CUDA_CHECK(cudaFree(p->d_in));
    CUDA_CHECK(cudaFree(p->d_out));
    CUDA_CHECK(cudaFreeHost(p->h_in));
    CUDA_CHECK(cudaFreeHost(p->h_out));
    free(p);
}

const struct problem PROBLEM = {
    .number = 2,
    .slug = "overlap-transfers",
    .title = "Overlap transfers with computation: chunks over several streams",
    .section = "5.2.1",
    .size_help = "32-bit words n sent to the GPU, computed on and sent back (256M: 1 GiB each way)",
    .default_size = 268435456,
    .small_size = 1000003,
    .odd_size = 77777,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"streams", "streams the optimized program spreads the chunks over", 4, 1,
               MAX_STREAMS},
              {"chunks", "pieces the optimized program cuts the data into", 16, 1, 4096},
              {"rounds", "generator steps per element: the kernel's cost", 1024, 1, 1000000}},
    .nknobs = 3,
    .test_options = {"--streams 1", "--streams 2", "--chunks 4", "--chunks 64", "--chunks 4096",
                     "--rounds 256", "--rounds 4096", "--rounds 16384",
                     /* The compiled loop (sm_90) takes 16, 8 and 4 steps at a time, then
                      * single steps (rounds % 4). The default and the counts above are
                      * multiples of 16, which only the first path runs; 31 runs all four, 1
                      * only the single step. */
                     "--rounds 1", "--rounds 31"},
    .timing = TIME_REGION,
    /* Both directions' bytes over the time, against both pinned copies run at
     * once: the pipeline's bound is the link carrying traffic both ways. */
    .metric = METRIC_LINK_DUPLEX,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum",
    /* Overlapped copies in two directions vary from sample to sample; the
     * quartiles of 100 samples make the noise figure a measurement. */
    .min_samples = 100,
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
    /* Both programs are stream work alone: checked from a graph captured on the stream too
     * (a join left out fails the capture), and with the stream held before the run (a fork
     * left out writes the watched word while it is held). */
    .watch = watch,
    .poison_on = poison_on,
    .capture_region = 1,
};
