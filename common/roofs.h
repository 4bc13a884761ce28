/* The roofs beyond the copy and the instruction peaks of device.h (issue 20):
 * what bounds a kernel that reads more than it writes, gathers from a cache,
 * looks up shared memory, is issue-bound, or is bound by the host link or by
 * launches. Each is measured in the run that needs it, like the copy roof, or
 * derived from the guide's figures and the SM clock measured in that run. A
 * program measures only the roof its metric names (driver.cu). */
#ifndef COMMON_ROOFS_H
#define COMMON_ROOFS_H

#include "device.h"

/* Measured. Each is the fastest of 10 event-timed samples after 3 warm-ups:
 * a roof is the most this GPU was seen to do, so noise cannot put a kernel
 * far above it. */

/* A kernel reading (and reducing) a buffer the size of one of the copy roof's,
 * with 16-byte loads, every SM full; L2 flushed before each sample; GB/s. */
double gpu_read_roof_gbs(const struct gpu_info *g);

/* Random 4-byte reads from a table that stays in a cache: a quarter of the L2
 * (rounded down to a power of two), or 16 KiB (fits the L1 of any carveout);
 * one lookup per read, in 1e9 lookups/s. */
double gpu_l2_gather_roof(const struct gpu_info *g);
double gpu_l1_gather_roof(const struct gpu_info *g);

/* cudaMemcpyAsync of 256 MiB of pinned host memory: host to device, device to
 * host, or both at once on two streams (bytes of both directions); GB/s. */
enum link_dir { LINK_H2D, LINK_D2H, LINK_DUPLEX };
double gpu_link_roof_gbs(const struct gpu_info *g, enum link_dir d);

/* Empty kernels (1 block of 1 thread) back to back on one stream, launched
 * one by one from the host or as one CUDA graph of as many kernel nodes; in
 * 1e3 launches/s. */
double gpu_launch_roof_klps(int graph);

/* Derived from the guide and the SM clock measured in the run (MHz). */

/* Shared memory: 32 banks, each 32 bits wide, each serving one access per
 * clock ("Shared Memory" of the compute capability 5.x+ sections): 32 4-byte
 * lookups per clock per SM; in 1e9 lookups/s. */
double shared_lookup_roof(const struct gpu_info *g, double sm_clock_mhz);

/* Instruction issue: 4 warp schedulers per SM, each issuing one warp
 * instruction per clock (compute capabilities 7.x to 12.x); in 1e9 warp
 * instructions/s. */
double issue_roof(const struct gpu_info *g, double sm_clock_mhz);

#endif
