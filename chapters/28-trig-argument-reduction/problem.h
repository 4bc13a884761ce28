/* Chapter 28: what naive.cu and optimized.cu share. */
#ifndef TRIGRED_PROBLEM_H
#define TRIGRED_PROBLEM_H

#include "chapter.h"

#include <stdint.h>

#define BLOCK 256
/* Frequencies lie in [F_MIN, 0.5) cycles per sample. With f >= 2^-6 and
 * phases below 2^21 cycles, the phase of sample k, p + k f, is exact in
 * double, so the host reproduces the kernel's fmaf bit for bit (problem.cu). */
#define F_MIN 0.015625f

struct trigred {
    long n;           /* oscillators */
    int terms;        /* --terms: samples per oscillator */
    int octave;       /* --octave: start phases in [2^octave, 2^(octave+1)) cycles */
    float2 *in;       /* device input: (start phase p in cycles, frequency f) */
    float2 *out;      /* device output: (sum of cos, sum of sin) */
    float2 *h_in;     /* host input */
    float2 *pool;     /* the distinct input values (see problem.cu) */
    int32_t *pick;    /* h_in[i] = pool[pick[i]] */
    long npool;
    int rule;         /* the program's check_rule */
};

/* What each program declares as the check_rule of its struct variant: the
 * functions it calls on which argument, and so the error bound the check
 * derives. */
enum trigred_rule {
    RULE_SINF_RADIANS = 1, /* sinf, cosf (2 ulp) of w = fl(6.2831855f q) */
    RULE_SINPI_WRAPPED = 2 /* sinpif, cospif (1 ulp) of t = 2 (q - rint(q)), exact */
};

extern const struct problem PROBLEM;

/* Compensated (Kahan) summation: comp carries the low-order bits that the
 * rounding of sum drops, so the rounding error of the whole sum stays near
 * two units in the last place of the sum of magnitudes instead of growing
 * with the number of terms. The _rn intrinsics are plain IEEE adds that the
 * compiler may neither fuse nor reorder. */
static __device__ __forceinline__ void kahan_add(float *sum, float *comp, float t)
{
    float y = __fsub_rn(t, *comp);
    float s = __fadd_rn(*sum, y);
    *comp = __fsub_rn(__fsub_rn(s, *sum), y);
    *sum = s;
}

static inline unsigned trigred_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
