/* Chapter 36, naive: every iteration allocates its scratch buffer with
 * cudaMalloc and gives it back with cudaFree, which also waits for the
 * device to finish the iteration's kernels. */
#include "problem.h"

static void run(void *data, cudaStream_t s)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    start_loop(w, s);
    // [loop]
    for (int k = 0; k < w->iters; k++) {
        unsigned *scratch;
        timed_cudaMalloc(w, &scratch);
        iteration(w, scratch, k, s);
        timed_cudaFree(w, scratch);
    }
    // [loop]
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, report_loop};
    return run_variant(argc, argv, &PROBLEM, &v);
}
