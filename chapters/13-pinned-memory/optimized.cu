/* Chapter 13, optimized: the host buffer comes from cudaMallocHost, which
 * locks its pages in place and maps them for the GPU, so the copy engine
 * reads them directly: one DMA at the speed of the link, no detour. */
#include "problem.h"
#include "cuda_check.h"

#include <stdlib.h>

// [transfer]
/* Untimed: a page-locked staging buffer, filled with the input. */
static void prepare(void *data)
{
    struct transfer *t = (struct transfer *)data;
    double t0 = host_seconds();
    t->staging = (unsigned char *)pinned_alloc(t->bytes);
    staging_fill(t, "pinned (cudaMallocHost)", t0);
}

/* Timed: one cudaMemcpy between the staging buffer and the device. */
static void run(void *data, cudaStream_t s)
{
    struct transfer *t = (struct transfer *)data;
    (void)s; /* cudaMemcpy uses the default stream; the harness waits for the device */
    if (t->to_host)
        CUDA_CHECK(cudaMemcpy(t->staging, t->device, t->bytes, cudaMemcpyDeviceToHost));
    else
        CUDA_CHECK(cudaMemcpy(t->device, t->staging, t->bytes, cudaMemcpyHostToDevice));
}

static void release(void *data)
{
    struct transfer *t = (struct transfer *)data;
    CUDA_CHECK(cudaFreeHost(t->staging));
}
// [transfer]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
