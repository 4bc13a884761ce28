/* Chapter 03, naive: launch a batch, wait for it, post-process it on the
 * host, launch the next. The GPU idles while the CPU hashes, and the CPU
 * idles while the GPU computes: the two take turns. */
#include "problem.h"
#include "cuda_check.h"

// [pipeline]
static void run(void *data, cudaStream_t s)
{
    struct batches *p = (struct batches *)data;
    for (long b = 0; b < p->batches; b++) {
        gpu_batch(p, b, s);
        /* Wait for batch b, then hash it: the GPU has nothing queued. */
        CUDA_CHECK(cudaStreamSynchronize(s));
        cpu_batch(p, b);
    }
}
// [pipeline]

static void release(void *data) { report_overlap(data, run); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
