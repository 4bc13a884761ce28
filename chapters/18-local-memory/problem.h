/* Chapter 18: what naive.cu and optimized.cu share. */
#ifndef LOCALMEM_PROBLEM_H
#define LOCALMEM_PROBLEM_H

#include "chapter.h"

#include <stdint.h>

#define BLOCK 256
/* A record is 64 byte-sized symbols, held as 16 32-bit words. */
#define RECORD_WORDS 16
#define RECORD_SYMBOLS (4 * RECORD_WORDS)
#define DEFAULT_BINS 16

struct localmem {
    long n;            /* records */
    int bins;          /* --bins: histogram bins per record (a power of two) */
    int packed;        /* --packed 1: optimized.cu keeps four 8-bit counters per register */
    uint32_t *in;      /* device: word k of record r at in[k * n + r] */
    uint8_t *out;      /* device: count of bin b of record r at out[b * n + r] */
    uint32_t *h_in;    /* host copy of the input, same layout */
    uint32_t *pool;    /* the distinct records (see problem.cu), RECORD_WORDS each */
    int32_t *pick;     /* record r is pool record pick[r] */
    long npool;
};

extern const struct problem PROBLEM;

/* A kernel instance of either program: kernel_for (and, optimized with
 * --packed 1, packed_for) picks one for --bins. */
typedef void (*histogram_fn)(uint8_t *, const uint32_t *, long);

static inline unsigned localmem_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
