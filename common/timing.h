/* The timing harness: warm-up, then at least 20 samples (more until half a
 * second has been timed), median and quartiles. */
#ifndef COMMON_TIMING_H
#define COMMON_TIMING_H

#include "chapter.h"
#include "flush.h"
#include "stats.h"

struct timing_opts {
    int min_samples;      /* >= 20 */
    double min_total_s;   /* keep sampling until this much has been timed */
    int warm_l2;          /* 1: skip the flush */
};

struct timing_result {
    struct stats us;      /* per run, microseconds */
    char method[96];      /* how it was timed, in words, for the results row */
    int batch;            /* runs per sample (1 unless the work is too short) */
};

/* Work shorter than this is timed in batches: launch overhead (several us)
 * and event resolution would otherwise dominate a single sample. */
#define SHORT_WORK_US 20.0

/* The host's monotonic clock, in seconds. */
double host_now_s(void);

void time_variant(enum timing mode, const struct variant *v, void *data, cudaStream_t s,
                  const struct l2_flusher *fl, const struct timing_opts *o,
                  struct timing_result *r);

#endif
