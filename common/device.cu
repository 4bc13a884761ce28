#include "device.h"
#include "mix32.h"
#include "chapter.h"
#include "cuda_check.h"
#include "flush.h"
#include "stats.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* FP32 lanes per SM by compute capability (CUDA C Programming Guide,
 * "Arithmetic Instructions" throughput table). */
static int fp32_lanes(int major, int minor)
{
    if (major == 6 && minor == 0) return 64;
    if (major == 7) return 64;
    if (major == 8 && minor == 0) return 64;
    return 128;
}

/* Special-function results (__sinf, __expf's ex2, rcp, rsqrt, lg2) per SM
 * per clock, from the same table: 32 on 5.x, 6.1 and 6.2, 16 elsewhere. */
static int sfu_lanes(int major, int minor)
{
    return major == 5 || (major == 6 && minor != 0) ? 32 : 16;
}

/* The other rows of that table (results per clock per SM) that Part IV's
 * chapters are compared with. Only compute capabilities 7.0 and later are
 * listed; this toolkit builds for nothing older. */
static int fp64_lanes(int major, int minor)
{
    if (major == 9 || major == 10) return 64;      /* Hopper, datacenter Blackwell */
    if ((major == 7 && minor == 0) || (major == 8 && minor == 0)) return 32;
    return 2;                                      /* 7.5, 8.6, 8.7, 8.9, 12.x */
}

static int fp16_lanes(int major, int minor)
{
    if (major == 7 || (major == 8 && minor == 9)) return 128;
    return 256;
}

/* Conversions from and to 64-bit types. */
static int convert_lanes(int major, int minor)
{
    if ((major == 7 && minor == 0) || (major == 8 && minor == 0) || major == 9 || major == 10)
        return 16;
    return 2;
}

/* 32-bit integer multiply and multiply-add: 64 on every listed capability
 * (add alone is also 64 there). */
static const int INT32_LANES = 64;

static void version_text(int v, char *out, size_t len)
{
    snprintf(out, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int gpu_open(struct gpu_info *g, const char *program)
{
    memset(g, 0, sizeof *g);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        /* With no NVIDIA driver at all the runtime reports "driver version is insufficient",
         * which misleads a reader without a GPU; only a driver that is present and too old
         * for this runtime deserves that sentence. */
        int have_driver = access("/proc/driver/nvidia/version", F_OK) == 0;
        if (e == cudaErrorInsufficientDriver && have_driver)
            fprintf(stderr, "%s: error: the NVIDIA driver is older than CUDA %d.%d, which this "
                            "program was built with; update the driver\n",
                    program, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        else
            fprintf(stderr, "%s: error: no CUDA GPU on this machine; this program needs one "
                            "to run\n", program);
        return EXIT_NO_GPU;
    }
    CUDA_CHECK(cudaSetDevice(0));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    g->cc_major = prop.major;
    g->cc_minor = prop.minor;
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    g->sms = v;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0));
    g->l2_bytes = (size_t)v;
    CUDA_CHECK(cudaDeviceGetAttribute(&g->max_clock_khz, cudaDevAttrClockRate, 0));
    CUDA_CHECK(cudaMemGetInfo(&g->mem_free, &g->mem_total));
    g->fp32_lanes_per_sm = fp32_lanes(g->cc_major, g->cc_minor);
    g->fp32_peak_gflops = g->sms * (double)g->fp32_lanes_per_sm * 2.0 * g->max_clock_khz * 1e-6;
    g->sfu_per_sm = sfu_lanes(g->cc_major, g->cc_minor);
    g->sfu_peak_gops = g->sms * (double)g->sfu_per_sm * g->max_clock_khz * 1e-6;
    double ghz_sms = g->sms * (double)g->max_clock_khz * 1e-6;
    g->fp64_peak_gflops = ghz_sms * fp64_lanes(g->cc_major, g->cc_minor) * 2.0;
    g->fp16_peak_gflops = ghz_sms * fp16_lanes(g->cc_major, g->cc_minor) * 2.0;
    g->convert_peak_gops = ghz_sms * convert_lanes(g->cc_major, g->cc_minor);
    g->int32_peak_gops = ghz_sms * INT32_LANES;
    CUDA_CHECK(cudaDriverGetVersion(&v));
    version_text(v, g->driver, sizeof g->driver);
    CUDA_CHECK(cudaRuntimeGetVersion(&v));
    version_text(v, g->runtime, sizeof g->runtime);
    return 0;
}

