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
    unsigned char *pool;    /* pinned host memory: 2 * pieces slots of `piece` bytes */
    long *slot;             /* piece i lies at pool + slot[i] * piece */
    unsigned char *staging; /* optimized.cu's pinned buffer for the packed batch */
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

/* The chapter's evidence, printed after the timing: the pieces, one copy of
 * all the bytes alone (the link's rate), and one packing alone (one core). */
void report_batch(const struct batch *b);

#endif
