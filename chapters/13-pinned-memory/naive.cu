/* Chapter 13, naive: the host buffer comes from malloc, as most programs'
 * buffers do. Its pages may move or be swapped out, so the GPU's copy engine
 * may not read them: the driver's CPU thread copies the data, a chunk at a
 * time, into page-locked buffers of its own, and the DMA reads from there.
 * Host to device, cudaMemcpyAsync from such memory returns only once that CPU
 * copy is done (the Runtime API's "API synchronization behavior"): being
 * asynchronous does not hide it. */
#include "problem.h"
#include "cuda_check.h"

#include <stdlib.h>

// [transfer]
/* Untimed: a pageable staging buffer, filled with the input. */
static void prepare(void *data)
{
    struct transfer *t = (struct transfer *)data;
    double t0 = host_seconds();
    t->staging = (unsigned char *)host_alloc(t->bytes);
    staging_fill(t, "pageable (malloc)", t0);
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
    free(t->staging);
}
// [transfer]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
