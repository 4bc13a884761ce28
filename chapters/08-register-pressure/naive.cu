/* Chapter 08, naive: the cascade compiled with no hint. The compiler spends
 * as many registers as it likes (up to 255 per thread); so many that only
 * one 256-thread block fits on an SM, and 8 warps cannot hide the memory
 * latency of each step's sample. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void cascade_kernel(float *out, const float *coef, const float *in, long n,
                               int steps)
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

static void prepare(void *data)
{
    (void)data;
    report_registers((const void *)cascade_kernel);
}

static void run(void *data, cudaStream_t s)
{
    struct cascade *c = (struct cascade *)data;
    cascade_kernel<<<cascade_grid(c->n), CASCADE_BLOCK, 0, s>>>(c->out, c->coef, c->in, c->n,
                                                                c->steps);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
