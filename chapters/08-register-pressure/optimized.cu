/* Chapter 08, optimized: the same cascade with __launch_bounds__, which
 * promises the compiler that MIN_BLOCKS blocks of CASCADE_BLOCK threads must
 * fit on one SM. The compiler caps registers at 65536 / (MIN_BLOCKS * 256)
 * per thread and spills what no longer fits to local memory. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int MIN_BLOCKS> /* one compiled kernel per promise: --min-blocks picks */
__global__ void __launch_bounds__(CASCADE_BLOCK, MIN_BLOCKS)
cascade_kernel(float *out, const float *coef, const float *in, long n, int steps)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a[STAGES], y[STAGES]; /* fully unrolled below: all of it in registers */
#pragma unroll
    for (int k = 0; k < STAGES; k++) {
        a[k] = coef[k * n + i];
        y[k] = 0.0f;
    }
    /* One step at a time: wait for the sample, then run it through the
     * stages, each of which needs the one before. */
#pragma unroll 1
    for (int t = 0; t < steps; t++) {
        float prev = in[t * n + i];
#pragma unroll
        for (int k = 0; k < STAGES; k++) {
            y[k] = fmaf(a[k], y[k] - prev, prev);
            prev = y[k];
        }
    }
#pragma unroll
    for (int k = 0; k < STAGES; k++)
        out[k * n + i] = y[k];
}
// [kernel]

typedef void (*cascade_fn)(float *, const float *, const float *, long, int);

static cascade_fn kernel_of(const struct cascade *c)
{
    switch (c->min_blocks) { /* the knob's range is 1..4 */
    case 1: return cascade_kernel<1>;
    case 2: return cascade_kernel<2>;
    case 3: return cascade_kernel<3>;
    default: return cascade_kernel<4>;
    }
}

static void prepare(void *data)
{
    report_registers((const void *)kernel_of((struct cascade *)data));
}

static void run(void *data, cudaStream_t s)
{
    struct cascade *c = (struct cascade *)data;
    kernel_of(c)<<<cascade_grid(c->n), CASCADE_BLOCK, 0, s>>>(c->out, c->coef, c->in, c->n,
                                                              c->steps);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
