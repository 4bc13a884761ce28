/* Chapter 34: what naive.cu, optimized.cu and library.cu share. The input is n keys
 * (unsigned ints) in groups of 32; the output is every group sorted, in its
 * own place. A warp sorts one group, one key a lane, through 32 slots of
 * shared memory that belong to that warp alone. The two programs differ only
 * in the barrier between a warp's writes to its slots and its reads. */
#ifndef SYNCHRONIZATION_PROBLEM_H
#define SYNCHRONIZATION_PROBLEM_H

#include "chapter.h"

#define GROUP 32    /* keys in a group: one a lane of a warp */
#define KEY_BITS 32 /* passes of the split: one a bit, least significant first */

struct group_sort {
    long n;             /* --size: keys */
    long groups;        /* ceil(n / GROUP): the last group may be short */
    long warps;         /* --warps: warps a block, each sorting its own groups */
    unsigned grid;      /* blocks: as many as fit on the GPU at once, each loops over the groups */
    const unsigned *in; /* device input */
    unsigned *out;      /* device output */
    unsigned *want;     /* host: every group sorted */
};

extern const struct problem PROBLEM;

/* Blocks for a launch of kernel with warps warps a block and bytes_a_warp of
 * shared memory each: as many as the GPU holds at once. */
unsigned resident_grid(const void *kernel, long warps, size_t bytes_a_warp);

#ifdef __CUDACC__
// [split]
/* Where key goes in its group after the split on bit b: the keys whose bit is
 * 0 first, then those whose bit is 1, each side in lane order (a stable split,
 * so that 32 of them, bit 0 to bit 31, sort the group). The ballot gives every
 * lane the 32 bits at once. A 0 goes to its lane less the 1s of the lanes
 * before it; a 1 to the top slot less the 1s of the lanes after it. Every lane
 * gets a different place, 0 to 31, for one POPC. */
static __device__ __forceinline__ unsigned split_place(unsigned key, int b, unsigned lane)
{
    unsigned bit = (key >> b) & 1;
    unsigned ones = __ballot_sync(0xffffffffu, bit);
    unsigned before = (1u << lane) - 1, after = ~before << 1;
    unsigned count = __popc(ones & (bit ? after : before));
    return bit ? GROUP - 1 - count : lane - count;
}
// [split]
#endif

#endif
