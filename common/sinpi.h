/* sin(pi t) and cos(pi t) in double (pure C), the reference of every chapter
 * that checks a phase in cycles or half-cycles (sinpif, cospif, wrapped
 * phases). libm's sin(M_PI * t) is not exact at t = 1 (it gives 1.2e-16, as
 * M_PI is not pi), which would charge an exact sinpif millions of ulps at a
 * whole or half cycle; these keep every zero and every +-1 exact. */
#ifndef COMMON_SINPI_H
#define COMMON_SINPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* s = sin(pi t), c = cos(pi t) for any finite t. */
void sincospi_exact(double t, double *s, double *c);

/* sin(pi t) alone. */
double sinpi_exact(double t);

#ifdef __cplusplus
}
#endif

#endif
