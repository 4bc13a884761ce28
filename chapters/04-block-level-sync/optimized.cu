/* Chapter 04, optimized: softmax in one kernel. Block r works on row r from
 * start to end, so its threads share the row's max and sum through shared
 * memory and __syncthreads() (inside block_max and block_sum) and never
 * through global memory. The row waits in shared memory between the steps:
 * global memory sees one read and one write per element. */
#include "problem.h"
#include "block_reduce.h"
#include "cuda_check.h"

// [kernel]
/* All three steps; the row is read from global memory once. */
__global__ void softmax_kernel(float *out, const float *in, long n)
{
    extern __shared__ float row[]; /* the block's row, n floats */
    __shared__ float part[32]; /* one value per warp, for block_max and block_sum */
    const float *x = in + blockIdx.x * n;
    float *y = out + blockIdx.x * n;

    float m = -INFINITY;
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        row[j] = x[j];
        m = fmaxf(m, row[j]);
    }
    m = block_max(m, part);

    float s = 0.0f;
    for (long j = threadIdx.x; j < n; j += blockDim.x)
        s += expf(row[j] - m);
    s = block_sum(s, part);

    for (long j = threadIdx.x; j < n; j += blockDim.x)
        y[j] = expf(row[j] - m) / s;
}
// [kernel]

/* Rows longer than 12288 floats need more than the default 48 KB of dynamic
 * shared memory per block; an H100 or H200 allows up to 227 KB when asked. */
static void prepare(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFuncSetAttribute(softmax_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)(t->n * sizeof(float))));
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct softmax *t = (struct softmax *)data;
    unsigned rows = (unsigned)t->n;
    /* One block per row, its row in dynamic shared memory; one launch. */
    softmax_kernel<<<rows, t->threads, t->n * sizeof(float), s>>>(t->out, t->in, t->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
