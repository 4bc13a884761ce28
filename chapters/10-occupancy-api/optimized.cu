/* Chapter 10, optimized: cudaOccupancyMaxPotentialBlockSize looks at the
 * kernel's registers, its shared memory and the SM's limits, and returns the
 * block size that lets the most warps be resident; the launch uses it. */
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
    int min_grid; /* blocks that would fill every SM; unused: the grid has a thread per lookup */
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &g->block, gather_kernel, g->smem));
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
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
