/* Chapter 32, optimized: the same elements, the same paths, but the path is
 * chosen by the warp's index in the block, (threadIdx.x / 32) % 2, the same for all 32 lanes
 * of a warp. Warps 2p and 2p+1 of a block share the block's elements
 * 64p .. 64p+63: the first takes the even ones, the second the odd ones. No
 * warp diverges; each runs one path with all its lanes. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void heavy_kernel(float *out, const float *in, long n, int iters)
{
    /* 32 lanes, as a constant: warpSize is a value nvcc reads at run time, so dividing by it
     * compiles to a full unsigned division (chapter 29), which this kernel has no need of. */
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    long i = blockIdx.x * (long)blockDim.x + (warp / 2) * 64 + 2 * lane + warp % 2;
    if (i >= n)
        return;
    float x = in[i], y;
    if (warp % 2 == 0) /* the parity of i, now the same for the whole warp */
        y = path_even(x, iters);
    else
        y = path_odd(x, iters);
    out[i] = y;
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct divergence *d = (struct divergence *)data;
    heavy_kernel<<<divergence_grid(d->n), BLOCK, 0, s>>>(d->out, d->in, d->n, d->iters);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
