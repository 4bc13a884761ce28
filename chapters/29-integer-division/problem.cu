/* Chapter 29, the problem: decode every flat index i < n of a 4-D array
 * [depth][width][width][width] (x fastest) into its coordinates (t, z, y, x)
 * and compute the offset of that element in the reversed layout
 * [width][width][width][depth]: the index arithmetic of a generic permute
 * (transpose) kernel, without its loads and stores, so that the divisions are
 * what is timed. Each thread of a grid-stride loop adds up the offsets of its
 * cells (modulo 2^32) and writes one checksum; the check compares every
 * checksum bit for bit with a host reference that never divides. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "ncu_stalls.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_WIDTH, KNOB_LITERAL };

static unsigned threads_for(long n)
{
    long t = (n + CELLS_PER_THREAD - 1) / CELLS_PER_THREAD;
    return (unsigned)((t + BLOCK - 1) / BLOCK * BLOCK);
}

static size_t device_bytes(const struct config *c) { return (size_t)threads_for(c->size) * 4; }

static size_t host_bytes(const struct config *c) { return (size_t)threads_for(c->size) * 8; }

static void *create(const struct config *c)
{
    struct decode *d = (struct decode *)calloc(1, sizeof *d);
    d->n = c->size;
    d->width = (unsigned)c->knob[KNOB_WIDTH];
    d->literal = (int)c->knob[KNOB_LITERAL];
    if (d->literal && d->width != LITERAL_WIDTH && d->width != LITERAL_WIDTH_POW2) {
        fprintf(stderr, "error: --literal 1 runs a kernel compiled for --width %d or %d; "
                        "--width %u has none\n", LITERAL_WIDTH, LITERAL_WIDTH_POW2, d->width);
        exit(EXIT_USAGE);
    }
    unsigned long long cube = (unsigned long long)d->width * d->width * d->width;
#ifdef PLANT_DEPTH_FLOOR /* planted fault: the outer extent rounded down, one t-slab short */
    d->depth = (unsigned)(d->n / cube);
#else
    d->depth = (unsigned)((d->n + cube - 1) / cube);
#endif
    d->threads = threads_for(d->n);
    d->sums = (unsigned *)device_alloc((size_t)d->threads * sizeof(unsigned));
    return d;
}

static void poison(void *data)
{
    struct decode *d = (struct decode *)data;
    poison_device(d->sums, (size_t)d->threads * sizeof(unsigned));
}

/* The outer extent the layout needs, found without create()'s division (or any): the whole
 * w^3 slabs that cover n cells, counted. The reference uses this, not d->depth, so a wrong
 * extent in create(), which the programs receive too, fails the check instead of being shared
 * by both sides. At most n / 8 + 1 steps (w >= 2), fewer than the reference's walk. */
static uint32_t reference_depth(long n, uint32_t w)
{
    uint64_t cube = (uint64_t)w * w * w, covered = 0;
    uint32_t depth = 0;
    for (; covered < (uint64_t)n; covered += cube)
        depth++;
    return depth;
}

/* The reference walks the cells in order and carries the coordinates like an
 * odometer (x, then y, z, t), so it needs no division at all: a different
 * method from both programs, one pass over n cells. Unsigned arithmetic wraps
 * modulo 2^32 exactly as on the GPU. */
static void reference(const struct decode *d, uint32_t depth, uint32_t *sums)
{
    const uint32_t w = d->width, threads = d->threads;
    memset(sums, 0, (size_t)threads * sizeof(uint32_t));
    uint32_t x = 0, y = 0, z = 0, t = 0, j = 0;
    for (long i = 0; i < d->n; i++) {
        sums[j] += ((x * w + y) * w + z) * depth + t;
        if (++j == threads)
            j = 0;
        if (++x == w) {
            x = 0;
            if (++y == w) {
                y = 0;
                if (++z == w) {
                    z = 0;
                    t++;
                }
            }
        }
    }
}

/* The reciprocal is exact: a host-side proof by exhaustion would take too
 * long, so the program checks it at the extremes the decode can meet (every
 * dividend below 2^31 is allowed) and prints how many it tried. */
