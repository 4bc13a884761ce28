#include "roofs.h"
#include "mix32.h"
#include "cuda_check.h"
#include "flush.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARM = 3, SAMPLES = 10, BLOCK = 256 };

/* One sample's work, enqueued on stream s. */
typedef void (*enqueue_fn)(void *ctx, cudaStream_t s);

/* The fastest of SAMPLES samples after WARM (module load, clock ramp, a cache
 * filled), each between two events on s, in ms; fl, where given, empties the
 * L2 before each sample, outside the timed region. */
static double fastest_ms(enqueue_fn fn, void *ctx, cudaStream_t s, const struct l2_flusher *fl)
{
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double best = 1e30;
    for (int i = 0; i < WARM + SAMPLES; i++) {
        if (fl)
            l2_flush(fl, s);
        CUDA_CHECK(cudaEventRecord(a, s));
        fn(ctx, s);
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaEventSynchronize(b));
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= WARM && t < best)
            best = t;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return best;
}

/* Blocks of BLOCK threads that fill every SM: enough loads in flight to cover
 * the latency of DRAM or of the caches. */
static unsigned full_grid(const struct gpu_info *g)
{
    int threads_sm;
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    return (unsigned)(g->sms * (threads_sm / BLOCK));
}

/* The copy roof's size of one buffer (device.cu), so that the two stream
 * roofs are measured alike: at least 256 MiB and 4 L2s, halved while two such
 * buffers and the flush buffer would take more than half the free memory. */
static size_t stream_bytes(const struct gpu_info *g)
{
    size_t bytes = (size_t)256 << 20, free_b, total_b;
    if (bytes < 4 * g->l2_bytes)
        bytes = 4 * g->l2_bytes;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (bytes > ((size_t)16 << 20) && 2 * bytes + 2 * g->l2_bytes > free_b / 2)
        bytes /= 2;
    return bytes & ~(size_t)15; /* whole 16-byte words */
}

/* --- read-only stream --------------------------------------------------- */

/* Every component, or the compiler narrows a 16-byte load to the ones used. */
__device__ static float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* Four independent 16-byte loads per thread per step keep enough bytes in
 * flight; the sum, stored only on a value the data never gives, keeps the
 * compiler from dropping them. */
__global__ void read_kernel(const float4 *buf, size_t n, float *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (; i + 3 * stride < n; i += 4 * stride) {
        float4 a = buf[i], b = buf[i + stride], c = buf[i + 2 * stride], d = buf[i + 3 * stride];
        acc += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    }
    for (; i < n; i += stride)
        acc += sum4(buf[i]);
    if (acc == -1.0f) /* never: the buffer holds small positive numbers */
        *sink = acc;
}

struct read_ctx {
    const float4 *buf;
    size_t n;
    float *sink;
    unsigned grid;
};

static void read_enqueue(void *p, cudaStream_t s)
{
    struct read_ctx *c = (struct read_ctx *)p;
    read_kernel<<<c->grid, BLOCK, 0, s>>>(c->buf, c->n, c->sink);
    CHECK_LAUNCH();
}

double gpu_read_roof_gbs(const struct gpu_info *g)
{
    size_t bytes = stream_bytes(g);
    struct read_ctx c;
    c.buf = (const float4 *)device_alloc(bytes);
    c.n = bytes / sizeof(float4);
    c.sink = (float *)device_alloc(sizeof(float));
    c.grid = full_grid(g);
    CUDA_CHECK(cudaMemset((void *)c.buf, 0x3C, bytes)); /* 0x3C3C3C3C: about 0.0115 */
    struct l2_flusher fl;
    l2_flusher_init(&fl, g->l2_bytes);
    double ms = fastest_ms(read_enqueue, &c, 0, &fl);
    l2_flusher_free(&fl);
    CUDA_CHECK(cudaFree((void *)c.buf));
    CUDA_CHECK(cudaFree(c.sink));
    return bytes / (ms * 1e-3) / 1e9;
}

/* --- cached random gather ------------------------------------------------ */


enum { GATHER_UNROLL = 8, GATHER_ROUNDS = 64 };

