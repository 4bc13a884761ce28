/* Chapter 34, optimized: each warp adds up its 32 sums with shuffles, which
 * exchange registers inside the warp and need no barrier; the warps' results
 * meet in shared memory behind one __syncthreads(), and the first warp adds
 * them with shuffles again. */
#include "problem.h"
#include "cuda_check.h"

// [reduce]
/* The sum of v over the 32 lanes of a warp, valid in lane 0. */
static __device__ unsigned warp_sum(unsigned v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The block's sum, valid in thread 0. */
static __device__ unsigned block_sum(unsigned v)
{
    __shared__ unsigned partial[THREADS / 32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0)
        v = warp_sum(lane < THREADS / 32 ? partial[lane] : 0);
    return v;
}
// [reduce]

// [kernel]
__global__ void __launch_bounds__(THREADS) sum_kernel(int *out, const int *__restrict__ in, long n)
{
    unsigned total = block_sum(thread_sum(in, n));
    if (threadIdx.x == 0)
        atomicAdd((unsigned *)out, total);
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct reduction *r = (struct reduction *)data;
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof *r->out, s));
    sum_kernel<<<reduction_blocks(r->n, r->items), THREADS, 0, s>>>(r->out, r->in, r->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
