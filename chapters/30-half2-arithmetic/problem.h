/* Chapter 30: what naive.cu and optimized.cu share. */
#ifndef HALF2_PROBLEM_H
#define HALF2_PROBLEM_H

#include "chapter.h"

#include <cuda_fp16.h>

#define BLOCK 256
#define MAX_DEGREE 256
/* Independent Horner chains per thread, both programs: each step of one chain
 * waits for the previous (about 4-6 cycles of latency per HFMA2), so a thread
 * with one chain issues at most one FMA per latency; several chains let the
 * scheduler issue from one while the others wait, and the FP16 pipes, not the
 * latency, set the pace. */
#define CHAINS 4

/* The coefficients c_0 .. c_degree, passed by value (kernel parameters live
 * in a constant bank: no global load): once each for the scalar program,
 * twice each (both halves of a __half2) for the paired one. */
struct poly {
    __half c[MAX_DEGREE + 1];
};
struct poly2 {
    __half2 c[MAX_DEGREE + 1];
};

struct horner {
    long n;            /* elements */
    int degree;        /* --degree */
    struct poly p;     /* coefficients, fp16 */
    struct poly2 p2;   /* the same, each duplicated into a __half2 */
    __half *in, *out;  /* device */
    unsigned short *h_in; /* host input, as fp16 bit patterns */
};

extern const struct problem PROBLEM;

#endif
