/* Chapter 01, naive: the computation written one array operation at a time,
 * the way an array library (or a first port of one) runs it: three kernels,
 * each reading its input from global memory and writing its result back. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* z = fmaf(SCALE, x, SHIFT) */
__global__ void scale_kernel(float *out, const float *in, long n)
{
    long q = blockIdx.x * (long)BLOCK + threadIdx.x; /* this thread's quad */
    if (q < quads(n)) {
        struct quad v = load_quad(in, q, n);
#pragma unroll
        for (int k = 0; k < 4; k++)
            v.f[k] = fmaf(SCALE, v.f[k], SHIFT);
        store_quad(out, q, n, v);
    }
}

/* e = exp(-z) */
__global__ void exp_kernel(float *out, const float *in, long n, int fast_exp)
{
    long q = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (q < quads(n)) {
        struct quad v = load_quad(in, q, n);
#pragma unroll
        for (int k = 0; k < 4; k++)
            v.f[k] = exp_of(-v.f[k], fast_exp);
        store_quad(out, q, n, v);
    }
}

/* y = 1 / (1 + e) */
__global__ void logistic_kernel(float *out, const float *in, long n)
{
    long q = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (q < quads(n)) {
        struct quad v = load_quad(in, q, n);
#pragma unroll
        for (int k = 0; k < 4; k++)
            v.f[k] = 1.0f / (1.0f + v.f[k]);
        store_quad(out, q, n, v);
    }
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
