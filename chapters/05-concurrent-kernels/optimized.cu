/* Chapter 05, optimized: the same kernels spread over many streams. Work in
 * different streams has no order between it, so the GPU may run the one-block
 * kernels side by side, each on its own SM. */
#include "problem.h"
#include "cuda_check.h"

#include <stdlib.h>

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

/* Streams are created once, outside the timed region. Non-blocking: they do
 * not wait for, nor hold up, work in the legacy default stream. */
static void prepare(void *data)
{
    struct batch *b = (struct batch *)data;
    b->streams = (cudaStream_t *)host_alloc(b->nstreams * sizeof(cudaStream_t));
    for (int i = 0; i < b->nstreams; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&b->streams[i], cudaStreamNonBlocking));
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    (void)s;
    for (int k = 0; k < b->kernels; k++) {
        /* Kernel k in stream k * streams / kernels: each stream gets a run of
         * consecutive kernels (one each by default), in order within it. */
        cudaStream_t st = b->streams[(long)k * b->nstreams / b->kernels];
        busy_kernel<<<1, BLOCK, 0, st>>>(b->out + k * b->n, b->in + k * b->n, b->n, b->rounds);
        CHECK_LAUNCH();
    }
}
// [launch]

/* The harness ends every timed run with cudaDeviceSynchronize(), which waits
 * for all streams, so run() itself needs no synchronization. */
static void release(void *data)
{
    struct batch *b = (struct batch *)data;
    for (int i = 0; i < b->nstreams; i++)
        CUDA_CHECK(cudaStreamDestroy(b->streams[i]));
    free(b->streams);
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
