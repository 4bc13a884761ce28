/* Chapter 10: what naive.cu and optimized.cu share. */
#ifndef OCCUPANCY_API_PROBLEM_H
#define OCCUPANCY_API_PROBLEM_H

#include <stddef.h>
#include "chapter.h"

/* The table holds TABLE_PER_LOOKUP entries per lookup, up to TABLE_MAX
 * entries (2 GiB of floats), so that at the default size nearly every lookup
 * misses the 50 MB L2 and goes to DRAM. */
#define TABLE_PER_LOOKUP 32
#define TABLE_MAX (1L << 29)

struct gather {
    long n;         /* lookups: out[i] = table[idx[i]] */
    long entries;   /* table entries */
    int hand_block; /* --block: the block size the naive program hard-codes */
    size_t smem;    /* --smem: dynamic shared memory per block, both programs */
    int block;      /* the block size the program settled on in prepare() */
    float *table;   /* device table */
    int *idx;       /* device indices, uniform in [0, entries) */
    float *out;     /* device output */
    float *h_table; /* host copies, for the reference */
    int *h_idx;
};

extern const struct problem PROBLEM;

/* Print what cudaOccupancyMaxActiveBlocksPerMultiprocessor predicts for this
 * kernel at this block size and shared memory: blocks, warps, threads and
 * occupancy per SM. */
void print_occupancy(const void *kernel, int block, size_t smem);

#endif
