/* Chapter 30: what naive.cu and optimized.cu share. */
#ifndef HALF2_PROBLEM_H
#define HALF2_PROBLEM_H

#include "chapter.h"

#include <cuda_fp16.h>

#define BLOCK 256
#define MAX_DEGREE 256

/* The coefficients c_0 .. c_degree, each held twice (both halves of a
 * __half2), passed by value: every c[k] is a constant-bank operand of its
 * fused multiply-add, no load instruction. The scalar program uses the low
 * half. */
struct poly {
    __half2 c[MAX_DEGREE + 1];
};

struct horner {
    long n;            /* elements */
    int degree;        /* --degree */
    struct poly p;     /* coefficients, fp16 */
    __half *in, *out;  /* device */
    unsigned short *h_in; /* host input, as fp16 bit patterns */
};

extern const struct problem PROBLEM;

#endif
