/* Chapter 12, optimized: the pieces are packed on the host into one pinned
 * buffer, in their order on the device, and sent with one cudaMemcpy: one
 * fixed cost, one DMA at the link's rate. Packing is a copy by one CPU core
 * (--pack 1: every core), and it is timed: pieces that already lie one after
 * the other (--scattered 0) need none. --pack 2 skips the host copy: one
 * kernel reads the pieces from the mapped pinned pool and writes them packed. */
#include "problem.h"
#include "cuda_check.h"

// [send]
/* Untimed: a pinned buffer to pack the batch into. */
static void prepare(void *data)
{
    struct batch *b = (struct batch *)data;
    b->staging = (unsigned char *)pinned_alloc(b->bytes);
}

/* Timed: pack the pieces (where they are scattered), then one cudaMemcpy. */
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    const unsigned char *batch = b->pool; /* adjacent pieces are a batch already */
    if (b->scattered && b->pack == PACK_ON_DEVICE) {
        gather_on_device(b, s); /* one launch; the harness waits for the device */
        return;
    }
    if (b->scattered) {
        pack_on_host(b, b->staging, b->pack == PACK_EVERY_CORE);
        batch = b->staging;
    }
    /* cudaMemcpy uses the default stream; the harness waits for the device */
    CUDA_CHECK(cudaMemcpy(b->device, batch, b->bytes, cudaMemcpyHostToDevice));
}

static void release(void *data)
{
    struct batch *b = (struct batch *)data;
    CUDA_CHECK(cudaFreeHost(b->staging));
    report_batch(b);
}
// [send]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
