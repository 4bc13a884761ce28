/* The exact sin(pi t): zeros and +-1 exact at whole and half cycles (where
 * libm's sin(M_PI * t) is not), far from zero as accurate as libm, and the
 * period and symmetries kept for large t. */
#include "../../common/sinpi.h"
#include "unit.h"

#include <math.h>

int main(void)
{
    double s, c;
    /* Whole and half cycles, small and large: exactly 0 and +-1. */
    static const double whole[] = {0, 1, -1, 2, 3, -7, 1e6, 0x1.0p52, 0x1.0p60};
    for (int i = 0; i < (int)(sizeof whole / sizeof whole[0]); i++) {
        double t = whole[i];
        sincospi_exact(t, &s, &c);
        EXPECT(s == 0);
        EXPECT(c == (fmod(fabs(t), 2) == 1 ? -1 : 1));
        sincospi_exact(t + 0.5, &s, &c);
        if (fabs(t) < 0x1.0p50) { /* t + 0.5 exact */
            EXPECT(s == (fmod(fabs(t + 0.5) - 0.5, 2) == 0 ? (t >= 0 ? 1 : -1) : (t >= 0 ? -1 : 1)));
            EXPECT(c == 0);
        }
    }
    EXPECT(sinpi_exact(0.5) == 1 && sinpi_exact(-0.5) == -1 && sinpi_exact(1.5) == -1);
    EXPECT(sinpi_exact(1.0) == 0 && sin(M_PI * 1.0) != 0); /* what the fold is for */

    /* Elsewhere, libm's value (within a few double ulps) and the identities. */
    double worst = 0;
    int unit_circle = 1, periodic = 1, odd = 1;
    for (int k = 1; k < 6 * 4096; k++) {
        double t = -3.0 + k / 4096.0 + 0x1.0p-30; /* exact, so t + 2 is too */
        sincospi_exact(t, &s, &c);
        worst = fmax(worst, fabs(s - sin(M_PI * t)));
        worst = fmax(worst, fabs(c - cos(M_PI * t)));
        unit_circle &= fabs(s * s + c * c - 1) < 1e-15;
        periodic &= sinpi_exact(t + 2) == s;
        odd &= sinpi_exact(-t) == -s;
    }
    EXPECT(unit_circle && periodic && odd);
    EXPECT(worst < 1e-14);
    sincospi_exact(0.25, &s, &c);
    EXPECT_NEAR(s, sqrt(0.5), 4e-16);
    EXPECT_NEAR(c, sqrt(0.5), 4e-16);
    sincospi_exact(-0.75, &s, &c);
    EXPECT_NEAR(s, -sqrt(0.5), 4e-16);
    EXPECT_NEAR(c, -sqrt(0.5), 4e-16);
    return UNIT_REPORT();
}
