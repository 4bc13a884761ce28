/* What the harness needs to know about the GPU, and the roofs it measures. */
#ifndef COMMON_DEVICE_H
#define COMMON_DEVICE_H

#include <stddef.h>

struct gpu_info {
    char name[256];
    int cc_major, cc_minor, sms;
    size_t l2_bytes, mem_total, mem_free;
    int max_clock_khz;          /* cudaDevAttrClockRate: the rated boost clock */
    int fp32_lanes_per_sm;
    double fp32_peak_gflops;    /* sms * lanes * 2 flops (FMA) * rated clock */
    int sfu_per_sm;             /* special-function results per SM per clock */
    double sfu_peak_gops;       /* sms * sfu_per_sm * rated clock, in 1e9 results/s */
    double fp64_peak_gflops;    /* sms * FP64 lanes * 2 flops (FMA) * rated clock */
    double fp16_peak_gflops;    /* sms * FP16 results per clock * 2 flops (FMA) * rated clock */
    double convert_peak_gops;   /* sms * 64-bit conversions per clock * rated clock */
    double int32_peak_gops;     /* sms * 32-bit integer multiply-adds per clock * rated clock */
    char driver[16], runtime[16];
};

/* Find device 0 and fill g. Returns 0, or prints one sentence naming the
 * program ("20-matrix-transpose/naive") and returns EXIT_NO_GPU when no CUDA
 * GPU can be used. */
int gpu_open(struct gpu_info *g, const char *program);

/* Device-to-device cudaMemcpy bandwidth (bytes read + written) of a copy far
 * larger than the L2, median of 20 cold-cache samples, in GB/s (1e9). */
double gpu_copy_roof_gbs(const struct gpu_info *g);

/* Random 4-byte reads, each from its own 32-byte sector of a buffer far
 * larger than the L2, with every SM full of threads: the rate at which DRAM
 * serves random sectors, median of 20 cold-cache samples, in 1e9 reads/s.
 * The roof of a random gather (one lookup = one such read). */
double gpu_random_sector_roof(const struct gpu_info *g);

/* SM clock seen now, from clock64() cycles over event time, in MHz. */
double gpu_measure_sm_clock_mhz(void);

#endif
