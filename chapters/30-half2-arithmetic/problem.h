/* Chapter 30: what naive.cu and optimized.cu share. */
#ifndef HALF2_PROBLEM_H
#define HALF2_PROBLEM_H

#include "chapter.h"

#include <cuda_fp16.h>

#define BLOCK 256
#define MAX_DEGREE 256

/* The coefficients c_0 .. c_degree, passed by value (kernel parameters live
 * in a constant bank: no global load; ptxas fetches them into registers
 * with LDC.64, four coefficients a load), packed the same for both programs. */
struct poly {
    __half c[MAX_DEGREE + 1];
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
