/* Chapter 12, optimized: all the pieces cross the link in one operation. One
 * kernel reads each piece where it lies in the pinned pool (pinned memory is
 * mapped into the device's address space) and writes it to its place: one
 * launch instead of one call per piece, no host copy, and the bytes move at
 * the link's rate whatever the host's cores can copy. --pack picks another
 * way to make one operation of them: one core (0) or every core (1) packs
 * them into a pinned buffer for one copy, or one cudaMemcpyBatchAsync (3)
 * hands the runtime every piece's place in one call. Pieces that lie one
 * after the other (--scattered 0) are a batch already: one copy. */
#include "problem.h"
#include "cuda_check.h"

// [gather]
/* A block per piece (grid-stride over the pieces): its threads read the piece
 * over the link, 16 bytes each where the piece size allows, and write it to
 * its place. The pool came from cudaMallocHost, so with unified addressing
 * the kernel takes the host pointer as it is. */
__global__ void gather_kernel(unsigned char *dst, const unsigned char *pool, const long *slot,
                              size_t piece, size_t bytes, long pieces)
{
    for (long i = blockIdx.x; i < pieces; i += gridDim.x) {
        size_t first = (size_t)i * piece, len = bytes - first < piece ? bytes - first : piece;
#ifdef PLANT_WRONG_SLOT
        const unsigned char *src = pool + first; /* not where piece i lies */
#else
        const unsigned char *src = pool + (size_t)slot[i] * piece;
#endif
        unsigned char *out = dst + first;
        size_t vec = piece % 16 == 0 ? len / 16 : 0; /* 16-byte aligned at both ends */
        for (size_t k = threadIdx.x; k < vec; k += blockDim.x)
            ((uint4 *)out)[k] = ((const uint4 *)src)[k];
#ifndef PLANT_GATHER_NO_TAIL
        for (size_t k = 16 * vec + threadIdx.x; k < len; k += blockDim.x)
            out[k] = src[k];
#endif
    }
}

/* One launch on the program's stream, enough blocks to keep many reads of the
 * link in flight on every SM (8 blocks of 256 threads fill one). */
static void gather_on_device(const struct batch *b, cudaStream_t s)
{
    int sms;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    long blocks = b->pieces < 8L * sms ? b->pieces : 8L * sms;
    gather_kernel<<<(unsigned)blocks, 256, 0, s>>>(b->device, b->pool, b->d_slot, b->piece,
                                                  b->bytes, b->pieces);
    CHECK_LAUNCH();
}
// [gather]

// [send]
/* Untimed: a pinned buffer for the host packing of --pack 0 and 1. */
static void prepare(void *data)
{
    struct batch *b = (struct batch *)data;
    if (b->scattered && (b->pack == PACK_ONE_CORE || b->pack == PACK_EVERY_CORE))
        b->staging = (unsigned char *)pinned_alloc(b->bytes);
}

/* Timed: all the pieces in one operation on the program's stream. */
static void run(void *data, cudaStream_t s)
{
    struct batch *b = (struct batch *)data;
    if (!b->scattered) { /* adjacent pieces are a batch already */
#ifdef PLANT_WHOLE_PIECES
        size_t n = b->bytes / b->piece * b->piece; /* whole pieces only: the short tail stays */
#else
        size_t n = b->bytes;
#endif
        CUDA_CHECK(cudaMemcpyAsync(b->device, b->pool, n, cudaMemcpyHostToDevice, s));
    } else if (b->pack == PACK_ON_DEVICE) {
        gather_on_device(b, s);
    } else if (b->pack == PACK_BATCH_API) {
        send_batch_api(b, s);
    } else {
        pack_on_host(b, b->staging, b->pack == PACK_EVERY_CORE);
        CUDA_CHECK(cudaMemcpyAsync(b->device, b->staging, b->bytes, cudaMemcpyHostToDevice, s));
    }
}

static void release(void *data)
{
    struct batch *b = (struct batch *)data;
    if (b->staging)
        CUDA_CHECK(cudaFreeHost(b->staging));
    report_batch(b);
}
// [send]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
