/* Chapter 29: what naive.cu and optimized.cu share. */
#ifndef INTDIV_PROBLEM_H
#define INTDIV_PROBLEM_H

#include "chapter.h"

#define BLOCK 256
#define CELLS_PER_THREAD 16 /* cells each thread decodes, on average */
#define MAX_WIDTH 1024      /* width^3 must stay below 2^31 */

/* Division by d through a precomputed reciprocal ("magic number"), for
 * dividends below 2^31: q = (hi32(n * m) + n) >> s, where s = ceil(log2 d)
 * and m = floor(2^32 (2^s - d) / d) + 1 (Granlund and Montgomery, "Division
 * by invariant integers using multiplication", 1994; the form used by the
 * index calculators of several tensor libraries). The host computes m and s
 * once; constexpr lets the compiler fold them where d is a literal. */
struct divider {
    unsigned m, s, d;
};

static __host__ __device__ constexpr struct divider divider_of(unsigned d)
{
    unsigned s = 0;
    while ((1ull << s) < d)
        s++;
    unsigned long long m = ((1ull << 32) * ((1ull << s) - d)) / d + 1;
    return {(unsigned)m, s, d};
}

struct decode {
    long n;            /* cells: flat indices 0 .. n-1 */
    unsigned width;    /* --width: the three inner extents */
    unsigned depth;    /* the outer extent, ceil(n / width^3) */
    int literal;       /* --literal: run the instance compiled with width as a literal */
    unsigned threads;  /* threads launched: the grid-stride loop's stride */
    unsigned *sums;    /* device: one checksum per thread */
    double warp_insts; /* warp instructions per 32 cells of the program's loop, set by its
                        * prepare(): the work the issue roof counts (flops()) */
};

/* Widths that have an instance compiled with the width as a literal. */
#define LITERAL_WIDTH 100
#define LITERAL_WIDTH_POW2 64

extern const struct problem PROBLEM;

#endif
