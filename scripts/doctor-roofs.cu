/* make doctor's measurements (scripts/guide/doctor.py reads them): the roofs of
 * common/ that the chapters' rows are held against, measured the same way, the
 * SM clock under load, and one core's memcpy as a host-bound results row records it. One
 * "name value" line each, in the roofs' own names and units (results.py's
 * ROOFS). A few seconds; reads and times, never changes a setting. Exits 3
 * without a GPU, with the one line gpu_open prints. */
#include "chapter.h"
#include "cuda_check.h"
#include "device.h"
#include "host.h"
#include "roofs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    printf("host-memcpy %.2f\n", host_copy_gbs(HOST_COPY_BYTES, 0)); /* as a results row */
    return EXIT_OK;
}
