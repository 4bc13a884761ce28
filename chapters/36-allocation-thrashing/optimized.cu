/* Chapter 36, optimized: no cudaMalloc or cudaFree inside the loop. By
 * default (--strategy 0) one scratch buffer is allocated before the loop and
 * freed after it; with --strategy 1 each iteration still allocates, but from
 * the stream-ordered pool (cudaMallocAsync, cudaFreeAsync), which hands back
 * the block the previous iteration freed without waiting for the device. */
#include "problem.h"

static void run(void *data, cudaStream_t s)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    start_loop(w, s);
    // [loop]
    if (w->strategy == STRATEGY_POOL) {
        for (int k = 0; k < w->iters; k++) {
            unsigned *scratch;
            timed_cudaMallocAsync(w, &scratch, s);
            iteration(w, scratch, k, s);
            timed_cudaFreeAsync(w, scratch, s);
        }
    } else {
        unsigned *scratch;
        timed_cudaMalloc(w, &scratch);
        for (int k = 0; k < w->iters; k++)
            iteration(w, scratch, k, s);
        timed_cudaFree(w, scratch);
    }
    // [loop]
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, report_loop};
    return run_variant(argc, argv, &PROBLEM, &v);
}
