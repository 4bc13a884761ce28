/* Chapter 13: what naive.cu and optimized.cu share. */
#ifndef PINNED_PROBLEM_H
#define PINNED_PROBLEM_H

#include "chapter.h"

#include <time.h>

struct transfer {
    size_t bytes;           /* --size: bytes moved by one transfer */
    int to_host;            /* --direction 1: device to host; 0: host to device */
    unsigned char *input;   /* the seeded data (plain malloc): the reference */
    unsigned char *staging; /* the program's host buffer, made in its prepare() */
    unsigned char *device;  /* device buffer */
};

extern const struct problem PROBLEM;

/* Wall clock in seconds, for the untimed allocation report. */
static inline double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Copy the input into the freshly allocated staging buffer (so every page is
 * touched before the timing starts) and print how long allocation plus fill
 * took since t0: the price of the buffer, which the timed runs do not see. */
void staging_fill(struct transfer *t, const char *kind, double t0);

#endif
