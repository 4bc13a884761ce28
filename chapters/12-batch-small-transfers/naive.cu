/* Chapter 12, naive: each piece goes to the device by its own
 * cudaMemcpyAsync, as soon as the loop reaches it. The copies do not wait for
 * one another, but every call pays the driver's fixed cost on the host, and
 * every piece is a DMA of its own; for 4 KiB that cost is many times the time
 * the bytes take on the link. */
#include "problem.h"
#include "cuda_check.h"

// [send]
/* Timed: one cudaMemcpyAsync per piece, from where it lies to its place, on the
 * program's stream (the pool is pinned, so each call only queues its copy). */
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    for (long i = 0; i < b->pieces; i++) {
#ifdef PLANT_WRONG_SLOT
        const unsigned char *src = b->pool + (size_t)i * b->piece; /* not where piece i lies */
#else
        const unsigned char *src = piece_at(b, i);
#endif
        CUDA_CHECK(cudaMemcpyAsync(b->device + (size_t)i * b->piece, src, piece_bytes(b, i),
                                   cudaMemcpyHostToDevice, s));
    }
}
// [send]

static void release(void *data) { report_batch((const struct batch *)data); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
