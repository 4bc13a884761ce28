/* Chapter 31, optimized: each computation written with the function made
 * for it: cbrtf, exp2f, sinpif (which multiplies by pi exactly, after its own
 * exact argument reduction), sincosf (one argument reduction for both) and a
 * plain multiply. Each is shorter than the general function, and as
 * accurate or more. */
#include "problem.h"
#include "cuda_check.h"

// [function]
template <int F>
static __device__ __forceinline__ float f(float a)
{
    if (F == FN_CBRT)
        return cbrtf(a);
    if (F == FN_EXP2)
        return exp2f(a);
    if (F == FN_SINPI)
        return sinpif(a);
    if (F == FN_SINCOS) {
        float s, c;
        sincosf(a, &s, &c);
        return s + c;
    }
    return a * a;
}
// [function]

// [kernel]
/* The sum of f(a_k) over k = 1..terms, a_k = x * (k / terms): f sampled
 * between 0 and x, every sample part of the result. __fadd_rn rounds each
 * addition by itself: nvcc may not fuse it with f's last multiply into an
 * FMA, so the check can bound every rounding of the sum. */
template <int F>
__global__ void sum_kernel(float *out, const float *in, long n, int terms, float step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], sum = 0.0f, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        sum = __fadd_rn(sum, f<F>(x * (k * step)));
    }
    out[i] = sum;
}
// [kernel]

typedef void (*sum_fn)(float *, const float *, long, int, float);

static sum_fn kernel_for(int fn)
{
    switch (fn) { /* the knob admits 1..5 */
    case FN_CBRT: return sum_kernel<FN_CBRT>;
    case FN_EXP2: return sum_kernel<FN_EXP2>;
    case FN_SINPI: return sum_kernel<FN_SINPI>;
    case FN_SINCOS: return sum_kernel<FN_SINCOS>;
    default: return sum_kernel<FN_SQUARE>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct mathchoice *m = (struct mathchoice *)data;
    kernel_for(m->fn)<<<mathchoice_grid(m->n), BLOCK, 0, s>>>(m->out, m->in, m->n, m->terms,
                                                             m->step);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the bounds of the functions it calls. */
    static const struct variant v = {"optimized", run, NULL, NULL, RULE_SPECIFIC};
    return run_variant(argc, argv, &PROBLEM, &v);
}
