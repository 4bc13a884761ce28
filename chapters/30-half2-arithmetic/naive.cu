/* Chapter 30, naive: CHAINS __half values per thread, each its own Horner
 * chain, one fused multiply-add in half precision (__hfma) per step. The
 * hardware's fp16 instruction is the paired HFMA2; a scalar __hfma alone is
 * an HFMA2 with one lane in use. Here, though, the four chains are
 * independent straight-line code, and ptxas packs two of them into each
 * HFMA2 itself (the recorded SASS holds one HFMA2 per two scalar steps), all
 * on the FMA pipe. What the written pairs of optimized.cu change is in its
 * comment. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int DEGREE> /* --degree picks the instance: the chains stay unrolled */
__global__ void horner_kernel(__half *out, const __half *in, long n, struct poly p)
{
    long first = blockIdx.x * (long)blockDim.x + threadIdx.x, stride = (long)gridDim.x * blockDim.x;
    __half x[CHAINS], y[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) { /* values first + c * stride: coalesced */
        long i = first + c * stride;
        x[c] = i < n ? in[i] : __float2half(0.0f);
        y[c] = p.c[DEGREE];
    }
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; k--)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            y[c] = __hfma(y[c], x[c], p.c[k]); /* y = y * x + c_k, one rounding */
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        if (first + c * stride < n)
            out[first + c * stride] = y[c];
}
// [kernel]

typedef void (*horner_fn)(__half *, const __half *, long, struct poly);

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
    long per_block = (long)BLOCK * CHAINS; /* a thread per CHAINS values */
    unsigned blocks = (unsigned)((h->n + per_block - 1) / per_block);
    kernel_for(h->degree)<<<blocks, BLOCK, 0, s>>>(h->out, h->in, h->n, h->p);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run};
    return run_variant(argc, argv, &PROBLEM, &v);
}
