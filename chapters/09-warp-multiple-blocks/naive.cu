/* Chapter 09, naive: blocks of 48 threads. A block is split into warps of 32,
 * so each block is one full warp and one warp with 16 of its 32 lanes idle:
 * the SM issues 2 warp instructions for every 48 threads' worth of work. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void map_kernel(float *out, const float *in, long n, int iters)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
#pragma unroll 16
    for (int j = 0; j < iters; j++)
        x = fmaf(x, x, -MAP_C);
    out[i] = x;
}
// [kernel]

// [launch]
#define BLOCK 48 /* 1.5 warps: rounded up to 2 warps, 64 lanes for 48 threads */

static void run(void *data, cudaStream_t s)
{
    struct quadmap *q = (struct quadmap *)data;
    int block = block_size(q, BLOCK);
    unsigned grid = (unsigned)((q->n + block - 1) / block);
    map_kernel<<<grid, block, 0, s>>>(q->out, q->in, q->n, q->iters);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
