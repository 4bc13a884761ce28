/* Chapter 01, naive: the computation written one array operation at a time,
 * the way an array library (or a first port of one) runs it: three kernels,
 * each reading its input from global memory and writing its result back. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* z = SCALE * x + SHIFT */
__global__ void scale_kernel(float *out, const float *in, long n)
{
    long i = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (i < n)
        out[i] = SCALE * in[i] + SHIFT;
}

/* e = exp(-z) */
__global__ void exp_kernel(float *out, const float *in, long n, int fast_exp)
{
    long i = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (i < n)
        out[i] = exp_of(-in[i], fast_exp);
}

/* y = 1 / (1 + e) */
__global__ void logistic_kernel(float *out, const float *in, long n)
{
    long i = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (i < n)
        out[i] = 1.0f / (1.0f + in[i]);
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct logistic *p = (struct logistic *)data;
    /* z and e live in y between kernels: each is written to DRAM in full
     * and read back by the next kernel (y is 20x larger than the L2). */
    scale_kernel<<<grid_for(p->n), BLOCK, 0, s>>>(p->y, p->x, p->n);
    CHECK_LAUNCH();
    exp_kernel<<<grid_for(p->n), BLOCK, 0, s>>>(p->y, p->y, p->n, p->fast_exp);
    CHECK_LAUNCH();
    logistic_kernel<<<grid_for(p->n), BLOCK, 0, s>>>(p->y, p->y, p->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
