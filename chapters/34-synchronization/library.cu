/* Chapter 34, library bar: CUB's cub::DeviceSegmentedSort::SortKeys (header-
 * only, part of the CUDA Toolkit) over the same groups, one segment a group of
 * 32 keys (the last one short). Its segment offsets (groups + 1 ints, which it
 * reads besides the keys) and its temporary storage are made once, before the
 * timing. */
#include "problem.h"
#include "cuda_check.h"

#include <cub/device/device_segmented_sort.cuh>

__global__ void offsets_kernel(int *offsets, long groups, long n)
{
    long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g <= groups)
        offsets[g] = (int)(g * GROUP < n ? g * GROUP : n);
}

static void prepare(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    r->offsets = (int *)device_alloc((size_t)(r->groups + 1) * sizeof(int));
    offsets_kernel<<<(unsigned)((r->groups + 256) / 256), 256>>>(r->offsets, r->groups, r->n);
    CHECK_LAUNCH();
    /* With no storage given, CUB only says how much it needs. */
    CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(NULL, r->temp_bytes, r->in, r->out, r->n, r->groups,
                                                  r->offsets, r->offsets + 1));
    r->temp = device_alloc(r->temp_bytes > 0 ? r->temp_bytes : 1);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void run(void *data, cudaStream_t s)
{
    struct group_sort *r = (struct group_sort *)data;
    CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(r->temp, r->temp_bytes, r->in, r->out, r->n, r->groups,
                                                  r->offsets, r->offsets + 1, s));
}

static void release(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    CUDA_CHECK(cudaFree(r->temp));
    CUDA_CHECK(cudaFree(r->offsets));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
