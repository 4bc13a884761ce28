/* Chapter 34, library bar: CUB's warp-level merge sort (cub::WarpMergeSort,
 * header-only, part of the CUDA Toolkit), one warp a group of 32 keys, one key
 * a lane, over the same resident grid as the pair. CUB's device-wide
 * DeviceSegmentedSort would be the first choice, but past 500 segments (its
 * tuning for sm_60 and later) it copies the sizes of its two groups of
 * segments to the host and synchronizes the stream (cub/device/dispatch/
 * dispatch_segmented_sort.cuh, without relocatable device code), which a
 * stream capture refuses. Its own kernels sort short segments with merge
 * sorts of a warp or part of one; cub::WarpMergeSort is that sort, offered
 * for segments of one fixed, small length. */
#include "problem.h"
#include "cuda_check.h"

#include <cub/warp/warp_merge_sort.cuh>

typedef cub::WarpMergeSort<unsigned, 1, GROUP> WarpSort;

struct less_than {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

/* Each warp loops over its own groups: CUB's sort waits for the warp's lanes
 * alone, so a warp may stop when its groups run out. */
__global__ void __launch_bounds__(1024) warp_sort_kernel(unsigned *out, const unsigned *__restrict__ in,
                                                          long n, long groups)
{
    extern __shared__ unsigned char storage[]; /* one WarpSort::TempStorage a warp */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    WarpSort::TempStorage *mine = (WarpSort::TempStorage *)storage + warp;
    long warps = blockDim.x / 32;
    for (long g = (long)blockIdx.x * warps + warp; g < groups; g += (long)gridDim.x * warps) {
        long i = g * GROUP + lane;
        unsigned key[1] = {i < n ? in[i] : 0xffffffffu}; /* padding: the largest key sorts last */
        WarpSort(*mine).Sort(key, less_than());
        if (i < n)
            out[i] = key[0];
    }
}

static void prepare(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    r->grid = resident_grid((const void *)warp_sort_kernel, r->warps, sizeof(WarpSort::TempStorage));
}

static void run(void *data, cudaStream_t s)
{
    struct group_sort *r = (struct group_sort *)data;
    size_t smem = (size_t)r->warps * sizeof(WarpSort::TempStorage);
    warp_sort_kernel<<<r->grid, (unsigned)r->warps * 32, smem, s>>>(r->out, r->in, r->n, r->groups);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
