#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted data by linear interpolation (R's type 7). */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - lo;
    return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

int stats_compute(const double *samples, int n, struct stats *s)
{
    if (n < 1)
        return -1;
    for (int i = 0; i < n; i++)
        if (!isfinite(samples[i]) || samples[i] < 0)
            return -1;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    memcpy(v, samples, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->q1 = quantile(v, n, 0.25);
    s->median = quantile(v, n, 0.5);
    s->q3 = quantile(v, n, 0.75);
    s->noise = s->median > 0 ? (s->q3 - s->q1) / s->median : 0;
    free(v);
    return 0;
}
