/* Chapter 25, naive: sinf and expf, the accurate single-precision functions
 * (2 ulp each over their whole range). sinf reduces its argument to a
 * quarter period and evaluates a polynomial, expf reduces x log2 e exactly
 * enough to a small remainder and hands only that to the hardware's
 * exponential: far more instructions than the intrinsics, each little more
 * than one special-function instruction (the README gives the count issued
 * per term, as Nsight Compute measured it). */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void sum_terms_kernel(float *out, const float *in, long n, int terms, float step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], sum = 0.0f, comp = 0.0f, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        /* A float counter (exact up to 2^24): the argument then costs two
         * multiplies and no int-to-float conversion. */
        k += 1.0f;
        float a = x * (k * step); /* |a| <= |x| < pi */
        kahan_add(&sum, &comp, __fadd_rn(sinf(a), expf(a)));
    }
    out[i] = sum;
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct fastmath *f = (struct fastmath *)data;
    sum_terms_kernel<<<fastmath_grid(f->n), BLOCK, 0, s>>>(f->out, f->in, f->n, f->terms, f->step);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the bounds of the functions it calls. */
    static const struct variant v = {"naive", run, NULL, NULL, RULE_SINF_EXPF};
    return run_variant(argc, argv, &PROBLEM, &v);
}
