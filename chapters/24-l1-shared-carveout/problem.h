/* Chapter 24: what naive.cu and optimized.cu share. */
#ifndef CARVEOUT_PROBLEM_H
#define CARVEOUT_PROBLEM_H

#include "chapter.h"

#define BLOCK 256
#define BINS 4096            /* a block's histogram: 16 KB of shared memory */
#define CHUNK (BLOCK * 64)   /* items a block takes from the queue at a time */
#define WINDOWS 128          /* the table: 128 windows of --window KB, at most 8 MB: in the L2 */
#define MAX_WINDOW_KB 64
#define ENTRIES_PER_KB 256   /* 4-byte entries */
#define MAX_BLOCKS_PER_SM 8  /* 2048 threads per SM / BLOCK */

struct gather {
    long n;            /* items: bin = table[window of the item's chunk][key] */
    int carveout;      /* --carveout: optimized.cu's preferred shared-memory share, % */
    int window;        /* --window, in entries: what one chunk gathers from */
    int sms;
    unsigned grid;     /* blocks: as many as fit on the GPU at once (prepare) */
    int *keys;         /* device keys, in [0, window) */
    unsigned *table;   /* device table of bins, WINDOWS x window */
    unsigned *hist;    /* device output: one histogram per block */
    unsigned *next;    /* device work queue: the next chunk to take */
    int *h_keys;       /* host copies, for the reference */
    unsigned *h_table;
};

extern const struct problem PROBLEM;

/* Size the grid from the occupancy API, for the kernel as it is configured
 * now (after any carveout attribute), and print the figures the chapter
 * relies on: the preferred carveout (-1: the driver's default) and the
 * resulting blocks per SM. */
void settle_grid(struct gather *g, const void *kernel, int carveout);

#endif
