/* Chapter 34, naive: each block adds up its threads' sums with a tree in
 * shared memory, halving the active threads at every level and waiting for
 * the whole block with __syncthreads() after each one: 1 + 8 barriers for
 * 256 threads. */
#include "problem.h"
#include "cuda_check.h"

// [reduce]
/* The block's sum, valid in thread 0. */
static __device__ unsigned block_sum(unsigned v)
{
    __shared__ unsigned partial[THREADS];
    partial[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    return partial[0];
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
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
