/* Chapter 02, naive: the whole array goes up, is computed on, and comes
 * back, in one stream. Each stage waits for the one before it to finish, so
 * at any moment only one of the three engines (host-to-device copy, SMs,
 * device-to-host copy) is busy. */
#include "problem.h"
#include "cuda_check.h"

// [pipeline]
static void run(void *data, cudaStream_t s)
{
    struct pipeline *p = (struct pipeline *)data;
    size_t bytes = (size_t)p->n * sizeof(uint32_t);
    CUDA_CHECK(cudaMemcpyAsync(p->d_in, p->h_in, bytes, cudaMemcpyHostToDevice, s));
    launch_rounds(p, 0, p->n, s);
    CUDA_CHECK(cudaMemcpyAsync(p->h_out, p->d_out, bytes, cudaMemcpyDeviceToHost, s));
}
// [pipeline]

static void release(void *data) { report_overlap(data, run); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
