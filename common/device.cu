#include "device.h"
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
