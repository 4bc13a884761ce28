/* Accuracy tables, the host side: see accuracy.h. */
#include "accuracy.h"
#include "check.h"

#include <math.h>

void accuracy_grid(float *x, int n, double lo, double hi)
{
    for (int j = 0; j < n; j++)
        x[j] = (float)(lo + (hi - lo) * j / (n - 1));
}

void accuracy_grid_pm(float *x, int n, double lo, double hi)
{
    for (int j = 0; j < n / 2; j++) {
        x[2 * j] = (float)(lo + (hi - lo) * j / (n / 2 - 1));
        x[2 * j + 1] = -x[2 * j];
    }
}

static double worse(double e, double err, float got, double ref)
{
    if (got != got && ref == ref)
        return INFINITY;
    return fmax(e, err);
}

double accuracy_worst_ulp(const float *got, size_t stride, const double *ref, int n)
{
    double e = 0;
    for (int k = 0; k < n; k++) {
        float g = got[(size_t)k * stride];
        e = worse(e, ulp_distance_f32(g, ref[k]), g, ref[k]);
    }
    return e;
}

double accuracy_worst_abs(const float *got, size_t stride, const double *ref, int n)
{
    double e = 0;
    for (int k = 0; k < n; k++) {
        float g = got[(size_t)k * stride];
        e = worse(e, fabs((double)g - ref[k]), g, ref[k]);
    }
    return e;
}

/* The expressions are those the chapters wrote inline, operation for
 * operation, so their bounds keep every bit (tests/unit/test_accuracy.c). */
double compensated_sum_bound(int n, double mass)
{
    const double u = 0x1.0p-24, K = n;
    return (2 * u + 16 * K * u * u) * mass;
}

double compensated_sum_check_bound(int n, double mass)
{
    const double K = n;
    return (n == 1 ? 0 : compensated_sum_bound(n, mass)) + (8 * K + 8) * 0x1.0p-53 * (mass + K);
}
