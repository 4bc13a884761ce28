/* Pool-and-pick inputs: see pool.h. */
#include "pool.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *pool_alloc(size_t bytes)
{
    void *q = malloc(bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "error: could not allocate %.2f GiB of host memory; try a smaller --size\n",
                bytes / 1073741824.0);
        exit(4);
    }
    return q;
}

void pool_init(struct pool *p, long n, long limit, uint64_t seed, uint64_t stream)
{
    p->n = n;
    p->size = n < limit ? n : limit;
    p->pick = (int32_t *)pool_alloc((size_t)n * sizeof(int32_t));
    rng_fill_i32(p->pick, (size_t)n, 0, (int32_t)(p->size - 1), seed, stream);
}

void pool_spread(const struct pool *p, void *dst, const void *values, size_t elem)
{
    char *d = (char *)dst;
    const char *v = (const char *)values;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < p->n; i++)
        memcpy(d + (size_t)i * elem, v + (size_t)p->pick[i] * elem, elem);
}

double pool_check(const struct pool *p, const float *got, int width, pool_reference_fn fn,
                  const void *ctx, struct check_report *r)
{
    size_t m = (size_t)p->size * (size_t)width;
    double *ref = (double *)pool_alloc(m * sizeof(double));
    double *bound = (double *)pool_alloc(m * sizeof(double));
#pragma omp parallel for schedule(dynamic, 64)
    for (long v = 0; v < p->size; v++)
        fn(ctx, v, ref + (size_t)v * width, bound + (size_t)v * width);
    double worst = check_pooled_f32(got, (size_t)p->n, width, p->pick, ref, bound, r);
    free(ref);
    free(bound);
    return worst;
}

void pool_free(struct pool *p)
{
    free(p->pick);
    p->pick = NULL;
}
