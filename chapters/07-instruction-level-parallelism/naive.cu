/* Chapter 07, naive: a grid-stride copy, one float4 per trip around the loop.
 * The store needs the value just loaded, so each warp has one 512-byte load
 * in flight at a time, and a few warps per SM leave DRAM partly idle. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void copy_kernel(float *out, const float *in, long n)
{
    copy_tail(out, in, n); /* first: its registers are free before the loop */
    const float4 *in4 = (const float4 *)in; /* 16-byte accesses on both sides: */
    float4 *out4 = (float4 *)out;           /* the width is not the lesson */
    long n4 = n / 4;
    long stride = (long)gridDim.x * blockDim.x;
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    /* One load, then the store that waits for it: a full memory latency
     * per float4. */
#pragma unroll 1
    for (; i < n4; i += stride)
        out4[i] = in4[i];
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct ilp_copy *c = (struct ilp_copy *)data;
    copy_kernel<<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
