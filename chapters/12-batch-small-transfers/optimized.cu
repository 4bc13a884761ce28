/* Chapter 12, optimized: the pieces are packed on the host into one pinned
 * buffer, in their order on the device, and sent with one cudaMemcpy: one
 * fixed cost, one DMA at the link's rate. Packing is a copy by one CPU core,
 * and it is timed: pieces that already lie one after the other
 * (--scattered 0) need none. */
#include "problem.h"
#include "cuda_check.h"

#include <string.h>

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
    (void)s; /* cudaMemcpy uses the default stream; the harness waits for the device */
    const unsigned char *batch = b->pool; /* adjacent pieces are a batch already */
    if (b->scattered) {
        for (long i = 0; i < b->pieces; i++)
            memcpy(b->staging + (size_t)i * b->piece, piece_at(b, i), piece_bytes(b, i));
        batch = b->staging;
    }
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
