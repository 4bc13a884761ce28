/* Chapter 18, naive: each thread counts the symbols of its record into a
 * small per-thread array, hist[bin]++. The index comes from the data, so the
 * compiler cannot give each element a register: the array goes to local
 * memory, and every count is a load and a store. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int BINS> /* --bins picks the instance */
__global__ void histogram_kernel(uint8_t *out, const uint32_t *in, long n)
{
    long r = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (r >= n)
        return;
    int hist[BINS];
    for (int b = 0; b < BINS; b++)
        hist[b] = 0;
    for (int k = 0; k < RECORD_WORDS; k++) {
        uint32_t w = in[k * n + r];
        for (int s = 0; s < 4; s++) {
            uint32_t bin = ((w >> (8 * s)) & 255u) / (256 / BINS);
            hist[bin]++;
        }
    }
    for (int b = 0; b < BINS; b++)
        out[b * n + r] = (uint8_t)hist[b];
}
// [kernel]

static histogram_fn kernel_for(int bins)
{
    switch (bins) { /* the knob admits only these */
    case 4: return histogram_kernel<4>;
    case 8: return histogram_kernel<8>;
    case 32: return histogram_kernel<32>;
    case 64: return histogram_kernel<64>;
    default: return histogram_kernel<DEFAULT_BINS>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct localmem *h = (struct localmem *)data;
    histogram_fn k = kernel_for(h->bins);
    k<<<localmem_grid(h->n), BLOCK, 0, s>>>(h->out, h->in, h->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
