/* Chapter 32, naive: thread t of a block handles element t of the block's
 * range and takes the path of its parity, threadIdx.x % 2. Neighbouring
 * lanes take opposite sides, so every warp diverges: it runs the even path
 * with its odd lanes masked off, then the odd path with its even lanes
 * masked off, and pays for both. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void heavy_kernel(float *out, const float *in, long n, int iters)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], y;
    if (threadIdx.x % 2 == 0) /* the parity of i: BLOCK is even */
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
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
