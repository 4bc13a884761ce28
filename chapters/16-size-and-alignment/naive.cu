/* Chapter 16, naive: one thread per pixel, one byte loaded and one stored.
 * The 32 loads of a warp are 32 neighbouring bytes, one sector: coalesced.
 * What is small is each instruction: 32 bytes per warp request. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void negative_kernel(unsigned char *out, const unsigned char *in, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 255 - in[i];
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct image *t = (struct image *)data;
    negative_kernel<<<image_blocks(t->n), BLOCK, 0, s>>>(t->out, t->in, t->n);
    CHECK_LAUNCH();
}

/* The image, one byte after another. */
static void prepare(void *data) { image_layout((struct image *)data, 1, 1); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
