/* Chapter 10, naive: the block size is hard-coded (--block, 32 by default:
 * one warp per block, as in the guide's own occupancy example). An SM holds
 * at most 32 blocks, so 32-thread blocks fill only half of its 64 warp
 * slots, and half as many lookups are in flight as could be. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void gather_kernel(float *out, const float *table, const int *idx, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = table[idx[i]]; /* a random 4-byte read from a 2 GiB table */
}
// [kernel]

// [launch]
static void prepare(void *data)
{
    struct gather *g = (struct gather *)data;
    g->block = g->hand_block; /* picked by hand */
    print_occupancy((const void *)gather_kernel, g->block, g->smem);
}
// [launch]

static void run(void *data, cudaStream_t s)
{
    struct gather *g = (struct gather *)data;
    unsigned grid = (unsigned)((g->n + g->block - 1) / g->block);
    gather_kernel<<<grid, g->block, g->smem, s>>>(g->out, g->table, g->idx, g->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
