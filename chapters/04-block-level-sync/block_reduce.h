/* Chapter 04: the in-block reduction both programs use. It is not the lesson:
 * both programs reduce each row inside one block the same way, and what the
 * chapter compares is what happens to the row's max and sum afterwards.
 *
 * Every thread of the block passes its partial value and gets back the
 * block's result. Inside a warp, lanes trade values through registers
 * (__shfl_xor_sync); across warps, each warp leaves its value in part[] (32
 * floats of shared memory) and a barrier makes them visible to all. The block
 * must be a whole number of warps, at most 32 of them (1024 threads). */
#ifndef SOFTMAX_BLOCK_REDUCE_H
#define SOFTMAX_BLOCK_REDUCE_H

#include <math.h>

#define FULL_WARP 0xffffffffu

static __device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

static __device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

// [block_max]
/* The block's max: each warp reduces its 32 values, lane 0 leaves the warp's
 * result in part[], the barrier makes all of them visible, and every warp
 * reduces the lot. The second barrier keeps part[] from being overwritten by
 * a following reduction while a slow warp still reads it. */
static __device__ float block_max(float v, float *part)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = lane < (int)blockDim.x / 32 ? part[lane] : -INFINITY;
    v = warp_max(v);
    __syncthreads();
#ifdef PLANT_MAX_NONE
    v = 0.0f; /* planted bug: no maximum at all (the check must fail; see problem.cu) */
#endif
#ifdef PLANT_MAX_SIGN
    v = -v; /* planted bug: a wrong maximum, the sign lost */
#endif
    return v;
}
// [block_max]

/* The block's sum, the same way. */
static __device__ float block_sum(float v, float *part)
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

#endif