static long check_divider(unsigned width)
{
    struct divider w = divider_of(width);
    long tried = 0, bad = 0;
    for (uint64_t k = 0; k < 4096; k++) {
        uint32_t probes[4] = {(uint32_t)k, (uint32_t)(k * width), (uint32_t)(k * width - 1),
                              (uint32_t)(0x7FFFFFFFu - k)};
        for (int p = 0; p < 4; p++) {
            uint32_t n = probes[p] & 0x7FFFFFFFu;
            uint32_t q = (uint32_t)((((uint64_t)n * w.m) >> 32) + n) >> w.s;
            bad += q != n / width;
            tried++;
        }
    }
    return bad ? -bad : tried;
}

static int check(void *data, struct check_report *r)
{
    struct decode *d = (struct decode *)data;
    size_t m = d->threads;
    uint32_t *got = (uint32_t *)host_alloc(m * sizeof(uint32_t));
    uint32_t *ref = (uint32_t *)host_alloc(m * sizeof(uint32_t));
    CUDA_CHECK(cudaMemcpy(got, d->sums, m * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t depth = reference_depth(d->n, d->width);
    reference(d, depth, ref);
    check_bytes(got, ref, m, sizeof(uint32_t), r);
    if (depth != d->depth) {
        printf("check: the programs were given depth %u; %ld cells of width %u need %u\n",
               d->depth, d->n, d->width, depth);
        r->passed = 0;
    }
    long tried = check_divider(d->width);
    printf("check: %zu checksums of %ld cells (width %u, depth %u); reciprocal of %u: %s on %ld "
           "probe dividends\n", m, d->n, d->width, depth, d->width,
           tried > 0 ? "exact" : "WRONG", tried > 0 ? tried : -tried);
    if (tried <= 0)
        r->passed = 0;
    struct divider w = divider_of(d->width);
    evidence_print("magic_shift", w.s, "bits");
    free(got);
    free(ref);
    return r->passed;
}

static double bytes(const void *data)
{
    return 4.0 * ((const struct decode *)data)->threads; /* the checksums written */
}

/* The integer multiply-adds of the reciprocal method, the work both programs
 * do (METRIC_INT32, compared with the 64 per SM per clock of the guide's
 * table): per cell, three high multiplies, three multiply-subtracts for the
 * remainders and three multiply-adds for the offset. */
/* Warp instructions executed (the issue roof's unit): the program's own count
 * per 32 cells (a warp's trip through the loop), times the warps' trips. */
static double flops(const void *data)
{
    const struct decode *d = (const struct decode *)data;
    return d->warp_insts * (double)d->n / 32.0;
}

static void destroy(void *data)
{
    struct decode *d = (struct decode *)data;
    CUDA_CHECK(cudaFree(d->sums));
    free(d);
}

const struct problem PROBLEM = {
    .number = 29,
    .slug = "integer-division",
    .title = "Integer division and modulo: a precomputed reciprocal instead of / and %",
    .section = "5.4.1",
    .size_help = "cells (flat indices) to decode, below 2^31",
    .default_size = 1L << 28,
    .small_size = 100003,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = (1L << 31) - 1,
    .knobs = {{"width", "the three inner extents of the 4-D array, the divisor", 100, 2, MAX_WIDTH},
              {"literal", "1: the kernel compiled with the width as a literal (--width 100 or 64)",
               0, 0, 1}},
    .nknobs = 2,
    .test_options = {"--literal 1", "--width 64", "--width 64 --literal 1", "--width 3",
                     "--width 1000"},
    .timing = TIME_KERNEL,
    .metric = METRIC_ISSUE,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,"
                   "sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,"
                   "sm__inst_executed_pipe_xu.sum,"
                   /* what holds issue down, in both kernels */
                   "smsp__issue_active.avg.pct_of_peak_sustained_active," NCU_WARP_STATES,
    /* A power of two known only at run time; the literal divisor; a literal
     * power of two: what the compiler does by itself. */
    .sweeps = {"--width 64", "--literal 1", "--width 64 --literal 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
