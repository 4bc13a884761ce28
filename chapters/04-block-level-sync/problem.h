/* Chapter 04: what naive.cu and optimized.cu share. */
#ifndef SOFTMAX_PROBLEM_H
#define SOFTMAX_PROBLEM_H

#include "chapter.h"

struct softmax {
    long n;          /* the matrix is n x n floats, row-major; softmax along each row */
    int threads;     /* threads per block of every kernel (knob), a multiple of 32 */
    float *in;       /* device input */
    float *out;      /* device output: out[r][j] = exp(in[r][j] - max_r) / sum_r */
    float *h_in;     /* host copy of the input, for the reference */
    float *part_max; /* naive.cu only: partial row maxima, n rows of half_width(n) */
    float *part_sum; /* naive.cu only: partial row sums, same shape */
};

extern const struct problem PROBLEM;

/* One level of a pairwise reduction turns a row of w values into ceil(w / 2). */
__host__ __device__ static inline long half_width(long w) { return (w + 1) / 2; }

#endif
