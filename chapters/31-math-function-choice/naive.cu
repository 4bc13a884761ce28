/* Chapter 31, naive: each computation written with the general function a
 * programmer reaches for first: powf for a cube root, a power of two and a
 * square; sinf of a product with pi; sinf and cosf called separately on the
 * same argument. powf handles every base and exponent (signs, integers,
 * overflow, a log and an exp carried in extra precision), so it is among
 * the longest functions of the library. powf of a negative base with the
 * exponent 1/3.f is NaN, so the cube root takes powf of |a| and puts the
 * sign back with copysignf. */
#include "problem.h"
#include "cuda_check.h"

// [function]
template <int F>
static __device__ __forceinline__ float f(float a)
{
    if (F == FN_CBRT)
        return copysignf(powf(fabsf(a), 1.0f / 3.0f), a);
    if (F == FN_EXP2)
        return powf(2.0f, a);
    if (F == FN_SINPI)
        return sinf(PI_F * a);
    if (F == FN_SINCOS)
        return sinf(a) + cosf(a);
    return powf(a, 2.0f);
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
    static const struct variant v = {"naive", run, NULL, NULL, RULE_GENERAL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
