/* Chapter 34, naive: each warp sorts its own groups of 32 keys by 32 splits
 * through its own 32 slots of shared memory, and waits at __syncthreads() on
 * both sides of every exchange: the whole block, 2 x 32 times a group, though
 * no value ever crosses from one warp to another. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* The block's warps take consecutive groups and loop over the groups
 * together (the loop's bound is the block's, not the warp's), so that every
 * warp meets every barrier; a warp past the last group sorts padding. */
__global__ void __launch_bounds__(1024) sort_groups_kernel(unsigned *out, const unsigned *__restrict__ in,
                                                            long n, long groups)
{
    extern __shared__ unsigned slots[]; /* GROUP a warp */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned *mine = slots + warp * GROUP;
    long warps = blockDim.x / 32;
    for (long first = (long)blockIdx.x * warps; first < groups; first += (long)gridDim.x * warps) {
        long i = (first + warp) * GROUP + lane;
        /* Past the last key: the largest key, which sorts last. */
        unsigned key = i < n ? in[i] : 0xffffffffu;
#pragma unroll
        for (int b = 0; b < KEY_BITS; b++) {
            mine[split_place(key, b, lane)] = key;
            __syncthreads(); /* every place written before any is read */
            key = mine[lane];
            __syncthreads(); /* every key read before the next split overwrites it */
        }
        if (i < n)
            out[i] = key;
    }
}
// [kernel]

static void prepare(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    r->grid = resident_grid((const void *)sort_groups_kernel, r->warps, GROUP * sizeof(unsigned));
}

static void run(void *data, cudaStream_t s)
{
    struct group_sort *r = (struct group_sort *)data;
    unsigned threads = (unsigned)r->warps * 32;
    sort_groups_kernel<<<r->grid, threads, threads * sizeof(unsigned), s>>>(r->out, r->in, r->n, r->groups);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
