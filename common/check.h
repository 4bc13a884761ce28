/* Correctness checker (pure C): compares a GPU result with the CPU reference
 * under the rule a chapter declares, and reports the worst errors.
 * Rules shared by every mode: a NaN passes only where the reference is NaN,
 * and an infinity passes only where the reference is the same infinity. */
#ifndef COMMON_CHECK_H
#define COMMON_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum check_mode {
    CHECK_EXACT,   /* bit for bit (copies, transposes, integers) */
    CHECK_ULP,     /* |got - ref| <= ulp units of the float at ref */
    CHECK_ABS_REL, /* |got - ref| <= abs + rel * |ref| */
    CHECK_REL_L2,  /* ||got - ref||_2 / ||ref||_2 <= rel_l2 (long sums, GEMM) */
    CHECK_BOUND    /* |got - ref| <= bound[i], a per-element bound the chapter derives */
};

struct tolerance {
    enum check_mode mode;
    double ulp, abs, rel, rel_l2;
};

#define CHECK_FIRST 5

struct check_report {
    enum check_mode mode;
    size_t n, bad;
    double max_abs, max_ulp, rel_l2;
    size_t worst;                      /* index of the largest error */
    int nfirst;                        /* the first few failures */
    size_t first_index[CHECK_FIRST];
    double first_got[CHECK_FIRST], first_ref[CHECK_FIRST];
    int passed;
};

/* Distance in units in the last place of a float at |ref| (ref may be double). */
double ulp_distance_f32(float got, double ref);

/* Spacing of floats at |x| (one ulp): 2^(e-24) for |x| in [2^(e-1), 2^e), 2^-149 below
 * FLT_MIN. */
double ulp_f32_at(double x);

/* An error of `units` ulps as the CUDA Math API counts them, as an absolute bound near the
 * exact value v. The API counts from the correctly rounded float, itself up to half an ulp
 * from v, so this is units + 1/2 ulps, measured in the ulp at the far end of the interval
 * (the larger one where the interval crosses a power of 2). */
double ulps_f32_bound(double v, double units);

/* CHECK_BOUND for results whose references come from a pool of distinct inputs (chapters
 * whose CPU reference is too costly to compute per element): n elements of `width` floats,
 * float j of element i held to pref[pick[i] * width + j] within pbound[same]. Fills r as
 * check_f32 does and returns the largest fraction of its own bound that any float used
 * (NaN if any result is NaN). */
double check_pooled_f32(const float *got, size_t n, int width, const int32_t *pick,
                        const double *pref, const double *pbound, struct check_report *r);

/* Compare n floats with a reference held as float (ref32) or as double
 * (ref64): pass exactly one. bound is used by CHECK_BOUND only. */
void check_f32(const float *got, const float *ref32, const double *ref64, size_t n,
               const struct tolerance *t, const double *bound, struct check_report *r);

/* Bit-exact comparison of n elements of elem_size bytes (integers, any type). */
void check_bytes(const void *got, const void *ref, size_t n, size_t elem_size,
                 struct check_report *r);

/* One line per fact: mode, elements, failures, worst errors, first failures. */
void check_print(const struct check_report *r, FILE *f);

const char *check_mode_name(enum check_mode m);

#ifdef __cplusplus
}
#endif

#endif
