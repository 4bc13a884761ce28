/* Chapter 28, naive: the phase in radians, w = 2 pi q, straight into cosf
 * and sinf. Beyond |w| = 105615 their argument reduction leaves the fast
 * path (a few FMAs) for the slow one: an exact multiple-precision product of
 * w with 2/pi, a loop over a table of its bits, held in local memory. The
 * multiply by 2 pi in float also rounds away part of the phase. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void oscillator_kernel(float2 *out, const float2 *in, long n, int terms)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 o = in[i]; /* start phase o.x in cycles, frequency o.y in cycles per sample */
    float re = 0.0f, re_c = 0.0f, im = 0.0f, im_c = 0.0f, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        float q = fmaf(k, o.y, o.x);    /* phase of sample k in cycles, rounded once */
        float w = 6.28318531f * q;      /* in radians */
        kahan_add(&re, &re_c, cosf(w));
        kahan_add(&im, &im_c, sinf(w));
    }
    out[i] = make_float2(re, im);
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct trigred *t = (struct trigred *)data;
    oscillator_kernel<<<trigred_grid(t->n), BLOCK, 0, s>>>(t->out, t->in, t->n, t->terms);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the bounds of what it computes. */
    static const struct variant v = {"naive", run, NULL, NULL, RULE_SINF_RADIANS};
    return run_variant(argc, argv, &PROBLEM, &v);
}
