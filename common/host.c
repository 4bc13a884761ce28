#define _GNU_SOURCE /* sched_getaffinity */
#include "host.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    return omp_get_num_procs();
}

void host_describe(char *buf, size_t len)
{
    char model[256] = "CPU model not reported", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        /* "model name : ..." on x86, "Model : ..." on some Arm kernels */
        if (strncmp(line, "model name", 10) && strncmp(line, "Model\t", 6))
            continue;
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += 1 + strspn(v + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        /* The text goes into a CSV field: printable characters only, no quote. */
        size_t k = 0;
        for (; *v && k + 1 < sizeof model; v++)
            if (*v >= ' ' && *v != '"' && *v != 0x7f)
                model[k++] = *v;
        model[k] = '\0';
        break;
    }
    if (f)
        fclose(f);
    snprintf(buf, len, "%s, %d cores", model, usable_cores());
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

double host_copy_gbs(size_t bytes, int all_cores)
{
    unsigned char *src = (unsigned char *)malloc(bytes);
    unsigned char *dst = (unsigned char *)malloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return -1;
    }
    int threads = all_cores ? usable_cores() : 1;
    /* Touch both buffers on the threads that will copy them, so the tries time
     * the copy, not the first-touch page faults. */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++) {
        size_t lo = bytes * t / threads, hi = bytes * (t + 1) / threads;
        memset(src + lo, 0x3C, hi - lo);
        memset(dst + lo, 0, hi - lo);
    }
    double best = 1e30;
    for (int k = 0; k < 3; k++) {
        double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int t = 0; t < threads; t++) {
            size_t lo = bytes * t / threads, hi = bytes * (t + 1) / threads;
            memcpy(dst + lo, src + lo, hi - lo);
        }
        double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    volatile unsigned char sink = dst[bytes - 1]; /* the copies cannot be dropped */
    (void)sink;
    free(src);
    free(dst);
    return bytes / best / 1e9;
}
