/* Chapter 30, optimized: CHAINS __half2 pairs per thread, each its own Horner
 * chain. Each step is one __hfma2 over both values of a pair: the pairs are
 * written, not left to the compiler. ptxas forms pairs from the naive
 * program's scalar chains too, so the instructions per value are about the
 * same; what differs is where they go: the written pairs' HFMA2s are spread
 * over the FMA pipe and the HFMA2.MMA form on a second pipe, the pairs ptxas
 * forms stay on the FMA pipe (the recorded SASS and pipe counters). The
 * arithmetic of each lane is exactly that of the scalar program: the results
 * are the same bits. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int DEGREE> /* --degree picks the instance: the chains stay unrolled */
__global__ void horner_kernel(__half *out, const __half *in, long n, struct poly2 p)
{
    long first = blockIdx.x * (long)blockDim.x + threadIdx.x, stride = (long)gridDim.x * blockDim.x;
    __half2 x[CHAINS], y[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) { /* the pairs 2i, 2i + 1 for i = first + c * stride */
        long i = first + c * stride;
        x[c] = 2 * i + 1 < n ? ((const __half2 *)in)[i]
                             : __half2half2(2 * i < n ? in[2 * i] : __float2half(0.0f));
        y[c] = p.c[DEGREE];
    }
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; k--)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            y[c] = __hfma2(y[c], x[c], p.c[k]); /* both lanes: y = y * x + c_k */
#pragma unroll
    for (int c = 0; c < CHAINS; c++) {
        long i = first + c * stride;
        if (2 * i + 1 < n)
            ((__half2 *)out)[i] = y[c];
        else if (2 * i < n) /* an odd n leaves the last value alone */
            out[2 * i] = __low2half(y[c]);
    }
}
// [kernel]

typedef void (*horner_fn)(__half *, const __half *, long, struct poly2);

static horner_fn kernel_for(int degree)
{
    switch (degree) { /* the knob admits only these */
    case 8: return horner_kernel<8>;
    case 16: return horner_kernel<16>;
    case 32: return horner_kernel<32>;
    case 64: return horner_kernel<64>;
    case 128: return horner_kernel<128>;
    default: return horner_kernel<256>;
    }
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct horner *h = (struct horner *)data;
    long pairs = (h->n + 1) / 2, per_block = (long)BLOCK * CHAINS; /* a thread per CHAINS pairs */
    unsigned blocks = (unsigned)((pairs + per_block - 1) / per_block);
    kernel_for(h->degree)<<<blocks, BLOCK, 0, s>>>(h->out, h->in, h->n, h->p2);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run};
    return run_variant(argc, argv, &PROBLEM, &v);
}
