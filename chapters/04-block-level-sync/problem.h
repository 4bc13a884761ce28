/* Chapter 04: what naive.cu and optimized.cu share. */
#ifndef SOFTMAX_PROBLEM_H
#define SOFTMAX_PROBLEM_H

#include "chapter.h"

struct softmax {
    long n;          /* the matrix is n x n floats, row-major; softmax along each row */
    int threads;     /* threads per block (knob), a multiple of 32: one block per row */
    float *in;       /* device input */
    float *out;      /* device output: out[r][j] = exp(in[r][j] - max_r) / sum_r */
    float *h_in;     /* host copy of the input, for the reference */
    float *row_max;  /* naive.cu only: each row's max, n floats in global memory */
    float *row_sum;  /* naive.cu only: each row's sum of exponentials, n floats */
};

/* Each row's inputs lie within 4 of +ROW_OFFSET or -ROW_OFFSET (problem.cu):
 * far enough from 0 that expf overflows or underflows unless the row's own
 * maximum is subtracted, so the check sees a missing or wrong maximum. */
#define ROW_OFFSET 96.0f

extern const struct problem PROBLEM;

#endif
