/* Chapter 26: what naive.cu and optimized.cu share. */
#ifndef LITERALS_PROBLEM_H
#define LITERALS_PROBLEM_H

#include "chapter.h"
#include "pool.h"

#include <stdint.h>

#define BLOCK 256
/* Inputs lie in [-1, 1): every argument a = x * (k / terms) has |a| <= 1, so
 * Horner's rule never amplifies an earlier rounding error (see problem.cu). */
#define INPUT_LIMIT 1.0f

struct literals {
    long n;          /* elements */
    int terms;       /* --terms: polynomial evaluations per element */
    float step;      /* 1.0f / terms, so a_k = x * (k * step) runs up to x */
    float *in, *out; /* device input and output */
    float *values;    /* the distinct input values; input i is values[pool.pick[i]] */
    struct pool pool; /* pool-and-pick inputs (common/pool.h) */
    int rule;        /* the program's check_rule */
};

/* What each program declares as the check_rule of its struct variant: how
 * its polynomial rounds, and so the error bound the check derives. */
enum literals_rule {
    RULE_DOUBLE_LITERALS = 1, /* p * a in float, + c in double, back to float */
    RULE_FLOAT_LITERALS = 2   /* fmaf(p, a, c) with c rounded to float */
};

extern const struct problem PROBLEM;

static inline unsigned literals_grid(long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

#endif
