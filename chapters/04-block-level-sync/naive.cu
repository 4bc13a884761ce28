/* Chapter 04, naive: softmax in three kernels, one per step. Block r works on
 * row r in each of them, but a block's threads share a value only until the
 * kernel ends: the row's max and its sum leave the chip, go to global memory,
 * and the next kernel reads them back, together with the whole row again. */
#include "problem.h"
#include "block_reduce.h"
#include "cuda_check.h"

// [kernel]
/* Step 1: each row's max, to global memory. */
__global__ void row_max_kernel(float *row_max, const float *in, long n)
{
    __shared__ float part[32]; /* one value per warp, for block_max */
    const float *x = in + blockIdx.x * n;
    struct row_split r = split_row(x, n);
    const float4 *xq = (const float4 *)(x + r.head);

    float m = -INFINITY;
#pragma unroll 4
    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = xq[q];
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    if (threadIdx.x < r.head + r.tail)
        m = fmaxf(m, x[edge_index(r, threadIdx.x)]);
    m = block_max(m, part);
    if (threadIdx.x == 0)
        row_max[blockIdx.x] = m;
}

/* Step 2: each row's sum of exp(x - max), reading the row again. */
__global__ void row_sum_kernel(float *row_sum, const float *in, const float *row_max, long n)
{
    __shared__ float part[32];
    const float *x = in + blockIdx.x * n;
    struct row_split r = split_row(x, n);
    const float4 *xq = (const float4 *)(x + r.head);
    float m = row_max[blockIdx.x];

    float s = 0.0f;
#pragma unroll 4
    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = xq[q];
        s += exp_shifted(v.x, m);
        s += exp_shifted(v.y, m);
        s += exp_shifted(v.z, m);
        s += exp_shifted(v.w, m);
    }
    if (threadIdx.x < r.head + r.tail)
        s += exp_shifted(x[edge_index(r, threadIdx.x)], m);
    s = block_sum(s, part);
    if (threadIdx.x == 0)
        row_sum[blockIdx.x] = s;
}

/* Step 3: normalize, reading the row a third time. */
__global__ void normalize_kernel(float *out, const float *in, const float *row_max,
                                 const float *row_sum, long n)
{
    const float *x = in + blockIdx.x * n;
    float *y = out + blockIdx.x * n;
    struct row_split r = split_row(x, n);
    const float4 *xq = (const float4 *)(x + r.head);
    float4 *yq = (float4 *)(y + r.head);
    float m = row_max[blockIdx.x], s = row_sum[blockIdx.x];

#pragma unroll 4
    for (long q = threadIdx.x; q < r.quads; q += blockDim.x) {
        float4 v = xq[q];
        yq[q] = make_float4(exp_shifted(v.x, m) / s, exp_shifted(v.y, m) / s,
                            exp_shifted(v.z, m) / s, exp_shifted(v.w, m) / s);
    }
    if (threadIdx.x < r.head + r.tail) {
        long j = edge_index(r, threadIdx.x);
        y[j] = exp_shifted(x[j], m) / s;
    }
}
// [kernel]

/* The row maxima and sums that pass from one kernel to the next. */
static void prepare(void *data)
{
    struct softmax *t = (struct softmax *)data;
    t->row_max = (float *)device_alloc((size_t)t->n * sizeof(float));
    t->row_sum = (float *)device_alloc((size_t)t->n * sizeof(float));
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct softmax *t = (struct softmax *)data;
    unsigned rows = (unsigned)t->n;
    /* One block per row in every step; each launch waits for the one before. */
    row_max_kernel<<<rows, t->threads, 0, s>>>(t->row_max, t->in, t->n);
    CHECK_LAUNCH();
    row_sum_kernel<<<rows, t->threads, 0, s>>>(t->row_sum, t->in, t->row_max, t->n);
    CHECK_LAUNCH();
    normalize_kernel<<<rows, t->threads, 0, s>>>(t->out, t->in, t->row_max, t->row_sum, t->n);
    CHECK_LAUNCH();
}
// [launch]

static void release(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFree(t->row_max));
    CUDA_CHECK(cudaFree(t->row_sum));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
