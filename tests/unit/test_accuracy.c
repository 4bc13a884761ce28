/* The accuracy tables' host side: grids hit their ends and are evenly
 * spaced; the worst error finds the one wrong point, in ulps and absolute,
 * reads only its own column, and counts a NaN as infinitely wrong. */
/* needs: check */
#include "../../common/accuracy.h"
#include "unit.h"

#include <math.h>

#define N 1000

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
    return UNIT_REPORT();
}
