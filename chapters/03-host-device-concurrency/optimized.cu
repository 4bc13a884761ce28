/* Chapter 03, optimized: launches return at once, so queue batch b first,
 * then hash batch b - 1 on the host while the GPU computes batch b. An event
 * recorded after each batch says when its results are back; the host waits
 * for that event only, never for the whole stream. */
#include "problem.h"
#include "cuda_check.h"

// [pipeline]
static void run(void *data, cudaStream_t s)
{
    struct batches *p = (struct batches *)data;
    for (long b = 0; b < p->batches; b++) {
        gpu_batch(p, b, s);
        CUDA_CHECK(cudaEventRecord(p->done[b % 2], s));
        if (b > 0) {
            /* Wait for batch b - 1 only, then hash it while the GPU runs b. */
            CUDA_CHECK(cudaEventSynchronize(p->done[(b - 1) % 2]));
            cpu_batch(p, b - 1);
        }
    }
    CUDA_CHECK(cudaEventSynchronize(p->done[(p->batches - 1) % 2]));
    cpu_batch(p, p->batches - 1);
}
// [pipeline]

static void prepare(void *data)
{
    struct batches *p = (struct batches *)data;
    for (int k = 0; k < 2; k++)
        CUDA_CHECK(cudaEventCreateWithFlags(&p->done[k], cudaEventDisableTiming));
}

static void release(void *data)
{
    struct batches *p = (struct batches *)data;
    report_overlap(data, run);
    for (int k = 0; k < 2; k++)
        CUDA_CHECK(cudaEventDestroy(p->done[k]));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
