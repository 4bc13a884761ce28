/* Chapter 34, library bar: CUB's warp-level merge sort (cub::WarpMergeSort,
 * header-only, part of the CUDA Toolkit) in the shape CUB's own tuning for
 * sm_90 gives a segment of 32 keys (16 lanes, up to 7 keys each: here 2), so
 * that a warp sorts two groups at once, over the same resident grid as the
 * pair. CUB's device-wide DeviceSegmentedSort would be the first choice, but
 * past 500 segments (its tuning for sm_60 and later) its host code copies the
 * sizes of its two groups of segments to the host and synchronizes the stream
 * (cub/device/dispatch/dispatch_segmented_sort.cuh), which a stream capture
 * refuses. */
#include "problem.h"
#include "cuda_check.h"

#include <cub/warp/warp_merge_sort.cuh>

#define LANES 16             /* lanes a group, as CUB's tuning has it */
#define KEYS (GROUP / LANES) /* keys a lane, side by side in the group */
typedef cub::WarpMergeSort<unsigned, KEYS, LANES> WarpSort;

struct less_than {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

/* Each half-warp loops over its own groups: CUB's sort waits for its own
 * lanes alone, so it may stop when its groups run out. */
__global__ void __launch_bounds__(1024) warp_sort_kernel(unsigned *out, const unsigned *__restrict__ in,
                                                          long n, long groups)
{
    extern __shared__ unsigned char storage[]; /* one WarpSort::TempStorage a half-warp */
    unsigned lane = threadIdx.x % LANES, sorter = threadIdx.x / LANES;
    WarpSort::TempStorage *mine = (WarpSort::TempStorage *)storage + sorter;
    long sorters = blockDim.x / LANES;
    for (long g = (long)blockIdx.x * sorters + sorter; g < groups; g += (long)gridDim.x * sorters) {
        long i = g * GROUP + (long)lane * KEYS;
        unsigned key[KEYS];
#pragma unroll
        for (int k = 0; k < KEYS; k++) /* padding: the largest key sorts last */
            key[k] = i + k < n ? in[i + k] : 0xffffffffu;
        WarpSort(*mine).Sort(key, less_than());
#pragma unroll
        for (int k = 0; k < KEYS; k++)
            if (i + k < n)
                out[i + k] = key[k];
    }
}

static void prepare(void *data)
{
    struct group_sort *r = (struct group_sort *)data;
    r->grid = resident_grid((const void *)warp_sort_kernel, r->warps, 32 / LANES * sizeof(WarpSort::TempStorage));
}

static void run(void *data, cudaStream_t s)
{
    struct group_sort *r = (struct group_sort *)data;
    size_t smem = (size_t)r->warps * (32 / LANES) * sizeof(WarpSort::TempStorage);
    warp_sort_kernel<<<r->grid, (unsigned)r->warps * 32, smem, s>>>(r->out, r->in, r->n, r->groups);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* other_work: the rate credits a group the pair's 469 instructions, not the merge sort's. */
    static const struct variant v = {.name = "library", .run = run, .prepare = prepare, .other_work = 1};
    return run_variant(argc, argv, &PROBLEM, &v);
}
