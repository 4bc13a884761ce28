/* Chapter 34: what naive.cu, optimized.cu and library.cu share. The input is
 * a matrix of bytes, --cols to a row; the output is one sum per row, each in
 * its own slot. The two programs of the pair share their grid, their loads
 * (load_rows below) and their stores; they differ only in how a block adds up
 * its threads' values for one row (block_sum). */
#ifndef SYNCHRONIZATION_PROBLEM_H
#define SYNCHRONIZATION_PROBLEM_H

#include "chapter.h"

#define THREADS 256 /* threads per block, both programs */
#define DEPTH 8     /* rows whose loads a block issues before it reduces the first */
/* Blocks per SM both kernels are compiled for (__launch_bounds__): 40
 * registers a thread, what the tree needs unconstrained, so both programs run
 * 6 blocks (48 warps) per SM; at 8 the shuffle version spills. */
#define MIN_BLOCKS 6

struct row_sums {
    long n;             /* --size: bytes of the matrix */
    long cols;          /* --cols: bytes in a row, a multiple of THREADS */
    long rows;          /* ceil(n / cols): the last row may be short */
    unsigned grid;      /* blocks: as many as fit on the GPU at once, each loops over rows */
    const unsigned char *in; /* device input */
    unsigned *out;      /* device output: one sum per row */
    unsigned *want;     /* host: the exact sums */
    int *offsets;       /* library.cu: row starts, rows + 1 of them */
    void *temp;         /* library.cu: CUB's temporary storage */
    size_t temp_bytes;
};

extern const struct problem PROBLEM;

/* Blocks for a launch of kernel (THREADS a block): as many as the GPU holds at
 * once (the occupancy API's blocks per SM times the SMs). Every block starts
 * at once and loops over the rows, so no block is launched per row and none
 * waits for a free SM. */
unsigned resident_grid(const void *kernel);

#ifdef __CUDACC__
// [load]
/* Thread threadIdx.x's share of DEPTH rows, from row r0 on: the bytes
 * threadIdx.x, threadIdx.x + THREADS, ... of each row, added. The loads of
 * the DEPTH rows are independent and issued together (k outermost), so a
 * thread keeps DEPTH loads in flight and a block waits out one memory latency
 * per DEPTH rows, not per row. Bytes past the end of the matrix count 0. */
static __device__ __forceinline__ void load_rows(unsigned v[DEPTH], const unsigned char *__restrict__ in,
                                                 long n, long cols, long r0)
{
#pragma unroll
    for (int d = 0; d < DEPTH; d++)
        v[d] = 0;
    for (long k = threadIdx.x; k < cols; k += THREADS) {
        unsigned char b[DEPTH];
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
            /* Rows r0 + d past the last (r0 + d >= rows) give i >= n and
             * count 0. Every i, theirs included, is below 2^31 at the sizes
             * the program accepts (problem.cu, max_size). */
            long i = (r0 + d) * cols + k;
            b[d] = i < n ? in[i] : 0;
        }
#pragma unroll
        for (int d = 0; d < DEPTH; d++)
            v[d] += b[d];
    }
}
// [load]
#endif

#endif
