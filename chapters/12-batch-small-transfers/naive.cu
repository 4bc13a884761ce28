/* Chapter 12, naive: each piece goes to the device by its own cudaMemcpy, as
 * soon as the loop reaches it. Every call pays the driver's fixed cost and a
 * DMA of its own, and for 4 KiB that cost is many times the time the bytes
 * take on the link. */
#include "problem.h"
#include "cuda_check.h"

// [send]
/* Timed: one cudaMemcpy per piece, from where it lies to its place. */
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    (void)s; /* cudaMemcpy uses the default stream; the harness waits for the device */
    for (long i = 0; i < b->pieces; i++)
        CUDA_CHECK(cudaMemcpy(b->device + (size_t)i * b->piece, piece_at(b, i),
                              piece_bytes(b, i), cudaMemcpyHostToDevice));
}
// [send]

static void release(void *data) { report_batch((const struct batch *)data); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
