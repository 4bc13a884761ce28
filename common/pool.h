/* Pool-and-pick inputs (pure C), for chapters whose CPU reference costs far
 * more than the GPU's work (a double function per term, many terms per
 * element): the inputs are drawn from a pool of at most POOL_MAX distinct
 * values, scattered at random over the array, so that the reference and its
 * error bound are computed once per pool value while every element is still
 * checked against them. The kernels cannot tell. */
#ifndef COMMON_POOL_H
#define COMMON_POOL_H

#include "check.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POOL_MAX 65536L

struct pool {
    long n;        /* elements */
    long size;     /* distinct values: min(n, the chapter's limit) */
    int32_t *pick; /* element i holds pool value pick[i] */
};

/* A pool of min(n, limit) values and a uniform pick for each of n elements,
 * drawn from (seed, stream) with the seeded generator of rng.h. */
void pool_init(struct pool *p, long n, long limit, uint64_t seed, uint64_t stream);

/* dst[i] = values[pick[i]] for n elements of `elem` bytes each. */
void pool_spread(const struct pool *p, void *dst, const void *values, size_t elem);

/* Reference and bound of pool value v: `width` doubles each at ref and bound. */
typedef void (*pool_reference_fn)(const void *ctx, long v, double *ref, double *bound);

/* The check of pooled results: computes every pool value's reference and
 * bound (in parallel; each value's are independent), then holds every element
 * of got (n elements of `width` floats) to its value's bound with
 * check_pooled_f32, whose return value (the largest fraction of a bound used)
 * it returns. */
double pool_check(const struct pool *p, const float *got, int width, pool_reference_fn fn,
                  const void *ctx, struct check_report *r);

void pool_free(struct pool *p);

#ifdef __cplusplus
}
#endif

#endif
