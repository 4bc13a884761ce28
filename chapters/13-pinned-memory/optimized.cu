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

/* Timed: one copy between the staging buffer and the device, on the program's stream s, so
 * that whoever waits for s knows the copy is done (the harness times from the call to the end
 * of everything on the device). */
static void run(void *data, cudaStream_t s)
{
    struct transfer *t = (struct transfer *)data;
    if (t->to_host)
        CUDA_CHECK(cudaMemcpyAsync(t->staging, t->device, t->bytes, cudaMemcpyDeviceToHost, s));
    else
        CUDA_CHECK(cudaMemcpyAsync(t->device, t->staging, t->bytes, cudaMemcpyHostToDevice, s));
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
