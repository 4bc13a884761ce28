/* Chapter 05, optimized: the same kernels spread over many streams. Work in
 * different streams has no order between it, so the GPU may run the one-block
 * kernels side by side, each on its own SM. */
#include "problem.h"
#include "cuda_check.h"

#include <stdlib.h>

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
    /* Fork: the streams join the capture by waiting for an event of origin. */
    CUDA_CHECK(cudaEventRecord(b->edge, origin));
    for (int i = 0; i < b->nstreams; i++)
        CUDA_CHECK(cudaStreamWaitEvent(b->streams[i], b->edge, 0));
    for (int k = 0; k < b->kernels; k++) {
        /* Kernel k in stream k * streams / kernels: each stream gets a run of
         * consecutive kernels (one each by default), in order within it. */
        cudaStream_t st = b->streams[(long)k * b->nstreams / b->kernels];
        busy_kernel<<<1, BLOCK, 0, st>>>(b->out + k * b->n, b->in + k * b->n, b->n, b->rounds,
                                         b->stamps + 2 * k);
        CHECK_LAUNCH();
    }
    /* Join: a capture ends only when origin has waited for every stream. */
    for (int i = 0; i < b->nstreams; i++) {
        CUDA_CHECK(cudaEventRecord(b->edge, b->streams[i]));
        CUDA_CHECK(cudaStreamWaitEvent(origin, b->edge, 0));
    }
}
// [launch]

/* The streams exist only while the batch is captured: the graph keeps the
 * order they gave the kernels (none between streams), not the streams. */
static void prepare(void *data)
{
    struct batch *b = (struct batch *)data;
    b->streams = (cudaStream_t *)host_alloc(b->nstreams * sizeof(cudaStream_t));
    for (int i = 0; i < b->nstreams; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&b->streams[i], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&b->edge, cudaEventDisableTiming));
    batch_capture(b, submit);
    CUDA_CHECK(cudaEventDestroy(b->edge));
    for (int i = 0; i < b->nstreams; i++)
        CUDA_CHECK(cudaStreamDestroy(b->streams[i]));
    free(b->streams);
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", batch_run, prepare, batch_release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
