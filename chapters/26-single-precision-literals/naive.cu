/* Chapter 26, naive: a float polynomial written with unsuffixed literals.
 * C and C++ read 1.6666667e-1 as a double, so `p * a + 1.6666667e-1`
 * converts the float product to double (F2F), adds in double (DADD), and
 * converts the sum back to float (F2F) when it is stored into p. */
#include "problem.h"
#include "cuda_check.h"

// [poly]
/* e^a by its Taylor polynomial of degree 9, Horner's rule, one coefficient
 * (1/k!) a line. */
static __device__ float exp_poly(float a)
{
    float p = 2.7557319e-6;
    p = p * a + 2.4801587e-5;
    p = p * a + 1.9841270e-4;
    p = p * a + 1.3888889e-3;
    p = p * a + 8.3333333e-3;
    p = p * a + 4.1666667e-2;
    p = p * a + 1.6666667e-1;
    p = p * a + 0.5;
    p = p * a + 1.0;
    p = p * a + 1.0;
    return p;
}
// [poly]

// [kernel]
__global__ void poly_sum_kernel(float *out, const float *in, long n, int terms, float step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], sum = 0.0f, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;                /* a float counter: no int-to-float conversion */
        float a = x * (k * step); /* |a| <= |x| < 1 */
        sum += exp_poly(a);
    }
    out[i] = sum;
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct literals *l = (struct literals *)data;
    poly_sum_kernel<<<literals_grid(l->n), BLOCK, 0, s>>>(l->out, l->in, l->n, l->terms, l->step);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the rounding of what it computes. */
    static const struct variant v = {"naive", run, NULL, NULL, RULE_DOUBLE_LITERALS};
    return run_variant(argc, argv, &PROBLEM, &v);
}
