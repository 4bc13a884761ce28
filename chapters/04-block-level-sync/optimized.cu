/* Chapter 04, optimized: one block per row, one launch. The threads of a row
 * are one block, so they can share the row's max and sum through shared
 * memory and __syncthreads() inside the kernel: the row is read from global
 * memory once, written once, and no partial result leaves the chip. */
#include "problem.h"
#include "cuda_check.h"

#include <math.h>

// [kernel]
#define FULL_WARP 0xffffffffu

/* Within a warp, lanes trade values through registers with shuffles. */
__device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

/* Across the warps of a block: each warp leaves its result in shared memory,
 * a barrier makes them all visible, and every warp reduces the lot, so every
 * thread returns the block's max. The second barrier keeps part[] from being
 * overwritten by the next reduction while a slow warp still reads it. */
__device__ float block_max(float v, float *part)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = lane < (int)blockDim.x / 32 ? part[lane] : -INFINITY;
    v = warp_max(v);
    __syncthreads();
    return v;
}

__device__ float block_sum(float v, float *part)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = lane < (int)blockDim.x / 32 ? part[lane] : 0.0f;
    v = warp_sum(v);
    __syncthreads();
    return v;
}

/* Block r computes row r. The row waits in shared memory between the passes,
 * so global memory sees one read and one write per element. */
__global__ void softmax_rows(float *out, const float *in, long n)
{
    extern __shared__ float row[]; /* n floats */
    __shared__ float part[32];     /* one value per warp */
    const float *x = in + blockIdx.x * n;
    float *y = out + blockIdx.x * n;

    float m = -INFINITY;
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        float v = x[j];
        row[j] = v;
        m = fmaxf(m, v);
    }
    m = block_max(m, part);

    float s = 0.0f;
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        float e = expf(row[j] - m);
        row[j] = e;
        s += e;
    }
    s = block_sum(s, part);

    for (long j = threadIdx.x; j < n; j += blockDim.x)
        y[j] = row[j] / s;
}
// [kernel]

/* Rows longer than 12288 floats need more than the default 48 KB of dynamic
 * shared memory per block; the H100 allows up to 227 KB when asked. */
static void prepare(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFuncSetAttribute(softmax_rows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)(t->n * sizeof(float))));
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct softmax *t = (struct softmax *)data;
    long n = t->n;
    int threads = t->threads;
    /* One block per row, the row in dynamic shared memory. */
    softmax_rows<<<(unsigned)n, threads, n * sizeof(float), s>>>(t->out, t->in, n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
