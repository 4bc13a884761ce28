/* Chapter 24, naive: a histogram of gathered values, with the driver's
 * default split of each SM's 256 KB between shared memory and the L1 cache.
 * The driver sizes shared memory so that the most blocks fit; what is left
 * is L1, and here that is less than the blocks' gathers reuse. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void histogram_kernel(unsigned *block_hist, unsigned *next, const int *keys,
                                 const unsigned *table, int window_entries, long n)
{
    __shared__ unsigned hist[BINS];
    __shared__ long chunk;
    for (int b = threadIdx.x; b < BINS; b += BLOCK)
        hist[b] = 0;
    long chunks = (n + CHUNK - 1) / CHUNK;
    for (;;) {
        __syncthreads(); /* the histogram is clear, and everyone has read `chunk` */
        if (threadIdx.x == 0)
            chunk = atomicAdd(next, 1u);
        __syncthreads();
        if (chunk >= chunks)
            break;
        /* A chunk gathers from one window of the table, many times. */
        const unsigned *window = table + (chunk % WINDOWS) * window_entries;
        long end = min(n, (chunk + 1) * CHUNK);
        for (long i = chunk * CHUNK + threadIdx.x; i < end; i += BLOCK)
            atomicAdd(&hist[window[__ldcs(keys + i)]], 1u); /* keys stream past the L1 */
    }
    for (int b = threadIdx.x; b < BINS; b += BLOCK)
        block_hist[(size_t)blockIdx.x * BINS + b] = hist[b];
}
// [kernel]

// [launch]
static void prepare(void *data)
{
    struct gather *g = (struct gather *)data;
    settle_grid(g, (const void *)histogram_kernel, cudaSharedmemCarveoutDefault);
}
// [launch]

static void run(void *data, cudaStream_t s)
{
    struct gather *g = (struct gather *)data;
    CUDA_CHECK(cudaMemsetAsync(g->next, 0, sizeof *g->next, s));
    histogram_kernel<<<g->grid, BLOCK, 0, s>>>(g->hist, g->next, g->keys, g->table, g->window,
                                               g->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
