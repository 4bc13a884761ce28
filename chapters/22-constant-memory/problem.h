/* Chapter 22: what naive.cu and optimized.cu share. */
#ifndef CONSTANT_MEMORY_PROBLEM_H
#define CONSTANT_MEMORY_PROBLEM_H

#include "chapter.h"

/* Each element sums LOOKUPS entries of a table of --entries floats (256 by
 * default, 1 KB: small enough that every lookup hits the SM's constant cache,
 * which the uniform case's cost against smaller tables shows; the sweep's
 * larger tables show where it stops fitting), at indices key, key + STEP,
 * key + 2 STEP, ... modulo the table size: 32 lookups per 8 bytes of DRAM
 * traffic, so the lookups, not DRAM, set the pace. STEP is odd and larger than
 * a cache line's worth of floats, so one thread's lookups land on different
 * lines. */
#define LOOKUPS 32
#define STEP 129
#define MIN_ENTRIES 64   /* 256 B: the smallest table the sweep times */
#define MAX_ENTRIES 8192 /* 32 KB: half of the 64 KB constant space */
#define BLOCK 256
#define BLOCKS_PER_SM 8  /* 8 x 256 threads: a full H100 SM */

struct lookup {
    long n;          /* elements */
    int entries;     /* --entries: table size, a power of two */
    int spread;      /* --spread: distinct keys among the 32 threads of a warp */
    int from_global; /* --table 1: the optimized program reads the global copy */
    unsigned grid;   /* blocks: BLOCKS_PER_SM per SM, a grid-stride loop over n */
    int *keys;       /* device keys, one per element */
    float *out;      /* device output */
    float *table;    /* device copy of the table in global memory */
    int *h_keys;     /* host copies, for the reference */
    float *h_table;
};

extern const struct problem PROBLEM;

#endif
