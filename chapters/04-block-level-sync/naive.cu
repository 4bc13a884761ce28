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

    float m = -INFINITY;
    for (long j = threadIdx.x; j < n; j += blockDim.x)
        m = fmaxf(m, x[j]);
    m = block_max(m, part);
    if (threadIdx.x == 0)
        row_max[blockIdx.x] = m;
}

/* Step 2: each row's sum of exp(x - max), reading the row again. */
__global__ void row_sum_kernel(float *row_sum, const float *in, const float *row_max, long n)
{
    __shared__ float part[32];
    const float *x = in + blockIdx.x * n;
    float m = row_max[blockIdx.x];

    float s = 0.0f;
    for (long j = threadIdx.x; j < n; j += blockDim.x)
        s += expf(x[j] - m);
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
    float m = row_max[blockIdx.x], s = row_sum[blockIdx.x];

    for (long j = threadIdx.x; j < n; j += blockDim.x)
        y[j] = expf(x[j] - m) / s;
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
