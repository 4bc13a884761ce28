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
    extern __shared__ float4 smem[]; /* the block's row, n floats (and up to 3 spare) */
    __shared__ float part[32]; /* one value per warp, for block_max and block_sum */
    const float *x = in + blockIdx.x * n;
    float *y = out + blockIdx.x * n;
    struct row_split r = split_row(x, n);
    const float4 *xq = (const float4 *)(x + r.head);
    float4 *yq = (float4 *)(y + r.head);
    /* Float j of the row sits at row[j]; the row starts (4 - head) % 4 floats into
     * smem, so that its quads line up with smem's 16-byte quads. */
    float *row = (float *)smem + (4 - r.head) % 4;
    float4 *rowq = (float4 *)(row + r.head);

    float m = -INFINITY;
#pragma unroll 4
    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = xq[q];
        rowq[q] = v;
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    if (threadIdx.x < r.head + r.tail) {
        long j = edge_index(r, threadIdx.x);
        row[j] = x[j];
        m = fmaxf(m, row[j]);
    }
    m = block_max(m, part); /* its barriers also make the whole row visible */

    float s = 0.0f;
    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = rowq[q];
        s += exp_shifted(v.x, m);
        s += exp_shifted(v.y, m);
        s += exp_shifted(v.z, m);
        s += exp_shifted(v.w, m);
    }
    if (threadIdx.x < r.head + r.tail)
        s += exp_shifted(row[edge_index(r, threadIdx.x)], m);
    s = block_sum(s, part);

    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = rowq[q];
        yq[q] = make_float4(exp_shifted(v.x, m) / s, exp_shifted(v.y, m) / s,
                            exp_shifted(v.z, m) / s, exp_shifted(v.w, m) / s);
    }
    if (threadIdx.x < r.head + r.tail) {
        long j = edge_index(r, threadIdx.x);
        y[j] = exp_shifted(row[j], m) / s;
    }
}
// [kernel]

/* The row and up to 3 floats of alignment: rows longer than 12285 floats need
 * more than the default 48 KB of dynamic shared memory per block; an H100 or
 * H200 allows up to 227 KB when asked. */
static size_t row_bytes(long n) { return (size_t)(n + 3) * sizeof(float); }

static void prepare(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFuncSetAttribute(softmax_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)row_bytes(t->n)));
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct softmax *t = (struct softmax *)data;
    unsigned rows = (unsigned)t->n;
    /* One block per row, its row in dynamic shared memory; one launch. */
    softmax_kernel<<<rows, t->threads, row_bytes(t->n), s>>>(t->out, t->in, t->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
