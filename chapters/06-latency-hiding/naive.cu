/* Chapter 06, naive: one block of 32 threads per SM, a single warp. Each
 * iteration of its loop waits for one load from DRAM before it can store and
 * load again, and there is no other warp on the SM to issue in the meantime:
 * the SM spends nearly all its time waiting on memory latency. */
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
    /* One warp per SM: a block of 32 threads for each multiprocessor. */
    int threads = 32, blocks = t->sms;
    scale_kernel<<<blocks, threads, 0, s>>>(t->y, t->x, SCALE, t->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
