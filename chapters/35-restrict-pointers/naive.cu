/* Chapter 35, naive: plain pointers. The compiler must assume that out may
 * alias in and w, so every store to out may have changed any input: after
 * each output a thread stores, it loads all TAPS rows and all TAPS weights
 * again, although the next output shares TAPS - 1 of those rows. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ROWS> /* outputs per thread: --rows picks the instance */
__global__ void stencil_kernel(float *out, const float *in, const float *w, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y0 = blockIdx.y * ROWS;
    if (x >= n)
        return;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < TAPS; k++)
            acc = fmaf(w[k], in[(long)(y0 + r + k) * n + x], acc);
        if (y0 + r < n)
            out[(long)(y0 + r) * n + x] = acc;
    }
}
// [kernel]

typedef void (*stencil_fn)(float *, const float *, const float *, int);

static stencil_fn kernel_for(int rows)
{
    switch (rows) { /* the knob admits only these */
    case 1: return stencil_kernel<1>;
    case 2: return stencil_kernel<2>;
    case 4: return stencil_kernel<4>;
    case 16: return stencil_kernel<16>;
    default: return stencil_kernel<8>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct stencil *t = (struct stencil *)data;
    kernel_for(t->rows)<<<stencil_grid(t->n, t->rows), BLOCK, 0, s>>>(t->out, t->in, t->w,
                                                                      (int)t->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
