/* Chapter 17, the problem: a three-tap blur along every row of a rows x cols
 * float image (cols 1001 by default: an odd row length, so that packed rows
 * start at every alignment). Checked against a CPU reference with an error
 * bound from the two roundings of the kernel's sum; the work is one read and
 * one write of every pixel (the padding a pitch adds is not work). */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { KNOB_COLS, KNOB_VECTOR };

static size_t image_bytes(const struct config *c) { return (size_t)c->size * c->knob[KNOB_COLS] * sizeof(float); }

/* Packed rows, or rows padded to a pitch: 512 bytes is the largest pitch
 * alignment a current GPU asks for, so this is an upper bound. */
static size_t device_bytes(const struct config *c)
{
    size_t row = (size_t)c->knob[KNOB_COLS] * sizeof(float);
    return 2 * (size_t)c->size * ((row + 511) / 512 * 512);
}

/* Input, downloaded output, reference. */
static size_t host_bytes(const struct config *c) { return 3 * image_bytes(c); }

static void *create(const struct config *c)
{
    /* Every float of an image, padding included, is at most 2^31 - 1 floats
     * from its start (the kernels' r * row_floats + column), so that no index
     * wraps even where a row offset is an int: rows x (the row rounded up to
     * the largest pitch alignment, 512 bytes) at most 2^31 floats, 8 GiB an
     * image. Larger images are refused here, before anything is allocated,
     * rather than run where no test reaches (the 2^31 check of tests/run.sh
     * keys on max_size, which counts rows). */
    size_t padded_floats = ((size_t)c->knob[KNOB_COLS] * sizeof(float) + 511) / 512 * 512 / sizeof(float);
    if ((double)c->size * (double)padded_floats > 2147483648.0) {
        fprintf(stderr, "error: --size %ld with --cols %ld: rows x the padded row (%zu floats) must be "
                "at most 2^31 (2147483648) floats\n", c->size, c->knob[KNOB_COLS], padded_floats);
        exit(EXIT_USAGE);
    }
    struct filter *t = (struct filter *)calloc(1, sizeof *t);
    t->rows = c->size;
    t->cols = (int)c->knob[KNOB_COLS];
    t->vector = (int)c->knob[KNOB_VECTOR];
    t->h_in = (float *)host_alloc(image_bytes(c));
    rng_fill_f32(t->h_in, (size_t)t->rows * t->cols, -1.0f, 1.0f, c->seed, 0);
    return t;
}

void filter_upload(struct filter *t)
{
    size_t row = (size_t)t->cols * sizeof(float);
    /* create()'s bound, for the pitch the driver gave (never seen above 512). */
    if ((double)t->rows * (double)(t->pitch / sizeof(float)) > 2147483648.0) {
        fprintf(stderr, "error: %ld rows at a pitch of %zu bytes: more than 2^31 floats an image\n",
                t->rows, t->pitch);
        exit(EXIT_USAGE);
    }
    /* A row's last vector load may reach into the padding a pitch adds. Its
     * values never reach an output pixel, but reading memory nothing wrote is
     * a bug all the same (compute-sanitizer's initcheck reports it): zero it. */
    if (t->pitch > row)
        CUDA_CHECK(cudaMemset(t->in, 0, t->pitch * t->rows));
    CUDA_CHECK(cudaMemcpy2D(t->in, t->pitch, t->h_in, row, row, t->rows, cudaMemcpyHostToDevice));
    /* Recorded for the prose: the pitch the program's rows got, and the
     * driver's pitch granularity, the pitch it gives a one-byte row. */
    evidence_print("pitch_bytes", (double)t->pitch, "byte");
    if (t->pitch > row) {
        void *probe;
        size_t granule;
        CUDA_CHECK(cudaMallocPitch(&probe, &granule, 1, 1));
        CUDA_CHECK(cudaFree(probe));
        evidence_print("pitch_granularity", (double)granule, "byte");
    }
}

static void poison(void *data)
{
    struct filter *t = (struct filter *)data;
    if (!t->in) {
        fprintf(stderr, "error: the program allocated no image in its prepare()\n");
        exit(EXIT_USAGE);
    }
    poison_device(t->out, t->pitch * t->rows);
}

/* The kernel adds three exact products with two roundings, each at most
 * 2^-24 of a partial sum no larger than 1 (|pixel| < 1, weights summing to
 * 1): |error| <= 2^-23. The float reference is the double result rounded once
 * more (2^-25). So every pixel is within 2^-23 + 2^-25 < 2^-22 of it; a pixel
 * taken from the wrong column is off by about 0.1 or more. */
static int check(void *data, struct check_report *r)
{
    struct filter *t = (struct filter *)data;
    size_t rows = (size_t)t->rows, cols = (size_t)t->cols, row = cols * sizeof(float);
    float *got = (float *)host_alloc(rows * row), *ref = (float *)host_alloc(rows * row);
    CUDA_CHECK(cudaMemcpy2D(got, row, t->out, t->pitch, row, rows, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < rows; i++) {
        const float *p = t->h_in + i * cols;
        for (size_t c = 0; c < cols; c++) {
            double left = p[c > 0 ? c - 1 : 0], right = p[c + 1 < cols ? c + 1 : cols - 1];
            ref[i * cols + c] = (float)(0.25 * left + 0.5 * p[c] + 0.25 * right);
        }
    }
    struct tolerance tol = {CHECK_ABS_REL, 0, ldexp(1.0, -22), 0, 0};
    check_f32(got, ref, NULL, rows * cols, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

static double bytes(const void *data)
{
    const struct filter *t = (const struct filter *)data;
    return 2.0 * (double)t->rows * t->cols * sizeof(float);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct filter *t = (struct filter *)data;
    if (t->in) {
        CUDA_CHECK(cudaFree(t->in));
        CUDA_CHECK(cudaFree(t->out));
    }
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 17,
    .slug = "pitched-2d-arrays",
    .title = "Pitched 2D arrays: every row aligned like the first",
    .section = "5.3.2",
    .size_help = "rows of --cols floats (131072 x 1001: 525 MB read and 525 MB written)",
    .default_size = 131072,
    .small_size = 150,
    .odd_size = 333,
    .min_size = 1,
    .max_size = 4194304,
    .knobs = {
        {"cols", "floats per row (odd by default: packed rows start at every alignment)", 1001, 1, 16384},
        {"vector", "floats per access, both programs: 4 (float4), 2 or 1 (scalar)", 4, 1, 4, 0,
         KNOB_POWER_OF_TWO},
    },
    .nknobs = 2,
    /* Rows shorter than a vector, and of every length modulo 4, so that the
     * naive program's head and tail run at every size. --cols 4099: five
     * float4 blocks a row (1024 columns each) and a ragged last vector, where
     * every other float4 test fits one block in a row. */
    .test_options = {"--cols 1024", "--cols 1024 --vector 1", "--cols 1", "--cols 2",
                     "--cols 3 --vector 2", "--cols 6", "--cols 7", "--cols 1002 --vector 2",
                     "--cols 4099"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    /* The access width, both programs: scalar and float2 (float4 is the
     * default), so that the pitch is compared at every width. */
    .sweeps = {"--vector 1", "--vector 2"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
