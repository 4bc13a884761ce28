/* Every roof of common/ on this GPU, with the relations that must hold between
 * them if each is measured right (a roof out of order is a broken benchmark,
 * not a fact about the GPU). Needs a GPU: `make build/tests/roofs && build/tests/roofs`.
 * Ends with "N passed, N failed"; exits 1 if any failed, 3 without a GPU. */
#include "chapter.h"
#include "device.h"
#include "roofs.h"

#include <math.h>
#include <stdio.h>

static int passed, failed;

static void expect(int ok, const char *what, double a, double b)
{
    printf("%s: %s (%.4g vs %.4g)\n", ok ? "PASS" : "FAIL", what, a, b);
    ok ? passed++ : failed++;
}

static double shown(const char *name, double v, const char *unit)
{
    printf("%-14s %12.1f %s\n", name, v, unit);
    expect(isfinite(v) && v > 0, "a positive finite rate", v, 0);
    return v;
}

int main(void)
{
    struct gpu_info g;
    int rc = gpu_open(&g, "tests/roofs");
    if (rc)
        return rc;
    double mhz = gpu_measure_sm_clock_mhz();
    printf("%s, %d SMs, L2 %zu bytes, SM clock %.0f MHz measured\n", g.name, g.sms, g.l2_bytes,
           mhz);
    double copy = shown("copy", gpu_copy_roof_gbs(&g), "GB/s");
    double read = shown("read", gpu_read_roof_gbs(&g), "GB/s");
    double dram = shown("dram-sector", gpu_random_sector_roof(&g), "Glookup/s");
    double l2 = shown("l2-gather", gpu_l2_gather_roof(&g), "Glookup/s");
    double l1 = shown("l1-gather", gpu_l1_gather_roof(&g), "Glookup/s");
    double shared = shown("shared", shared_lookup_roof(&g, mhz), "Glookup/s (derived)");
    double issue = shown("issue", issue_roof(&g, mhz), "Ginst/s (derived)");
    double h2d = shown("link-h2d", gpu_link_roof_gbs(&g, LINK_H2D), "GB/s");
    double d2h = shown("link-d2h", gpu_link_roof_gbs(&g, LINK_D2H), "GB/s");
    double duplex = shown("link-duplex", gpu_link_roof_gbs(&g, LINK_DUPLEX), "GB/s");
    double stream = shown("launch-stream", gpu_launch_roof_klps(0), "klaunch/s");
    double graph = shown("launch-graph", gpu_launch_roof_klps(1), "klaunch/s");
    double per_clock = g.sms * mhz * 1e-3; /* 1e9 SM-clocks per second */
    printf("per SM per clock: l2-gather %.2f, l1-gather %.2f lookups; issue %.0f\n",
           l2 / per_clock, l1 / per_clock, issue / per_clock);

    /* A read-only stream moves at least what a copy does: no write-backs. */
    expect(read >= 0.95 * copy, "read >= 0.95 x copy", read, copy);
    /* Caches serve random words faster than DRAM does, the L1 faster than the L2. */
    expect(l2 >= dram, "l2-gather >= dram-sector", l2, dram);
    expect(l1 >= 0.9 * l2, "l1-gather >= 0.9 x l2-gather", l1, l2);
    /* Shared memory's banks are no slower than the L1's tags for scattered words. */
    expect(shared >= l1, "shared (derived) >= l1-gather", shared, l1);
    /* PCIe and NVLink-C2C: between 1 GB/s and 1 TB/s each way; both ways no slower than one. */
    expect(h2d > 1 && h2d < 1000 && d2h > 1 && d2h < 1000, "link each way in 1..1000 GB/s", h2d,
           d2h);
    expect(duplex >= 0.9 * (h2d > d2h ? h2d : d2h), "link-duplex >= 0.9 x the faster way", duplex,
           h2d > d2h ? h2d : d2h);
    /* An empty kernel costs the GPU some 100 ns of bookkeeping at least: below 1e4 klaunch/s... */
    expect(stream < 1e4 && graph < 1e4, "launches below 10 M/s", stream, graph);
    /* ...and a graph, launched once, is not slower than launching one by one. */
    expect(graph >= 0.9 * stream, "launch-graph >= 0.9 x launch-stream", graph, stream);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
