/* Chapter 34, library bar: CUB's cub::DeviceSegmentedReduce::Reduce (header-
 * only, part of the CUDA Toolkit) over the same rows, one segment a row, added
 * as unsigned ints. Its row offsets (rows + 1 ints, which it reads besides the
 * matrix) and its temporary storage are made once, before the timing. */
#include "problem.h"
#include "cuda_check.h"

#include <cub/device/device_segmented_reduce.cuh>

struct add {
    __device__ unsigned operator()(unsigned a, unsigned b) const { return a + b; }
};

__global__ void offsets_kernel(int *offsets, long rows, long cols, long n)
{
    long r = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r <= rows)
        offsets[r] = (int)(r * cols < n ? r * cols : n);
}

static void prepare(void *data)
{
    struct row_sums *r = (struct row_sums *)data;
    r->offsets = (int *)device_alloc((size_t)(r->rows + 1) * sizeof(int));
    offsets_kernel<<<(unsigned)((r->rows + 256) / 256), 256>>>(r->offsets, r->rows, r->cols, r->n);
    CHECK_LAUNCH();
    /* With no storage given, CUB only says how much it needs. */
    CUDA_CHECK(cub::DeviceSegmentedReduce::Reduce(NULL, r->temp_bytes, r->in, r->out, (int)r->rows,
                                                  r->offsets, r->offsets + 1, add(), 0u));
    r->temp = device_alloc(r->temp_bytes > 0 ? r->temp_bytes : 1);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void run(void *data, cudaStream_t s)
{
    struct row_sums *r = (struct row_sums *)data;
    CUDA_CHECK(cub::DeviceSegmentedReduce::Reduce(r->temp, r->temp_bytes, r->in, r->out, (int)r->rows,
                                                  r->offsets, r->offsets + 1, add(), 0u, s));
}

static void release(void *data)
{
    struct row_sums *r = (struct row_sums *)data;
    CUDA_CHECK(cudaFree(r->temp));
    CUDA_CHECK(cudaFree(r->offsets));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