double gpu_copy_roof_gbs(const struct gpu_info *g)
{
    size_t bytes = (size_t)256 << 20;
    if (bytes < 4 * g->l2_bytes)
        bytes = 4 * g->l2_bytes;
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (bytes > ((size_t)16 << 20) && 2 * bytes + 2 * g->l2_bytes > free_b / 2)
        bytes /= 2;
    void *src = device_alloc(bytes), *dst = device_alloc(bytes);
    CUDA_CHECK(cudaMemset(src, 0x3C, bytes));
    struct l2_flusher fl;
    l2_flusher_init(&fl, g->l2_bytes);
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    enum { WARM = 3, SAMPLES = 20 };
    double ms[SAMPLES];
    for (int i = 0; i < WARM + SAMPLES; i++) {
        l2_flush(&fl, 0);
        CUDA_CHECK(cudaEventRecord(a, 0));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
        CUDA_CHECK(cudaEventRecord(b, 0));
        CUDA_CHECK(cudaEventSynchronize(b));
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= WARM)
            ms[i - WARM] = t;
    }
    struct stats st;
    stats_compute(ms, SAMPLES, &st);
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    l2_flusher_free(&fl);
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
    return 2.0 * bytes / (st.median * 1e-3) / 1e9;
}


/* Each lookup reads one word of a random sector. The loads do not depend on
 * each other, so the unrolled loop keeps several in flight per thread; the
 * sum only keeps the compiler from dropping them. */
__global__ void random_read_kernel(const float *buf, unsigned words, long lookups, float *sink)
{
    float acc = 0.0f;
    long stride = (long)gridDim.x * blockDim.x;
#pragma unroll 4
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < lookups; i += stride)
        acc += buf[__umulhi(mix32((unsigned)i), words)];
    if (acc == -1.0f) /* never true: the buffer holds small positive numbers */
        *sink = acc;
}

double gpu_random_sector_roof(const struct gpu_info *g)
{
    /* 32 L2s: fewer than 1 read in 32 can hit the cache. */
    size_t bytes = (size_t)32 * g->l2_bytes, free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (bytes > ((size_t)64 << 20) && bytes + 2 * g->l2_bytes > free_b / 2)
        bytes /= 2;
    if (bytes > ((size_t)4 << 30) - 4) /* word indices stay below 2^32 */
        bytes = ((size_t)4 << 30) - 4;
    float *buf = (float *)device_alloc(bytes), *sink = (float *)device_alloc(sizeof(float));
    CUDA_CHECK(cudaMemset(buf, 0x3C, bytes)); /* 0x3C3C3C3C: about 0.0115 */
    int threads_sm;
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    unsigned block = 256, grid = (unsigned)(g->sms * (threads_sm / 256));
    const long lookups = 1L << 26;
    struct l2_flusher fl;
    l2_flusher_init(&fl, g->l2_bytes);
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    enum { WARM = 3, SAMPLES = 20 };
    double ms[SAMPLES];
    for (int i = 0; i < WARM + SAMPLES; i++) {
        l2_flush(&fl, 0);
        CUDA_CHECK(cudaEventRecord(a, 0));
        random_read_kernel<<<grid, block>>>(buf, (unsigned)(bytes / sizeof(float)), lookups, sink);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(b, 0));
        CUDA_CHECK(cudaEventSynchronize(b));
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= WARM)
            ms[i - WARM] = t;
    }
    struct stats st;
    stats_compute(ms, SAMPLES, &st);
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    l2_flusher_free(&fl);
    CUDA_CHECK(cudaFree(buf));
    CUDA_CHECK(cudaFree(sink));
    return lookups / (st.median * 1e-3) / 1e9;
}

__global__ void spin_kernel(long long cycles, long long *out)
{
    long long t0 = clock64(), t;
    do {
        t = clock64();
    } while (t - t0 < cycles);
    *out = t - t0;
}

double gpu_measure_sm_clock_mhz(void)
{
    long long *d_cycles = (long long *)device_alloc(sizeof(long long)), cycles = 0;
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    float ms = 0;
    for (int rep = 0; rep < 2; rep++) { /* the first launch loads the module */
        CUDA_CHECK(cudaEventRecord(a, 0));
        spin_kernel<<<1, 1>>>(20000000LL, d_cycles);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(b, 0));
        CUDA_CHECK(cudaEventSynchronize(b));
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    }
    CUDA_CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaFree(d_cycles));
    return ms > 0 ? cycles / (ms * 1e3) : -1;
}
