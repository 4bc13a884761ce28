/* Chapter 33, naive: the tap loop as written, kept a loop with
 * `#pragma unroll 1` (left alone, nvcc would unroll it: the count is a
 * compile-time constant), and the zero padding as an `if` around the load.
 * Every tap pays for the loop's counter, compare and branch, and its weight
 * is read from constant memory with a computed index. */
#include "problem.h"

// [kernel]
template <int R> /* radius: --radius picks the instance */
__global__ void conv_kernel(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < 2 * R + 1; k++) {
        int j = i + k - R;
        if (j >= 0 && j < n)
            acc = fmaf(c_w[k], in[j], acc);
    }
    out[i] = acc;
}
// [kernel]

typedef void (*conv_fn)(float *, const float *, int);

static conv_fn kernel_for(int radius)
{
    switch (radius) { /* the knob admits only these */
    case 1: return conv_kernel<1>;
    case 2: return conv_kernel<2>;
    case 4: return conv_kernel<4>;
    case 16: return conv_kernel<16>;
    default: return conv_kernel<8>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct conv *c = (struct conv *)data;
    kernel_for(c->radius)<<<conv_grid(c->n), BLOCK, 0, s>>>(c->out, c->in, c->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, upload_weights, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