/* Each thread walks its own linear congruential sequence (one multiply-add a
 * lookup: cheap, so the cache, not the arithmetic, binds) and reads the word
 * its top bits name; the table has 2^(32 - shift) words. The loads do not
 * depend on each other, so eight are in flight per thread. */
__global__ void gather_kernel(const float *table, unsigned shift, float *sink)
{
    unsigned x = mix32(blockIdx.x * blockDim.x + threadIdx.x);
    float acc = 0.0f;
    for (int r = 0; r < GATHER_ROUNDS; r++) {
#pragma unroll
        for (int u = 0; u < GATHER_UNROLL; u++) {
            x = x * 1664525u + 1013904223u;
            acc += table[x >> shift];
        }
    }
    if (acc == -1.0f)
        *sink = acc;
}

struct gather_ctx {
    const float *table;
    unsigned shift, grid;
    float *sink;
};

static void gather_enqueue(void *p, cudaStream_t s)
{
    struct gather_ctx *c = (struct gather_ctx *)p;
    gather_kernel<<<c->grid, BLOCK, 0, s>>>(c->table, c->shift, c->sink);
    CHECK_LAUNCH();
}

/* Lookups per second from a table of 2^log2_words words, warm (the warm-up
 * samples bring it into the cache; nothing flushes it), in 1e9 lookups/s. */
static double gather_roof(const struct gpu_info *g, int log2_words)
{
    size_t bytes = sizeof(float) << log2_words;
    struct gather_ctx c;
    c.table = (const float *)device_alloc(bytes);
    c.shift = (unsigned)(32 - log2_words);
    c.grid = full_grid(g);
    c.sink = (float *)device_alloc(sizeof(float));
    CUDA_CHECK(cudaMemset((void *)c.table, 0x3C, bytes));
    /* As much L1 as the SM offers: the kernel uses no shared memory. */
    CUDA_CHECK(cudaFuncSetAttribute(gather_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    (int)cudaSharedmemCarveoutMaxL1));
    double ms = fastest_ms(gather_enqueue, &c, 0, NULL);
    CUDA_CHECK(cudaFree((void *)c.table));
    CUDA_CHECK(cudaFree(c.sink));
    double lookups = (double)c.grid * (int)BLOCK * (int)(GATHER_ROUNDS * GATHER_UNROLL);
    return lookups / (ms * 1e-3) / 1e9;
}

double gpu_l2_gather_roof(const struct gpu_info *g)
{
    int k = 2; /* log2 of the words in a quarter of the L2, rounded down */
    while (k < 30 && (sizeof(float) << (k + 1)) <= g->l2_bytes / 4)
        k++;
    return gather_roof(g, k);
}

double gpu_l1_gather_roof(const struct gpu_info *g)
{
    return gather_roof(g, 12); /* 4096 words, 16 KiB */
}

/* --- pinned host link ---------------------------------------------------- */

struct link_ctx {
    void *host[2], *dev[2];
    size_t bytes;
    enum link_dir d;
    cudaStream_t other;       /* the second direction's stream (duplex) */
    cudaEvent_t fork, join;
};

