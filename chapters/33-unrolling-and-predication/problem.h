/* Chapter 33: what naive.cu and optimized.cu share. */
#ifndef UNROLL_PROBLEM_H
#define UNROLL_PROBLEM_H

#include "chapter.h"
#include "cuda_check.h"

/* A 1D convolution with zero padding: out[i] = sum over k = 0..2R of
 * w[k] * in[i + k - R], where in[j] outside 0..n-1 counts as 0. One output
 * per thread; --radius R, a power of two up to MAX_RADIUS. */
#define BLOCK 256
#define MAX_RADIUS 16
#define MAX_TAPS (2 * MAX_RADIUS + 1)

struct conv {
    int n;           /* elements */
    int radius;      /* --radius: 2 radius + 1 taps */
    int select;      /* --select: the zero padding as a select instead of an if */
    float *in, *out; /* device input and output */
    float *in_alloc; /* in's allocation: MAX_RADIUS NaN floats each side of in */
    float *h_in;     /* host input */
    float h_w[MAX_TAPS];
};

extern const struct problem PROBLEM;

/* The weights, in constant memory: every thread of a warp reads the same
 * one at the same time, the case the constant cache serves in one go. Each
 * program file gets its own copy of this array (a __constant__ variable
 * belongs to its translation unit), which upload_weights fills before the
 * first run: the programs name it as their variant's prepare step. */
static __constant__ float c_w[MAX_TAPS];

static inline void upload_weights(void *data)
{
    const struct conv *c = (const struct conv *)data;
    CUDA_CHECK(cudaMemcpyToSymbol(c_w, c->h_w, sizeof c->h_w)); /* NaN past the last tap */
}

#ifdef __CUDACC__
// [tap]
/* One tap: acc + w * in[j], where in[j] outside 0..n-1 counts as 0. Both
 * programs call it; SELECT (--select) writes the padding as an `if` around
 * the load and the FMA (0) or as a select of the loaded value or 0 (1). */
template <int SELECT>
static __device__ __forceinline__ float tap(float acc, float w, const float *in, int j, int n)
{
    if (SELECT)
        return fmaf(w, (j >= 0 && j < n) ? in[j] : 0.0f, acc);
    if (j >= 0 && j < n)
        acc = fmaf(w, in[j], acc);
    return acc;
}
// [tap]
#endif

static inline unsigned conv_grid(int n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
