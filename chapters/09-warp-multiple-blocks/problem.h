/* Chapter 09: what naive.cu and optimized.cu share. */
#ifndef WARP_MULTIPLE_PROBLEM_H
#define WARP_MULTIPLE_PROBLEM_H

#include "chapter.h"

/* Each element is iterated through the quadratic map x <- x * x - MAP_C, one
 * fused multiply-add per iteration. With MAP_C = 1.9 every x in
 * [-1.9, 1.9] stays there (x * x - 1.9 lies in [-1.9, 1.71]), so no
 * iteration overflows, and the orbit is chaotic: a wrong operation anywhere
 * shows in the result. */
#define MAP_C 1.9f

struct quadmap {
    long n;      /* elements, one per thread */
    int iters;   /* map iterations per element: the --iters knob */
    int block;   /* --block: threads per block for both programs; 0 = each program's own */
    float *in;   /* device input */
    float *out;  /* device output */
    float *h_in; /* host copy of the input, for the reference */
};

extern const struct problem PROBLEM;

/* The block size a program launches: its own choice unless --block says. */
static inline int block_size(const struct quadmap *q, int own) { return q->block ? q->block : own; }

#endif
