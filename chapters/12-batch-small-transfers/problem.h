/* Chapter 12: what naive.cu and optimized.cu share. */
#ifndef BATCH_PROBLEM_H
#define BATCH_PROBLEM_H

#include "chapter.h"

#include <stddef.h>

struct batch {
    size_t bytes;           /* --size: bytes sent to the device, all pieces together */
    size_t piece;           /* --piece: bytes of one piece (the last may be shorter) */
    long pieces;            /* ceil(bytes / piece) */
    int scattered;          /* --scattered: 1 the pieces lie at random slots of the pool */
    int pack;               /* --pack: how optimized.cu gathers scattered pieces (enum pack) */
    unsigned char *pool;    /* pinned host memory: 2 * pieces slots of `piece` bytes */
    long *slot;             /* piece i lies at pool + slot[i] * piece */
    long *d_slot;           /* the same on the device, for the gather kernel (--pack 2): the
                             * pieces' places do not change between sends, so it is uploaded
                             * once, untimed, like the pool's contents */
    /* The same places as the lists cudaMemcpyBatchAsync takes (--pack 3, and the report's
     * batch-API figure): destination, source and bytes of each piece, built once, untimed,
     * for the same reason. */
    void **dsts;
    void **srcs;
    size_t *sizes;
    unsigned char *staging; /* optimized.cu's pinned buffer for the packed batch (--pack 0, 1) */
    unsigned char *device;  /* the pieces, packed, on the device */
};

extern const struct problem PROBLEM;

/* Bytes of piece i: `piece`, or what is left for the last one. */
static inline size_t piece_bytes(const struct batch *b, long i)
{
    size_t first = (size_t)i * b->piece;
    return b->bytes - first < b->piece ? b->bytes - first : b->piece;
}

/* Piece i where it lies in the host pool. */
static inline const unsigned char *piece_at(const struct batch *b, long i)
{
    return b->pool + (size_t)b->slot[i] * b->piece;
}

/* How the optimized program gathers scattered pieces into one operation:
 * one host core copies them into a pinned buffer and one copy sends it (the
 * guideline as the guide states it: its time is one core's memcpy rate),
 * every host core packs (OpenMP), one kernel reads them where they lie in
 * the mapped pinned pool and writes them packed (the default: one operation,
 * no host copy, bounded by the link), or one cudaMemcpyBatchAsync call hands
 * the runtime all the pieces' places (CUDA 12.8+: one call, but the copy
 * engine still moves each piece as a copy of its own). */
enum pack { PACK_ONE_CORE, PACK_EVERY_CORE, PACK_ON_DEVICE, PACK_BATCH_API };

/* Copy every piece to dst + i * piece, on one host core or on all of them. */
void pack_on_host(const struct batch *b, unsigned char *dst, int every_core);

/* One cudaMemcpyBatchAsync on `stream`: every piece from where it lies to its
 * place in b->device, in one call. */
void send_batch_api(const struct batch *b, cudaStream_t stream);

/* The chapter's evidence, printed after the timing: the pieces, one copy of
 * all the bytes alone (the link's rate), one packing alone (one core), and one
 * batch-API call alone. */
void report_batch(const struct batch *b);

#endif
