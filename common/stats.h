/* Summary statistics of timing samples (pure C). */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

struct stats {
    int n;
    double min, q1, median, q3, max;
    double noise; /* (q3 - q1) / median: the interquartile spread as a fraction */
};

/* Summarize n >= 1 samples (the array is not modified). Quartiles use linear
 * interpolation between order statistics. Returns 0, or -1 if n < 1 or a
 * sample is not a finite non-negative number. */
int stats_compute(const double *samples, int n, struct stats *s);

#ifdef __cplusplus
}
#endif

#endif
