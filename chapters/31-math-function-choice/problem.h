/* Chapter 31: what naive.cu and optimized.cu share. */
#ifndef MATHCHOICE_PROBLEM_H
#define MATHCHOICE_PROBLEM_H

#include "chapter.h"
#include "pool.h"

#include <stdint.h>

#define BLOCK 256
#define PI_F 3.14159265f /* pi rounded to float, as a programmer writes it */

/* --function: which computation the kernel repeats, each written two ways. */
enum function {
    FN_CBRT = 1,   /* powf(|a|, 1/3.f), a's sign -> cbrtf(a) */
    FN_EXP2 = 2,   /* powf(2, a)          -> exp2f(a)        */
    FN_SINPI = 3,  /* sinf(PI_F * a)      -> sinpif(a)       */
    FN_SINCOS = 4, /* sinf(a) + cosf(a)   -> sincosf, s + c  */
    FN_SQUARE = 5  /* powf(a, 2)          -> a * a           */
};

struct mathchoice {
    long n;          /* elements */
    int terms;       /* --terms: evaluations per element */
    int fn;          /* --function */
    float step;      /* 1.0f / terms: a_k = x * (k * step), k = 1..terms */
    float *in, *out; /* device */
    float *values;    /* the distinct input values; input i is values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
    int rule;        /* the program's check_rule: which functions it calls */
};

/* What each program declares as the check_rule of its struct variant, so
 * that the check applies the documented error bounds of what it calls. */
enum mathchoice_rule {
    RULE_GENERAL = 1, /* powf, sinf(PI_F * a), sinf and cosf */
    RULE_SPECIFIC = 2 /* cbrtf, exp2f, sinpif, sincosf, a * a */
};

extern const struct problem PROBLEM;

static inline unsigned mathchoice_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
