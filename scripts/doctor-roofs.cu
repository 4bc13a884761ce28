/* make doctor's measurements (scripts/guide/doctor.py reads them): the roofs of
 * common/ that the chapters' rows are held against, measured the same way, the
 * SM clock under load, and one core's memcpy as chapter 13 measures it. One
 * "name value" line each, in the roofs' own names and units (results.py's
 * ROOFS). A few seconds; reads and times, never changes a setting. Exits 3
 * without a GPU, with the one line gpu_open prints. */
#include "chapter.h"
#include "cuda_check.h"
#include "device.h"
#include "roofs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MEMCPY_TRIES = 5 };

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One core's memcpy of 256 MiB of pageable memory into a touched buffer, the
 * fastest of MEMCPY_TRIES, in GB/s: chapter 13's host_memcpy_gbs, the rate a
 * pageable transfer and a pack on one core cannot beat. */
static double one_core_memcpy_gbs(void)
{
    size_t bytes = (size_t)256 << 20;
    unsigned char *src = (unsigned char *)host_alloc(bytes);
    unsigned char *dst = (unsigned char *)host_alloc(bytes);
    memset(src, 0x3C, bytes);
    memset(dst, 0, bytes);
    double best = 1e30;
    for (int k = 0; k < MEMCPY_TRIES; k++) {
        double t0 = seconds();
        memcpy(dst, src, bytes);
        double t = seconds() - t0;
        best = t < best ? t : best;
    }
    volatile unsigned char sink = dst[bytes - 1]; /* the copy cannot be dropped */
    (void)sink;
    free(src);
    free(dst);
    return bytes / best / 1e9;
}

int main(void)
{
    struct gpu_info g;
    int rc = gpu_open(&g, "make doctor");
    if (rc)
        return rc;
    printf("gpu %s\n", g.name);
    printf("copy %.1f\n", gpu_copy_roof_gbs(&g));
    printf("sm-clock %.0f\n", gpu_measure_sm_clock_mhz()); /* a spin kernel: the GPU busy */
    printf("link-h2d %.1f\n", gpu_link_roof_gbs(&g, LINK_H2D));
    printf("link-d2h %.1f\n", gpu_link_roof_gbs(&g, LINK_D2H));
    printf("launch-stream %.1f\n", gpu_launch_roof_klps(0));
    printf("launch-graph %.1f\n", gpu_launch_roof_klps(1));
    printf("host-memcpy %.2f\n", one_core_memcpy_gbs());
    return EXIT_OK;
}