static void link_enqueue(void *p, cudaStream_t s)
{
    struct link_ctx *c = (struct link_ctx *)p;
    if (c->d == LINK_H2D) {
        CUDA_CHECK(cudaMemcpyAsync(c->dev[0], c->host[0], c->bytes, cudaMemcpyHostToDevice, s));
    } else if (c->d == LINK_D2H) {
        CUDA_CHECK(cudaMemcpyAsync(c->host[0], c->dev[0], c->bytes, cudaMemcpyDeviceToHost, s));
    } else { /* both at once: the other stream starts after s's start event, s ends after it */
        CUDA_CHECK(cudaEventRecord(c->fork, s));
        CUDA_CHECK(cudaStreamWaitEvent(c->other, c->fork, 0));
        CUDA_CHECK(cudaMemcpyAsync(c->host[1], c->dev[1], c->bytes, cudaMemcpyDeviceToHost,
                                   c->other));
        CUDA_CHECK(cudaMemcpyAsync(c->dev[0], c->host[0], c->bytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaEventRecord(c->join, c->other));
        CUDA_CHECK(cudaStreamWaitEvent(s, c->join, 0));
    }
}

/* Page-locked host memory, halved until the host grants it (a chapter may
 * already hold much of it); never below 16 MiB. */
static void *pinned_at_most(size_t *bytes)
{
    void *p = NULL;
    while (cudaMallocHost(&p, *bytes) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky; clear it */
        if (*bytes <= ((size_t)16 << 20)) {
            fprintf(stderr, "error: could not pin %zu bytes of host memory for the link roof\n",
                    *bytes);
            exit(EXIT_FAILURE);
        }
        *bytes /= 2;
    }
    return p;
}

double gpu_link_roof_gbs(const struct gpu_info *g, enum link_dir d)
{
    struct link_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    int n = d == LINK_DUPLEX ? 2 : 1;
    size_t free_b, total_b, bytes = (size_t)256 << 20;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (bytes > ((size_t)16 << 20) && n * bytes + 2 * g->l2_bytes > free_b / 2)
        bytes /= 2;
    for (int i = 0; i < n; i++) {
        size_t got = bytes;
        c.host[i] = pinned_at_most(&got);
        if (got < bytes) /* both directions move the same bytes */
            bytes = got;
    }
    for (int i = 0; i < n; i++) {
        memset(c.host[i], 0x3C, bytes);
        c.dev[i] = device_alloc(bytes);
        CUDA_CHECK(cudaMemset(c.dev[i], 0x3C, bytes));
    }
    c.bytes = bytes;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (d == LINK_DUPLEX) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&c.other, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&c.fork, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&c.join, cudaEventDisableTiming));
    }
    double ms = fastest_ms(link_enqueue, &c, s, NULL);
    if (d == LINK_DUPLEX) {
        CUDA_CHECK(cudaEventDestroy(c.fork));
        CUDA_CHECK(cudaEventDestroy(c.join));
        CUDA_CHECK(cudaStreamDestroy(c.other));
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    for (int i = 0; i < n; i++) {
        CUDA_CHECK(cudaFreeHost(c.host[i]));
        CUDA_CHECK(cudaFree(c.dev[i]));
    }
    return (double)n * bytes / (ms * 1e-3) / 1e9;
}

/* --- launches ------------------------------------------------------------ */

__global__ void empty_kernel(void) {}

enum { LAUNCHES = 1000 };

struct launch_ctx {
    cudaGraphExec_t graph; /* NULL: launch one by one */
};

static void launch_enqueue(void *p, cudaStream_t s)
{
    struct launch_ctx *c = (struct launch_ctx *)p;
    if (c->graph) {
        CUDA_CHECK(cudaGraphLaunch(c->graph, s));
        return;
    }
    for (int i = 0; i < LAUNCHES; i++) {
        empty_kernel<<<1, 1, 0, s>>>();
        CHECK_LAUNCH();
    }
}

double gpu_launch_roof_klps(int graph)
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    struct launch_ctx c = {NULL};
    if (graph) { /* the same LAUNCHES kernels, captured as a chain of kernel nodes */
        cudaGraph_t gr;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        launch_enqueue(&c, s);
        CUDA_CHECK(cudaStreamEndCapture(s, &gr));
        CUDA_CHECK(cudaGraphInstantiate(&c.graph, gr, 0));
        CUDA_CHECK(cudaGraphDestroy(gr));
    }
    double ms = fastest_ms(launch_enqueue, &c, s, NULL); /* the first launch uploads the graph */
    if (graph)
        CUDA_CHECK(cudaGraphExecDestroy(c.graph));
    CUDA_CHECK(cudaStreamDestroy(s));
    return (double)LAUNCHES / (ms * 1e-3) / 1e3;
}

/* --- derived ------------------------------------------------------------- */

double shared_lookup_roof(const struct gpu_info *g, double sm_clock_mhz)
{
    return 32.0 * g->sms * sm_clock_mhz * 1e-3;
}

double issue_roof(const struct gpu_info *g, double sm_clock_mhz)
{
    return 4.0 * g->sms * sm_clock_mhz * 1e-3;
}
