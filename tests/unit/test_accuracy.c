/* The accuracy tables' host side: grids hit their ends and are evenly
 * spaced; the worst error finds the one wrong point, in ulps and absolute,
 * reads only its own column, and counts a NaN as infinitely wrong. The
 * compensated-sum bounds keep, bit for bit, the formula chapters 25, 27 and
 * 28 wrote inline before it moved here, and hold a real Kahan sum that a
 * plain float sum exceeds. */
/* needs: check */
#include "../../common/accuracy.h"
#include "unit.h"

#include <math.h>
#include <string.h>

#define N 1000

/* The chapters' formula as it stood inline (K = terms, mass = sum |t_k|). */
static double inline_bound(int terms, double mass)
{
    const double u = 0x1.0p-24, K = terms;
    return (2 * u + 16 * K * u * u) * mass;
}

static double inline_check_bound(int terms, double mass)
{
    const double u = 0x1.0p-24, K = terms;
    return (terms == 1 ? 0 : (2 * u + 16 * K * u * u) * mass) + (8 * K + 8) * 0x1.0p-53 * (mass + K);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Kahan's sum in float, as the chapters' kernels add their terms. */
static float kahan_f32(const float *t, int n)
{
    float sum = 0.0f, c = 0.0f;
    for (int k = 0; k < n; k++) {
        float y = t[k] - c;
        float s = sum + y;
        c = (s - sum) - y;
        sum = s;
    }
    return sum;
}

static void compensated_sum(void)
{
    const int terms[] = {1, 2, 4, 32, 33, 1024, 1 << 20};
    const double masses[] = {0, 0x1.0p-30, 1, 3.14159, 1e6, 12345.678};
    int same = 1, checks = 1;
    for (size_t a = 0; a < sizeof terms / sizeof *terms; a++)
        for (size_t b = 0; b < sizeof masses / sizeof *masses; b++) {
            same &= same_bits(compensated_sum_bound(terms[a], masses[b]), inline_bound(terms[a], masses[b]));
            checks &= same_bits(compensated_sum_check_bound(terms[a], masses[b]),
                                inline_check_bound(terms[a], masses[b]));
        }
    EXPECT(same);
    EXPECT(checks);
    /* Two values written out: 2u = 2^-23 at the first order. */
    EXPECT(compensated_sum_bound(1, 1) == 0x1.0p-23 + 0x1.0p-44);
    EXPECT(compensated_sum_check_bound(1, 0) == 16 * 0x1.0p-53);

    /* 1 then 1023 terms of 0.4 ulp(1): each vanishes from a plain float sum,
     * which ends 409 ulp short; Kahan's keeps them, within the bound. */
    float t[1024];
    t[0] = 1.0f;
    for (int k = 1; k < 1024; k++)
        t[k] = 0.4f * 0x1.0p-23f;
    double exact = 0, mass = 0, plain = 0;
    float fplain = 0.0f;
    for (int k = 0; k < 1024; k++) {
        exact += t[k];
        mass += fabs((double)t[k]);
        fplain += t[k];
    }
    plain = fplain;
    double bound = compensated_sum_check_bound(1024, mass);
    EXPECT(fabs((double)kahan_f32(t, 1024) - exact) <= bound);
    EXPECT(fabs(plain - exact) > 100 * bound);
}

int main(void)
{
    float x[N], y[N];
    accuracy_grid(x, N, -2, 2);
    EXPECT(x[0] == -2.0f && x[N - 1] == 2.0f);
    int even = 1;
    for (int j = 1; j < N; j++)
        even &= fabs((x[j] - x[j - 1]) - 4.0 / (N - 1)) < 1e-6;
    EXPECT(even);
    accuracy_grid_pm(y, N, 1, 3);
    EXPECT(y[0] == 1.0f && y[1] == -1.0f && y[N - 2] == 3.0f && y[N - 1] == -3.0f);

    /* Two columns: column 0 exact, column 1 off by 3 ulp at one point. */
    float got[2 * N];
    double ref[N];
    for (int j = 0; j < N; j++) {
        ref[j] = 1.0 + j / 1024.0; /* exact floats */
        got[2 * j] = (float)ref[j];
        got[2 * j + 1] = (float)ref[j];
    }
    got[2 * 500 + 1] = nextafterf(nextafterf(nextafterf(got[2 * 500 + 1], 9), 9), 9);
    EXPECT(accuracy_worst_ulp(got, 2, ref, N) == 0);
    EXPECT(accuracy_worst_abs(got, 2, ref, N) == 0);
    EXPECT(accuracy_worst_ulp(got + 1, 2, ref, N) == 3);
    EXPECT(accuracy_worst_abs(got + 1, 2, ref, N) == 3 * 0x1.0p-23);
    got[2 * 7] = NAN;
    EXPECT(isinf(accuracy_worst_ulp(got, 2, ref, N)));
    EXPECT(isinf(accuracy_worst_abs(got, 2, ref, N)));
    compensated_sum();
    return UNIT_REPORT();
}
