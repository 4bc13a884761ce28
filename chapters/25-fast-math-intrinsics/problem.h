/* Chapter 25: what naive.cu and optimized.cu share. */
#ifndef FASTMATH_PROBLEM_H
#define FASTMATH_PROBLEM_H

#include "chapter.h"
#include "pool.h"

#include <stdint.h>

#define BLOCK 256
/* Inputs lie in [-INPUT_LIMIT, INPUT_LIMIT), a little inside [-pi, pi]: every
 * argument a kernel evaluates has |a| <= |x|, the range where __sinf has a
 * documented error bound. */
#define INPUT_LIMIT 3.14159f

struct fastmath {
    long n;          /* elements */
    int terms;       /* --terms: sin+exp pairs per element */
    float step;      /* 1.0f / terms, so a_k = x * (k * step) runs up to x */
    float *in, *out; /* device input and output */
    float *values;    /* the distinct input values; input i is values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
    int fast_sin;    /* 1 if the program calls __sinf, not sinf (its check_rule) */
    int fast_exp;    /* 1 if it calls __expf, not expf: the check applies the
                      * error bounds of the functions called */
    double *terms_sum; /* per pool value: the sum and the sum of magnitudes of the
                        * terms as this GPU computes them (problem.cu, summation_of) */
};

/* What each program declares as the check_rule of its struct variant: the
 * functions it calls, and so the documented error bounds the check applies. */
enum fastmath_rule {
    RULE_SINF_EXPF = 1,   /* sinf and expf: 2 ulp each */
    RULE_INTRINSICS = 2,  /* __sinf and __expf: 2^-21.41 absolute on [-pi, pi]; 2 + floor(1.173|a|) ulp */
    RULE_FAST_SIN = 3,    /* __sinf and expf (exercise 3) */
    RULE_FAST_EXP = 4     /* sinf and __expf (exercise 3) */
};

extern const struct problem PROBLEM;

/* Compensated (Kahan) summation: comp carries the low-order bits that the
 * rounding of sum drops, which keeps the rounding error of the whole sum near
 * two units in the last place instead of growing with the number of terms.
 * The _rn intrinsics are plain IEEE adds that the compiler may neither fuse
 * nor reorder. */
static __device__ __forceinline__ void kahan_add(float *sum, float *comp, float t)
{
    float y = __fsub_rn(t, *comp);
    float s = __fadd_rn(*sum, y);
#if defined(PLANT_KAHAN_DROPPED) /* planted fault: no compensation, a plain float sum */
    *comp = 0.0f;
#elif defined(PLANT_KAHAN_FLIPPED) /* planted fault: the correction added, not removed */
    *comp = __fsub_rn(y, __fsub_rn(s, *sum));
#else
    *comp = __fsub_rn(__fsub_rn(s, *sum), y);
#endif
    *sum = s;
}

static inline unsigned fastmath_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
