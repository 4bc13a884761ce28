/* Chapter 30, optimized: one __half2 pair per thread, values 2i and 2i + 1,
 * one Horner chain over both lanes: each step is one __hfma2, one HFMA2 that
 * does both multiply-adds. The coefficients stay packed as in the scalar
 * program (four to an 8-byte constant load); __half2half2 broadcasts each
 * into both lanes, which ptxas folds into the HFMA2's operand (.H0_H0), so
 * one load serves twice the values. Half as many threads do the same work
 * with half as many instructions. Each lane's arithmetic is exactly that of
 * the scalar program: the results are the same bits. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int DEGREE> /* --degree picks the instance: the chain stays unrolled */
__global__ void horner_kernel(__half *out, const __half *in, long n, struct poly p)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x; /* the pair 2i, 2i + 1 */
    if (2 * i >= n)
        return;
    /* an odd n leaves the last value alone: duplicated into both lanes */
    __half2 x = 2 * i + 1 < n ? ((const __half2 *)in)[i] : __half2half2(in[2 * i]);
    __half2 y = __half2half2(p.c[DEGREE]);
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; k--)
        y = __hfma2(y, x, __half2half2(p.c[k])); /* both lanes: y = y * x + c_k */
    if (2 * i + 1 < n)
        ((__half2 *)out)[i] = y;
    else
        out[2 * i] = __low2half(y);
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
    long pairs = (h->n + 1) / 2; /* a thread per pair */
    unsigned blocks = (unsigned)((pairs + BLOCK - 1) / BLOCK);
    kernel_for(h->degree)<<<blocks, BLOCK, 0, s>>>(h->out, h->in, h->n, h->p);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run};
    return run_variant(argc, argv, &PROBLEM, &v);
}
