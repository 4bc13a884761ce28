/* Chapter 27: what naive.cu and optimized.cu share. */
#ifndef DIVSQRT_PROBLEM_H
#define DIVSQRT_PROBLEM_H

#include "chapter.h"
#include "pool.h"

#include <stdint.h>

#define BLOCK 256
/* Each element is a point (x, y) seen from `terms` equal sources on the
 * x axis between -1 and 1. Its input is x in [-1, 1) and b = y^2 + a
 * softening, in [B_MIN, 1): the squared distance r2 = (x - s)^2 + b is then
 * at least B_MIN, well inside the range [2^-126, 2^126] where __fdividef has
 * a documented error bound. */
#define B_MIN 0.015625f

struct divsqrt {
    long n;           /* elements */
    int terms;        /* --terms: sources per element */
    float h;          /* 2.0f / terms, the spacing of the sources */
    float2 *in;       /* device input: (x, b) */
    float *out;       /* device output */
    float2 *values;   /* the distinct points; point i is values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
    int rule;         /* the program's check_rule */
    int fast_div;     /* 1 if it calls __fdividef, not '/' */
    int fast_rsqrt;   /* 1 if it calls rsqrtf, not 1.0f / sqrtf */
    double *terms_sum; /* per pool value: the sum and the sum of magnitudes of the
                        * terms as this GPU computes them (problem.cu, summation_of) */
};

/* What each program declares as the check_rule of its struct variant: the
 * operations it uses, and so the documented error bounds the check applies. */
enum divsqrt_rule {
    RULE_IEEE = 1,       /* x / y, sqrtf, 1.0f / x: correctly rounded (0.5 ulp) */
    RULE_INTRINSICS = 2, /* __fdividef 2 ulp for |y| in [2^-126, 2^126]; rsqrtf 2 ulp */
    RULE_FDIVIDEF = 3,   /* __fdividef, and 1.0f / sqrtf (exercise 3) */
    RULE_RSQRTF = 4      /* x / y, and rsqrtf (exercise 3) */
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
#if defined(PLANT_KAHAN_DROPPED) /* planted fault: no compensation, a plain float sum */
    *comp = 0.0f;
#elif defined(PLANT_KAHAN_FLIPPED) /* planted fault: the correction added, not removed */
    *comp = __fsub_rn(y, __fsub_rn(s, *sum));
#else
    *comp = __fsub_rn(__fsub_rn(s, *sum), y);
#endif
    *sum = s;
}

static inline unsigned divsqrt_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
