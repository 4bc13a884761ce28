/* Chapter 06: what naive.cu and optimized.cu share. */
#ifndef LATENCY_PROBLEM_H
#define LATENCY_PROBLEM_H

#include "chapter.h"

/* y = SCALE * x. Any factor would do; 1.5 makes the check depend on the
 * multiply actually happening, and the product is exact to compare. */
#define SCALE 1.5f

struct scale {
    long n;            /* floats in x and in y */
    int sms;           /* multiprocessors of this GPU: the grid is a multiple of it */
    int threads;       /* threads per block of the optimized launch (knob) */
    int blocks_per_sm; /* blocks per SM of the optimized launch (knob) */
    float *x, *y;      /* device input and output */
    float *h_x;        /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

#endif
