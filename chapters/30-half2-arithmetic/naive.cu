/* Chapter 30, naive: one __half value per thread, one Horner chain, one
 * half-precision fused multiply-add (__hfma) per step. The hardware's fp16
 * arithmetic is paired (HFMA2, two lanes of 16 bits in one 32-bit register);
 * a thread that holds one value has nothing to pair it with, so each __hfma
 * is an HFMA2 with one lane in use (operands R.H0_H0 in the SASS): one
 * multiply-add per instruction where the hardware could do two. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int DEGREE> /* --degree picks the instance: the chain stays unrolled */
__global__ void horner_kernel(__half *out, const __half *in, long n, struct poly p)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x; /* the value i */
    if (i >= n)
        return;
    __half x = in[i], y = p.c[DEGREE];
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; k--)
        y = __hfma(y, x, p.c[k]); /* y = y * x + c_k, one rounding */
    out[i] = y;
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
    unsigned blocks = (unsigned)((h->n + BLOCK - 1) / BLOCK); /* a thread per value */
    kernel_for(h->degree)<<<blocks, BLOCK, 0, s>>>(h->out, h->in, h->n, h->p);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run};
    return run_variant(argc, argv, &PROBLEM, &v);
}
