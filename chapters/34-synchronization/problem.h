/* Chapter 34: what naive.cu, optimized.cu and library.cu share. The two
 * programs of the pair share their global loads (thread_sum below) and their
 * launch; they differ only in how a block adds up its threads' sums. */
#ifndef SYNCHRONIZATION_PROBLEM_H
#define SYNCHRONIZATION_PROBLEM_H

#include "chapter.h"

#define THREADS 256 /* threads per block, both programs */
#define UNROLL 4    /* int4 loads a thread issues before it adds any of them */

struct reduction {
    long n;             /* --size: ints to add */
    int items;          /* --items: ints per thread, which sets the grid */
    int *in;            /* device input */
    int *out;           /* device output: one int, the sum modulo 2^32 */
    long long exact;    /* the exact sum, from the host */
    void *temp;         /* library.cu: CUB's temporary storage */
    size_t temp_bytes;
};

extern const struct problem PROBLEM;

/* Blocks of the launch: enough for every thread to get `items` ints. */
static inline unsigned reduction_blocks(long n, int items)
{
    long per_block = (long)THREADS * items;
    long blocks = (n + per_block - 1) / per_block;
    return (unsigned)(blocks > 0 ? blocks : 1);
}

#ifdef __CUDACC__
// [load]
/* One thread's share of the sum, the same in both programs. Grid-stride over
 * the input as int4 (16 bytes a load), UNROLL loads issued before any is
 * added so that each thread keeps 64 bytes in flight, then the last n % 4 ints.
 * Unsigned adds: 32-bit overflow wraps, as the C++ standard defines it for
 * unsigned and not for signed integers. */
static __device__ __forceinline__ unsigned thread_sum(const int *__restrict__ in, long n)
{
    const int4 *in4 = (const int4 *)in;
    long n4 = n / 4;
    long stride = (long)gridDim.x * THREADS;
    long first = (long)blockIdx.x * THREADS + threadIdx.x;
    long i = first;
    unsigned s = 0;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        int4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = in4[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            s += (unsigned)v[u].x + (unsigned)v[u].y + (unsigned)v[u].z + (unsigned)v[u].w;
    }
    for (; i < n4; i += stride) {
        int4 v = in4[i];
        s += (unsigned)v.x + (unsigned)v.y + (unsigned)v.z + (unsigned)v.w;
    }
    if (first < n - 4 * n4)
        s += (unsigned)in[4 * n4 + first];
    return s;
}
// [load]
#endif

#endif
