/* Chapter 06, optimized: the same kernel, launched with enough warps on every
 * SM that while some wait for memory, others have loads to issue. By default
 * 8 blocks of 256 threads per SM: 64 warps, all an H100 SM can hold. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* y = a * x with a grid-stride loop: whatever the launch, each thread walks
 * the array in steps of the whole grid, so every launch does the same work. */
__global__ void scale_kernel(float *y, const float *x, float a, long n)
{
    long stride = (long)gridDim.x * blockDim.x;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i];
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct scale *t = (struct scale *)data;
    /* As many blocks per SM as --warps-per-sm needs (64 warps: 8 of 256). */
    int w = t->warps_per_sm, threads = threads_for(w), blocks = t->sms * blocks_per_sm_for(w);
    scale_kernel<<<blocks, threads, 0, s>>>(t->y, t->x, SCALE, t->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
