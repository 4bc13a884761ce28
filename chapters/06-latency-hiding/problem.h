/* Chapter 06: what naive.cu and optimized.cu share. */
#ifndef LATENCY_PROBLEM_H
#define LATENCY_PROBLEM_H

#include "chapter.h"

/* y = SCALE * x. Any factor would do; 1.5 makes the check depend on the
 * multiply actually happening, and the product is exact to compare. */
#define SCALE 1.5f

struct scale {
    long n;           /* floats in x and in y */
    int sms;          /* multiprocessors of this GPU: the grid is a multiple of it */
    int warps_per_sm; /* resident warps per SM of the optimized launch (knob) */
    float *x, *y;     /* device input and output */
    float *h_x;       /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

/* The optimized launch puts w warps on every SM as blocks of up to 8 warps
 * (256 threads): w <= 8 is one block of w warps, a larger w is w / 8 blocks
 * of 8 warps. Every block of the grid is resident at once (the kernel's few
 * registers allow 64 warps per SM), and the block scheduler spreads them
 * evenly, so each SM holds exactly w warps for the whole run. */
static inline int threads_for(int w) { return 32 * (w < 8 ? w : 8); }
static inline int blocks_per_sm_for(int w) { return w < 8 ? 1 : w / 8; }

#endif
