/* Chapter 07, optimized: the same grid-stride float4 copy at the same
 * occupancy, but each thread issues ILP independent loads before its first
 * store, so ILP memory latencies overlap instead of following one another. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ILP> /* a compile-time count keeps v[] in registers */
__global__ void copy_kernel(float *out, const float *in, long n)
{
    copy_tail(out, in, n); /* first: its registers are free before the loop */
    long n4 = n / 4;
    long stride = (long)gridDim.x * blockDim.x;
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    /* 16-byte accesses on both sides: the width is not the lesson. src and
     * dst move with i, so the k-th float4 of a trip is k * stride past both,
     * and the stores reuse the loads' offsets (fewer registers). */
    const float4 *src = (const float4 *)in + i;
    float4 *dst = (float4 *)out + i;
    /* ILP loads, then the ILP stores that wait for them: ILP memory
     * latencies overlap. The float4s are `stride` apart, so every load of a
     * warp still reads 32 neighbours (512 bytes, coalesced). The bound on
     * each k lets the last trip keep its loads independent too. */
#pragma unroll 1
    for (; i < n4; i += ILP * stride, src += ILP * stride, dst += ILP * stride) {
        float4 v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            if (i + k * stride < n4)
                v[k] = src[k * stride];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            if (i + k * stride < n4)
#ifdef PLANT_STORE_STRIDE /* planted fault: the stores step by the block, not the grid */
                dst[k * (long)blockDim.x] = v[k];
#else
                dst[k * stride] = v[k];
#endif
    }
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct ilp_copy *c = (struct ilp_copy *)data;
    switch (c->ilp) { /* create() allows only these */
    case 1: copy_kernel<1><<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n); break;
    case 2: copy_kernel<2><<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n); break;
    case 4: copy_kernel<4><<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n); break;
    case 8: copy_kernel<8><<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n); break;
    default: copy_kernel<16><<<copy_grid(c), copy_block(c), 0, s>>>(c->out, c->in, c->n); break;
    }
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
