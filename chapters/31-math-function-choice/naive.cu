/* Chapter 31, naive: each computation written with the general function a
 * programmer reaches for first: powf for a cube root, a power of two and a
 * square; sinf of a product with pi; sinf and cosf called separately on the
 * same argument. powf handles every base and exponent (signs, integers,
 * overflow, a log and an exp carried in extra precision), so it is among
 * the longest functions of the library. */
#include "problem.h"
#include "cuda_check.h"

// [function]
template <int F>
static __device__ __forceinline__ float f(float a)
{
    if (F == FN_CBRT)
        return powf(a, 1.0f / 3.0f);
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
/* The largest of f(a_k) over k = 1..terms, a_k = x * (k / terms): the peak
 * of f sampled between 0 and x. A max adds no rounding error of its own. */
template <int F>
__global__ void peak_kernel(float *out, const float *in, long n, int terms, float step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], peak = -INFINITY, k = 0.0f;
    for (int j = 0; j < terms; j++) {
        k += 1.0f;
        peak = fmaxf(peak, f<F>(x * (k * step)));
    }
    out[i] = peak;
}
// [kernel]

typedef void (*peak_fn)(float *, const float *, long, int, float);

static peak_fn kernel_for(int fn)
{
    switch (fn) { /* the knob admits 1..5 */
    case FN_CBRT: return peak_kernel<FN_CBRT>;
    case FN_EXP2: return peak_kernel<FN_EXP2>;
    case FN_SINPI: return peak_kernel<FN_SINPI>;
    case FN_SINCOS: return peak_kernel<FN_SINCOS>;
    default: return peak_kernel<FN_SQUARE>;
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
