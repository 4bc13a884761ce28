/* One CSV row per measured program (pure C). The columns are the contract
 * between the programs and scripts/results.py, which owns the one column list
 * (tests/results/ checks that this header matches it). */
#ifndef COMMON_RESULTS_H
#define COMMON_RESULTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct result_row {
    int chapter;
    const char *slug, *variant;
    const char *gpu;
    int cc_major, cc_minor, sms;
    double sm_clock_mhz;        /* measured during the run */
    const char *driver, *cuda;  /* "13.0" */
    long size;
    const char *knobs;          /* "streams=8;block=256" or "" */
    unsigned long long seed;
    const char *method;         /* how it was timed: "events, cold L2" ... */
    int samples;
    double median_us, min_us, q1_us, q3_us, noise_pct;
    double rate;                /* negative when not applicable (time-only chapters) */
    const char *rate_unit;      /* "GB/s", "GFLOP/s", "Gop/s", "Glookup/s"; "" without a rate */
    const char *roof_name;      /* "copy", "fp32", ... or "" */
    double roof, pct_roof;      /* negative when not applicable */
    int check_passed;
    double max_err;
    const char *source_hash, *commit, *date;
    const char *host;           /* "CPU model, N cores" (common/host.h) */
    double host_copy_gbs;       /* one core's memcpy, GB/s; negative when not measured */
    double host_copy_all_gbs;   /* every usable core's memcpy, GB/s; negative when not measured */
};

const char *results_header(void);

/* Format one row (no newline). Returns the length, or -1 if it did not fit. */
int results_format(char *buf, size_t len, const struct result_row *r);

/* Append the row to path, writing the header first if the file is new or
 * empty. Returns 0, or -1 with errno set. */
int results_append(const char *path, const struct result_row *r);

#ifdef __cplusplus
}
#endif

#endif
