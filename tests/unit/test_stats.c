/* The harness's statistics: median, quartiles, noise, bad input. */
#include "../../common/stats.h"
#include "unit.h"

#include <math.h>

int main(void)
{
    struct stats s;
    double odd[] = {5, 1, 4, 2, 3};
    EXPECT(stats_compute(odd, 5, &s) == 0);
    EXPECT(s.median == 3 && s.min == 1 && s.max == 5);
    EXPECT(s.q1 == 2 && s.q3 == 4);
    EXPECT_NEAR(s.noise, 2.0 / 3.0, 1e-12);
    EXPECT(odd[0] == 5); /* the caller's samples are not reordered */

    double even[] = {10, 40, 20, 30};
    EXPECT(stats_compute(even, 4, &s) == 0);
    EXPECT(s.median == 25);               /* interpolated between 20 and 30 */
    EXPECT_NEAR(s.q1, 17.5, 1e-12);       /* 10 + 0.75 * (20 - 10) */
    EXPECT_NEAR(s.q3, 32.5, 1e-12);

    /* One outlier moves the mean a lot and the median not at all. */
    double spike[21];
    for (int i = 0; i < 21; i++)
        spike[i] = 100.0;
    spike[7] = 100000.0;
    EXPECT(stats_compute(spike, 21, &s) == 0);
    EXPECT(s.median == 100.0 && s.noise == 0.0 && s.max == 100000.0);

    double one[] = {7};
    EXPECT(stats_compute(one, 1, &s) == 0 && s.median == 7 && s.q1 == 7 && s.q3 == 7);

    double bad[] = {1, NAN, 3};
    EXPECT(stats_compute(bad, 3, &s) == -1);
    double negative[] = {1, -2};
    EXPECT(stats_compute(negative, 2, &s) == -1);
    EXPECT(stats_compute(odd, 0, &s) == -1);
    return UNIT_REPORT();
}
