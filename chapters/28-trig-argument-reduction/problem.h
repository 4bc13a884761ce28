/* Chapter 28: what naive.cu and optimized.cu share. */
#ifndef TRIGRED_PROBLEM_H
#define TRIGRED_PROBLEM_H

#include "chapter.h"
#include "pool.h"

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
    int sinpi;        /* --sinpi: sincospif of half cycles instead of sincosf of radians */
    float2 *in;       /* device input: (start phase p in cycles, frequency f) */
    float2 *out;      /* device output: (sum of cos, sum of sin) */
    float2 *values;   /* the distinct oscillators; oscillator i is values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
    int rule;         /* the program's check_rule */
    double *terms_sum; /* per pool value, for the cosines then the sines: the sum and
                        * the sum of magnitudes of the terms as this GPU computes them
                        * (problem.cu, summation_of) */
};

/* What each program declares as the check_rule of its struct variant: the
 * phase it hands to the trigonometry, and so (with --sinpi) the error bound
 * the check derives. */
enum trigred_rule {
    RULE_RAW_PHASE = 1,    /* the phase q as it is, up to 2^21 cycles */
    RULE_WRAPPED_PHASE = 2 /* q - rint(q), exact, in [-1/2, 1/2] cycle */
};

/* 2 pi, as the compiler rounds the literal 6.28318531f. The check's bound
 * does not read it (problem.cu, two_pi_float). */
#if defined(PLANT_TWO_PI_DIGIT) /* planted fault: one digit of the literal mistyped */
#define TWO_PI_F 6.28318631f
#else
#define TWO_PI_F 6.28318531f
#endif

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

#ifdef __CUDACC__
// [trig]
/* cos and sin of 2 pi x for a phase x in cycles, in one call that shares the
 * argument reduction between the two: --sinpi 0 (SINPI) in radians, sincosf of
 * fl(2 pi x), whose reduction leaves its fast path beyond |2 pi x| = 105615;
 * --sinpi 1 in half cycles, sincospif of 2 x (exact), which reduces any
 * argument exactly and cheaply by itself. */
template <int SINPI>
static __device__ __forceinline__ void sincos_cycles(float x, float *s, float *c)
{
    if (SINPI)
        sincospif(2.0f * x, s, c);
    else
        sincosf(TWO_PI_F * x, s, c);
}
// [trig]
#endif

static inline unsigned trigred_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
