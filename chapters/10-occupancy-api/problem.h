/* Chapter 10: what naive.cu and optimized.cu share. */
#ifndef OCCUPANCY_API_PROBLEM_H
#define OCCUPANCY_API_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "chapter.h"
#include "pool.h"

/* Each block copies a TABLE-entry float table (32 KB) into its shared memory
 * and serves every lookup of its CHUNK elements from there: a fixed cost in
 * shared memory per block, whatever the block size. That is the resource
 * that makes the block size matter: an SM's 228 KB hold 6 such blocks, so
 * 6 blocks of one warp leave the SM nearly empty. */
#define TABLE 8192
#define TABLE_BYTES (TABLE * sizeof(float))
#define CHUNK 4096 /* elements per block, in both programs: the same blocks, the same work */

struct walk {
    long n;           /* elements: out[i] = the sum of a walk of `steps` lookups from in[i] */
    int steps;        /* --steps: dependent lookups per element */
    int hand_block;   /* --block: the block size the naive program hard-codes */
    int block;        /* the block size the program settled on in prepare() */
    uint32_t *in;     /* device: each element's start */
    float *table;     /* device: the table each block copies into shared memory */
    float *out;       /* device output */
    float *h_table;   /* host copies, for the reference */
    uint32_t *values; /* the distinct starts; element i starts at values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
};

extern const struct problem PROBLEM;

/* The walk of one element, in both kernels and in the CPU reference: each
 * step reads the table at the walker's position, adds the value, and moves
 * the walker by a hash of the value just read, so the next read waits for
 * this one. */
__host__ __device__ static inline uint32_t walk_next(uint32_t x, float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return x * 1664525u + b;
}

static inline unsigned walk_grid(long n) { return (unsigned)((n + CHUNK - 1) / CHUNK); }

/* Print, and record as evidence (host: rows of the program's variant, which
 * the README's occupancy lines read), what
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor predicts for this kernel at
 * this block size with the table in shared memory: blocks, warps and
 * occupancy per SM. */
void report_occupancy(const void *kernel, int block);

#endif
