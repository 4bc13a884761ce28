/* sin(pi t) and cos(pi t) with an exact reduction: see sinpi.h. */
#include "sinpi.h"

#include <math.h>

/* pi rounded to double (PI_DOUBLE, which strict C11 does not declare). */
#define PI_DOUBLE 3.14159265358979323846

/* r = t - 2 rint(t / 2) is exact in double (t / 2 and the product by 2 are
 * exact, and the difference, at most 1 in size, keeps t's spacing), and it
 * is t's position in the period 2 of sin(pi t), in [-1, 1]. Folding r into
 * [-1/2, 1/2] by symmetry (1 - r is exact there) puts every zero of the sine
 * at r = 0, where libm's sin is exactly 0; the cosine is the sine a quarter
 * period on, with the sign the fold flipped. */
void sincospi_exact(double t, double *s, double *c)
{
    double r = t - 2 * rint(t / 2), sign = 1;
    if (r > 0.5)
        r = 1 - r, sign = -1; /* sin(pi (1 - r)) = sin(pi r); cos changes sign */
    else if (r < -0.5)
        r = -1 - r, sign = -1;
    *s = sin(PI_DOUBLE * r);
    *c = sign * sin(PI_DOUBLE * (0.5 - fabs(r)));
}

double sinpi_exact(double t)
{
    double s, c;
    sincospi_exact(t, &s, &c);
    return s;
}
