/* Chapter 02, optimized: the array is cut into chunks, and each chunk's
 * upload, kernel and download go into one of several streams. Work in
 * different streams may run at the same time, so while chunk k is computed,
 * chunk k + 1 can be uploading and chunk k - 1 downloading: the copy engines
 * and the SMs work at once. */
#include "problem.h"
#include "cuda_check.h"

// [pipeline]
static void run(void *data, cudaStream_t s)
{
    struct pipeline *p = (struct pipeline *)data;
    long chunk = (p->n + p->chunks - 1) / p->chunks;
    /* Fork: the streams start after the work already queued in s. */
    CUDA_CHECK(cudaEventRecord(p->sync, s));
    for (int k = 0; k < p->streams; k++)
        CUDA_CHECK(cudaStreamWaitEvent(p->stream[k], p->sync, 0));
    for (long c = 0; c * chunk < p->n; c++) {
        long first = c * chunk;
        long count = p->n - first < chunk ? p->n - first : chunk; /* the last may be short */
        size_t bytes = (size_t)count * sizeof(uint32_t);
        cudaStream_t cs = p->stream[c % p->streams]; /* round robin */
        CUDA_CHECK(cudaMemcpyAsync(p->d_in + first, p->h_in + first, bytes,
                                   cudaMemcpyHostToDevice, cs));
        launch_rounds(p, first, count, cs);
        CUDA_CHECK(cudaMemcpyAsync(p->h_out + first, p->d_out + first, bytes,
                                   cudaMemcpyDeviceToHost, cs));
    }
    /* Join: s completes only when every stream has. */
    for (int k = 0; k < p->streams; k++) {
        CUDA_CHECK(cudaEventRecord(p->sync, p->stream[k]));
        CUDA_CHECK(cudaStreamWaitEvent(s, p->sync, 0));
    }
}
// [pipeline]

static void prepare(void *data)
{
    struct pipeline *p = (struct pipeline *)data;
    for (int k = 0; k < p->streams; k++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&p->stream[k], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->sync, cudaEventDisableTiming));
}

static void release(void *data)
{
    struct pipeline *p = (struct pipeline *)data;
    report_overlap(data, run);
    for (int k = 0; k < p->streams; k++)
        CUDA_CHECK(cudaStreamDestroy(p->stream[k]));
    CUDA_CHECK(cudaEventDestroy(p->sync));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
