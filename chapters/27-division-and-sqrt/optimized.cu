/* Chapter 27, optimized: the intrinsics. __fdividef(dx, r2) is one MUFU.RCP
 * and a multiply (2 ulp for |r2| in [2^-126, 2^126], and 0 beyond 2^126);
 * rsqrtf(r2) is one MUFU.RSQ (2 ulp). No refinement, no range check, no slow
 * path: the check holds this program to those looser, documented bounds. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void field_kernel(float *out, const float2 *in, long n, int terms, float h)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 p = in[i];
    float f = 0.0f, comp = 0.0f, s = -1.0f;
    for (int j = 0; j < terms; j++) {
        s += h;                    /* the next source, at (s, 0) */
        float dx = p.x - s;
        float r2 = dx * dx + p.y;  /* squared distance, >= B_MIN */
        /* x component of the inverse-square field: dx / r^3 */
        kahan_add(&f, &comp, __fdividef(dx, r2) * rsqrtf(r2));
    }
    out[i] = f;
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct divsqrt *d = (struct divsqrt *)data;
    field_kernel<<<divsqrt_grid(d->n), BLOCK, 0, s>>>(d->out, d->in, d->n, d->terms, d->h);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    /* The check holds this program to the bounds of the operations it uses. */
    static const struct variant v = {"optimized", run, NULL, NULL, RULE_INTRINSICS};
    return run_variant(argc, argv, &PROBLEM, &v);
}
