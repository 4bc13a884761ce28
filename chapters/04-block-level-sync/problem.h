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

/* Both programs read and write rows as 16-byte float4 quads. A row of n floats
 * starts 16-byte aligned only when n is a multiple of 4 (the default size is);
 * otherwise row r starts 4 r n bytes into the matrix, at any multiple of 4
 * bytes. So a row is split into `head` floats before its first 16-byte
 * boundary, `quads` aligned quads, and `tail` floats after them; the input and
 * the output split alike (cudaMalloc aligns both to 256 bytes). */
struct row_split {
    int head;   /* 0..3 floats before the first quad */
    long quads; /* aligned quads */
    int tail;   /* 0..3 floats after the last quad */
};

static __device__ __forceinline__ struct row_split split_row(const float *x, long n)
{
    struct row_split r;
    long head = (long)((16 - ((unsigned long long)x & 15)) & 15) / 4;
    r.head = (int)(head < n ? head : n);
    r.quads = (n - r.head) / 4;
    r.tail = (int)(n - r.head - 4 * r.quads);
    return r;
}

/* The row's e-th float outside the quads (e < head + tail, at most 6): one
 * each for threads 0, 1, ... of the block, which has at least 32. */
static __device__ __forceinline__ long edge_index(struct row_split r, int e)
{
    return e < r.head ? e : r.head + 4 * r.quads + (e - r.head);
}

/* The one exponential both programs compute: exp(x - max), x - max exact. */
static __device__ __forceinline__ float exp_shifted(float x, float m)
{
#ifdef PLANT_FAST_EXP
    return __expf(x - m); /* planted: the intrinsic where expf is meant; the check must fail */
#else
    return expf(x - m);
#endif
}

#endif
