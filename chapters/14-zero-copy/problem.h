/* Chapter 14: what naive.cu and optimized.cu share. */
#ifndef ZERO_COPY_PROBLEM_H
#define ZERO_COPY_PROBLEM_H

#include "chapter.h"

#include <stddef.h>
#include <stdint.h>

/* Threads per block of the row-sum kernel: a warp per 32 rows. */
#define BLOCK 256

struct table {
    long rows;              /* rows of the table: --size bytes over --row bytes */
    size_t row;             /* --row: bytes of one row, a multiple of 16 */
    int permille;           /* --permille: rows read per thousand; 1000 reads all, in order */
    long selected;          /* rows read */
    float *host;            /* pinned and mapped: the table, in host memory */
    uint32_t *idx;          /* pinned and mapped: the rows to read, NULL when all */
    const float *mapped;    /* the table's address for the device (mapped memory) */
    const uint32_t *mapped_idx; /* idx's address for the device, NULL when all */
    float *staging;         /* naive.cu: pinned, the gathered rows */
    float *d_rows;          /* naive.cu: device copy of the rows read */
    double *d_sums;         /* the result: the sum of each row read, in device memory */
};

extern const struct problem PROBLEM;

static inline size_t selected_bytes(const struct table *t) { return (size_t)t->selected * t->row; }

/* Sum each of `count` rows of `rows` (device or mapped host memory) into
 * t->d_sums: row k of the result is row idx[k] of `rows`, or row k when idx
 * is NULL. A warp takes 32 rows: one load of their row numbers, then teams of
 * lanes, 16 bytes a lane, one row a team. */
void row_sums(const struct table *t, const float *rows, const uint32_t *idx);

/* The naive program's host gather: row idx[k] of the table to dst + k rows,
 * on every host core (OpenMP) or on one. */
void gather_rows(const struct table *t, float *dst, int every_core);

/* The chapter's evidence, printed after the timing: what the device says
 * about mapped memory, and the naive program's two steps timed alone. */
void report_zero_copy(const struct table *t);

#endif
