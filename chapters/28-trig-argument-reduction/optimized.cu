/* Chapter 28, optimized: the phase wrapped to [-1/2, 1/2] cycle before any
 * trigonometry (q - rintf(q) is exact in float), then the same call as the
 * naive program: in radians, sincosf's argument stays below pi, on its fast
 * path, and the multiply by 2 pi rounds a number below 1/2. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int SINPI> /* --sinpi: the trigonometry's units (problem.h) */
__global__ void oscillator_kernel(float2 *out, const float2 *in, long n, int terms)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 o = in[i]; /* start phase o.x in cycles, frequency o.y in cycles per sample */
    float re = 0.0f, re_c = 0.0f, im = 0.0f, im_c = 0.0f, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        float q = fmaf(k, o.y, o.x); /* phase of sample k in cycles, rounded once */
        float s, c;
        sincos_cycles<SINPI>(q - rintf(q), &s, &c); /* wrapped first: exact */
        kahan_add(&re, &re_c, c);
        kahan_add(&im, &im_c, s);
    }
    out[i] = make_float2(re, im);
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct trigred *t = (struct trigred *)data;
    void (*kernel)(float2 *, const float2 *, long, int) =
        t->sinpi ? oscillator_kernel<1> : oscillator_kernel<0>;
    kernel<<<trigred_grid(t->n), BLOCK, 0, s>>>(t->out, t->in, t->n, t->terms);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the bounds of what it computes. */
    static const struct variant v = {"optimized", run, NULL, NULL, RULE_WRAPPED_PHASE};
    return run_variant(argc, argv, &PROBLEM, &v);
}
