/* Chapter 05, naive: the batch of independent kernels goes into one stream.
 * A stream runs its work in order, so each one-block kernel waits for the one
 * before it, while the other SMs of the GPU sit idle. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* Kernel of the batch: one block of BLOCK threads on its own slice. Each
 * element takes `rounds` dependent steps, so the kernel's length is set by
 * instruction latency, not by memory. Thread 0 notes when the block started
 * and ended, for the timeline the program prints. */
__global__ void busy_kernel(int *out, const int *in, long n, int rounds, unsigned long long *span)
{
    if (threadIdx.x == 0)
        span[0] = global_ns();
    for (long i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned x = (unsigned)in[i];
        for (int r = 0; r < rounds; r++)
            x = xorshift32(x);
        out[i] = (int)(x >> 1);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        span[1] = global_ns();
}
// [kernel]

// [launch]
/* Captured once into a CUDA graph; every run replays it (batch_run). */
static void submit(struct batch *b, cudaStream_t origin)
{
    for (int k = 0; k < b->kernels; k++) {
        /* All in one stream: kernel k starts when kernel k - 1 ends. */
        cudaStream_t st = origin;
        busy_kernel<<<1, BLOCK, 0, st>>>(b->out + k * b->n, b->in + k * b->n, b->n, b->rounds,
                                         b->stamps + 2 * k);
        CHECK_LAUNCH();
    }
}
// [launch]

static void prepare(void *data)
{
    struct batch *b = (struct batch *)data;
    batch_capture(b, submit);
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", batch_run, prepare, batch_release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
