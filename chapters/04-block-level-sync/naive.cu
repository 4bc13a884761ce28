/* Chapter 04, naive: softmax with no cooperation inside a block. A row's max
 * and sum depend on every element of the row, so whatever threads must tell
 * each other goes through global memory and waits for the next launch: each
 * launch halves the partial rows (one launch per level of a pairwise tree),
 * and a last kernel reads the finished max and sum back to normalize. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* One level of the row-max tree. Each partial row of width w becomes
 * ceil(w / 2) wide: element j keeps the larger of j and j + ceil(w / 2). One
 * thread per output element, numbered across all rows (the index fits in 32
 * bits up to the largest size). Working in place is safe: thread j alone
 * reads and writes element j, and nothing at or past the new width, where
 * the second operands come from, is written. */
__global__ void row_max_level(float *dst, long dst_stride, const float *src, long src_stride,
                              long rows, long w)
{
    unsigned h = (unsigned)half_width(w);
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * h)
        return;
    unsigned r = i / h, j = i - r * h;
    float v = src[r * src_stride + j];
    if (j + h < w)
        v = fmaxf(v, src[r * src_stride + j + h]);
    dst[r * dst_stride + j] = v;
}

/* The first level of the row-sum tree: reads the input and its row's max. */
__global__ void row_exp_sum_level(float *dst, long dst_stride, const float *x, long n,
                                  const float *row_max, long max_stride)
{
    unsigned h = (unsigned)half_width(n);
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * h)
        return;
    unsigned r = i / h, j = i - r * h;
    float m = row_max[r * max_stride];
    float v = expf(x[r * n + j] - m);
    if (j + h < n)
        v += expf(x[r * n + j + h] - m);
    dst[r * dst_stride + j] = v;
}

/* The other levels of the row-sum tree, like row_max_level. */
__global__ void row_sum_level(float *dst, long dst_stride, const float *src, long src_stride,
                              long rows, long w)
{
    unsigned h = (unsigned)half_width(w);
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * h)
        return;
    unsigned r = i / h, j = i - r * h;
    float v = src[r * src_stride + j];
    if (j + h < w)
        v += src[r * src_stride + j + h];
    dst[r * dst_stride + j] = v;
}

/* Step 3: every element reads its row's max and sum back from global memory. */
__global__ void normalize(float *out, const float *x, const float *row_max,
                          const float *row_sum, long stride, long n)
{
    long r = blockIdx.y, j = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (j < n)
        out[r * n + j] = expf(x[r * n + j] - row_max[r * stride]) / row_sum[r * stride];
}
// [kernel]

/* Blocks for one thread per element of an n-row level of width ceil(w / 2). */
static unsigned level_blocks(long rows, long w, int threads)
{
    return (unsigned)((rows * half_width(w) + threads - 1) / threads);
}

static void prepare(void *data)
{
    struct softmax *t = (struct softmax *)data;
    size_t bytes = (size_t)t->n * (size_t)half_width(t->n) * sizeof(float);
    t->part_max = (float *)device_alloc(bytes);
    t->part_sum = (float *)device_alloc(bytes);
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct softmax *t = (struct softmax *)data;
    long n = t->n, stride = half_width(n);
    int threads = t->threads;
    /* Step 1, row max: the first level reads the input, the later ones halve
     * the partial rows in place, until column 0 holds each row's max. */
    row_max_level<<<level_blocks(n, n, threads), threads, 0, s>>>(t->part_max, stride, t->in,
                                                                  n, n, n);
    CHECK_LAUNCH();
    for (long w = half_width(n); w > 1; w = half_width(w)) {
        row_max_level<<<level_blocks(n, w, threads), threads, 0, s>>>(t->part_max, stride,
                                                                      t->part_max, stride, n, w);
        CHECK_LAUNCH();
    }
    /* Step 2, row sum of exp(x - max), the same way. */
    row_exp_sum_level<<<level_blocks(n, n, threads), threads, 0, s>>>(t->part_sum, stride, t->in,
                                                                      n, t->part_max, stride);
    CHECK_LAUNCH();
    for (long w = half_width(n); w > 1; w = half_width(w)) {
        row_sum_level<<<level_blocks(n, w, threads), threads, 0, s>>>(t->part_sum, stride,
                                                                      t->part_sum, stride, n, w);
        CHECK_LAUNCH();
    }
    /* Step 3: one thread per element. */
    dim3 grid((unsigned)((n + threads - 1) / threads), (unsigned)n);
    normalize<<<grid, threads, 0, s>>>(t->out, t->in, t->part_max, t->part_sum, stride, n);
    CHECK_LAUNCH();
}
// [launch]

static void release(void *data)
{
    struct softmax *t = (struct softmax *)data;
    CUDA_CHECK(cudaFree(t->part_max));
    CUDA_CHECK(cudaFree(t->part_sum));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
