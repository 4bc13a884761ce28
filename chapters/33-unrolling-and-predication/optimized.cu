/* Chapter 33, optimized: the radius is a template argument, a compile-time
 * constant (--radius picks the instance), so nvcc unrolls the tap loop
 * completely by itself: the loop counter, its compare and the back edge
 * disappear. That is all unrolling removes: each tap keeps its own bounds
 * compares, and each weight is still loaded from the constant bank with an
 * LDC before its FFMA, as in the naive loop (results/evidence counts the
 * LDC of both). */
#include "problem.h"

// [kernel]
template <int SELECT, int R> /* --select; R: the radius, a compile-time constant */
__global__ void conv_kernel(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < 2 * R + 1; k++)
        acc = tap<SELECT>(acc, c_w[k], in, i + k - R, n);
    out[i] = acc;
}
// [kernel]

// [launch]
typedef void (*conv_fn)(float *, const float *, int);

template <int SELECT> static conv_fn kernel_for(int radius)
{
    switch (radius) { /* the knob admits only these */
    case 1: return conv_kernel<SELECT, 1>;
    case 2: return conv_kernel<SELECT, 2>;
    case 4: return conv_kernel<SELECT, 4>;
    case 16: return conv_kernel<SELECT, 16>;
    default: return conv_kernel<SELECT, 8>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct conv *c = (struct conv *)data;
    conv_fn kernel = c->select ? kernel_for<1>(c->radius) : kernel_for<0>(c->radius);
    kernel<<<conv_grid(c->n), BLOCK, 0, s>>>(c->out, c->in, c->n);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, upload_weights, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
