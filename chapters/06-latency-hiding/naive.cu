/* Chapter 06, naive: the launch a grid-stride loop often gets, one block of
 * 256 threads per SM. That is 8 warps on an SM that can hold 64. Each warp
 * waits for its load from DRAM before it can store and load again, and 8
 * warps per SM keep too few loads in flight to cover that wait: DRAM idles. */
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
    /* A block per SM, of the usual 256 threads: 8 warps per SM. */
    int threads = 256, blocks = t->sms;
    scale_kernel<<<blocks, threads, 0, s>>>(t->y, t->x, SCALE, t->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
