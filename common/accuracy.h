/* Accuracy tables: the largest error of a function, as the GPU computes it,
 * against a double reference over a fixed grid of arguments (the same in
 * every run, so the figures do not depend on the seed). Chapters 25, 27, 28
 * and 31 print such a table beside their check: which functions and which
 * bands are the chapter's; the grid, the run and the worst error are here.
 * Also the error bounds those checks share (compensated summation). */
#ifndef COMMON_ACCURACY_H
#define COMMON_ACCURACY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n points evenly spaced over [lo, hi], both ends included (n >= 2). */
void accuracy_grid(float *x, int n, double lo, double hi);

/* n points (n even) at +-[lo, hi]: pairs x, -x with x evenly spaced. */
void accuracy_grid_pm(float *x, int n, double lo, double hi);

/* Largest ulp distance (ulp_distance_f32) and largest absolute error of
 * got[k * stride], k < n, from ref[k]. A NaN result where the reference is
 * not NaN counts as infinitely wrong. */
double accuracy_worst_ulp(const float *got, size_t stride, const double *ref, int n);
double accuracy_worst_abs(const float *got, size_t stride, const double *ref, int n);

/* Runs kernel(out, in, n, arg), a __global__ function of that signature
 * (float *, const float *, int, int), on n points: `ins` floats per point in
 * in, `outs` floats per point written to out. Copies in to the GPU and out
 * back; one thread per point. */
void accuracy_eval(const void *kernel, const float *in, int ins, float *out, int outs, int n,
                   int arg);

/* Kahan's compensated summation of n floats, with u = 2^-24 (float's unit
 * roundoff), errs by at most (2u + O(n u^2)) sum |t_k| (Higham, "Accuracy
 * and Stability of Numerical Algorithms", 2nd ed., sec. 4.3; Goldberg, "What
 * every computer scientist should know about floating-point arithmetic",
 * Thm. 8). Returns (2u + 16 n u^2) * mass, mass = sum |t_k|: 16 n u^2 covers
 * the second-order part generously and is under 0.05 % of 2u at n = 1024.
 * Chapters 25, 27 and 28 add to it their reference's own error. */
double compensated_sum_bound(int n, double mass);

/* The summation checks of chapters 25, 27 and 28: a float Kahan sum of n
 * terms against the same terms summed in double on the GPU (sum and mass =
 * sum |t_k| both in double). compensated_sum_bound, but 0 for one term (the
 * first add into a zero sum is exact), plus (8n + 8) 2^-53 (mass + n) for the
 * double sums' own n - 1 roundings, which also keeps a zero sum's bound above
 * zero. */
double compensated_sum_check_bound(int n, double mass);

#ifdef __cplusplus
}
#endif

#endif
