/* Chapter 27, naive: the IEEE operators. `dx / r2` and `1.0f / sqrtf(r2)`
 * are correctly rounded by default (-prec-div=true, -prec-sqrt=true): each is
 * an SFU approximation (MUFU.RCP, MUFU.RSQ) refined by a few FMAs, a range
 * check (FCHK) and a branch to a slow path for extreme operands. The compiler
 * may not turn 1.0f / sqrtf(r2) into one rsqrtf: two roundings are not one. */
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
        kahan_add(&f, &comp, dx / r2 * (1.0f / sqrtf(r2)));
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
    static const struct variant v = {"naive", run, NULL, NULL, RULE_IEEE};
    return run_variant(argc, argv, &PROBLEM, &v);
}
