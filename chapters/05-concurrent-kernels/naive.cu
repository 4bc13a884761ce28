/* Chapter 05, naive: the batch of independent kernels goes into the default
 * stream. A stream runs its work in order, so each one-block kernel waits for
 * the one before it, while the other SMs of the GPU sit idle. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* Kernel of the batch: one block of BLOCK threads on its own slice. Each
 * element takes `rounds` dependent steps, so the kernel's length is set by
 * instruction latency, not by memory. */
__global__ void busy_kernel(int *out, const int *in, long n, int rounds)
{
    for (long i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned x = (unsigned)in[i];
        for (int r = 0; r < rounds; r++)
            x = xorshift32(x);
        out[i] = (int)(x >> 1);
    }
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    (void)s;
    for (int k = 0; k < b->kernels; k++) {
        /* All in the default stream: kernel k starts when kernel k - 1 ends. */
        cudaStream_t st = 0;
        busy_kernel<<<1, BLOCK, 0, st>>>(b->out + k * b->n, b->in + k * b->n, b->n, b->rounds);
        CHECK_LAUNCH();
    }
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
