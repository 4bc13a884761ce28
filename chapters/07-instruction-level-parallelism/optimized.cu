/* Chapter 07, optimized: the same grid-stride copy at the same occupancy, but
 * each thread issues ILP independent loads before its first store, so ILP
 * memory latencies overlap instead of following one another. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ILP> /* a compile-time count keeps v[] in registers */
__global__ void copy_kernel(float *out, const float *in, long n)
{
    long stride = (long)gridDim.x * blockDim.x;
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    /* ILP loads, then the ILP stores that wait for them: ILP memory
     * latencies overlap. The elements are `stride` apart, so every load of
     * a warp still reads 32 neighbours (coalesced). */
#pragma unroll 1
    for (; i + (ILP - 1) * stride < n; i += ILP * stride) {
        float v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            v[k] = in[i + k * stride];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            out[i + k * stride] = v[k];
    }
    /* This thread's last few elements, fewer than ILP, one at a time. */
#pragma unroll 1
    for (; i < n; i += stride)
        out[i] = in[i];
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
