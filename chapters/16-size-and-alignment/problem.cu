/* Chapter 16, the problem: the negative of an 8-bit image, 255 - p for every
 * pixel. Bit-exact check against the CPU; the work is one read and one write
 * of every pixel, whatever padding the layout adds. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_WIDTH, KNOB_PAD, KNOB_OFFSET };

/* Bytes of one device image in its layout, padding included. */
static size_t span_of(long n, int record, int stride)
{
    long records = n / record;
    return (size_t)records * stride + (size_t)(n - records * record);
}

static int padded(const struct config *c) { return c->knob[KNOB_WIDTH] == 12 && c->knob[KNOB_PAD]; }

static size_t device_bytes(const struct config *c)
{
    size_t span = padded(c) ? span_of(c->size, 12, 16) : (size_t)c->size;
    return 2 * (span + (size_t)c->knob[KNOB_OFFSET]);
}

/* The pixels, the downloaded output, the reference; and the padded layout
 * staged on the host where there is one. */
static size_t host_bytes(const struct config *c)
{
    return 3 * (size_t)c->size + (padded(c) ? span_of(c->size, 12, 16) : 0);
}

static void *create(const struct config *c)
{
    struct image *t = (struct image *)calloc(1, sizeof *t);
    t->n = c->size;
    t->width = (int)c->knob[KNOB_WIDTH];
    t->pad = (int)c->knob[KNOB_PAD];
    t->offset = (int)c->knob[KNOB_OFFSET];
    t->h_in = (unsigned char *)host_alloc((size_t)t->n);
    /* Random bytes, eight per draw: one pass over the image. */
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 16;
    for (long i = 0; i < t->n; i += 8) {
        uint64_t r = rng_next(&state);
        memcpy(t->h_in + i, &r, t->n - i < 8 ? (size_t)(t->n - i) : 8);
    }
    return t;
}

void image_layout(struct image *t, int record, int stride)
{
    t->record = record;
    t->stride = stride;
    t->records = t->n / record;
    t->span = span_of(t->n, record, stride);
    t->in_base = (unsigned char *)device_alloc(t->span + t->offset);
    t->out_base = (unsigned char *)device_alloc(t->span + t->offset);
    t->in = t->in_base + t->offset;
    t->out = t->out_base + t->offset;
    if (stride == record) {
        CUDA_CHECK(cudaMemcpy(t->in, t->h_in, (size_t)t->n, cudaMemcpyHostToDevice));
        return;
    }
    /* Records `stride` bytes apart: lay them out on the host, one upload (a
     * 2D copy of millions of 12-byte rows would be slow). */
    unsigned char *staged = (unsigned char *)host_alloc(t->span);
    memset(staged, 0, t->span);
    for (long k = 0; k < t->records; k++)
        memcpy(staged + k * stride, t->h_in + k * record, (size_t)record);
    memcpy(staged + t->records * stride, t->h_in + t->records * record,
           (size_t)(t->n - t->records * record));
    CUDA_CHECK(cudaMemcpy(t->in, staged, t->span, cudaMemcpyHostToDevice));
    free(staged);
}

static void poison(void *data)
{
    struct image *t = (struct image *)data;
    if (!t->record) {
        fprintf(stderr, "error: the program chose no layout in its prepare()\n");
        exit(EXIT_USAGE);
    }
    poison_device(t->out_base, t->span + t->offset);
}

static int check(void *data, struct check_report *r)
{
    struct image *t = (struct image *)data;
    size_t n = (size_t)t->n;
    unsigned char *got = (unsigned char *)host_alloc(n), *ref = (unsigned char *)host_alloc(n);
    if (t->stride == t->record) {
        CUDA_CHECK(cudaMemcpy(got, t->out, n, cudaMemcpyDeviceToHost));
    } else { /* download the layout, then take the pixels out of it */
        unsigned char *staged = (unsigned char *)host_alloc(t->span);
        CUDA_CHECK(cudaMemcpy(staged, t->out, t->span, cudaMemcpyDeviceToHost));
        for (long k = 0; k < t->records; k++)
            memcpy(got + k * t->record, staged + k * t->stride, (size_t)t->record);
        memcpy(got + t->records * t->record, staged + t->records * t->stride,
               n - (size_t)(t->records * t->record));
        free(staged);
    }
    for (size_t i = 0; i < n; i++)
        ref[i] = (unsigned char)(255 - t->h_in[i]);
    check_bytes(got, ref, n, 1, r);
    free(got);
    free(ref);
    return r->passed;
}

/* What the negative needs: every pixel read once and written once. The
 * padding a layout adds moves too, but it is not work. */
static double bytes(const void *data) { return 2.0 * ((const struct image *)data)->n; }

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct image *t = (struct image *)data;
    if (t->in_base) {
        CUDA_CHECK(cudaFree(t->in_base));
        CUDA_CHECK(cudaFree(t->out_base));
    }
    free(t->h_in);
    free(t);
}

const struct problem PROBLEM = {
    .number = 16,
    .slug = "size-and-alignment",
    .title = "Size and alignment: 16-byte accesses where the warp was already coalesced",
    .section = "5.3.2",
    .size_help = "pixels, one byte each (536870912: 512 MiB read and 512 MiB written)",
    .default_size = 536870912,
    .small_size = 1000003,
    .odd_size = 999997,
    .min_size = 1,
    .max_size = 8589934592L,
    .knobs = {
        {"width", "bytes per access, optimized only: 1, 2, 4, 8, 16, or 12 (a 12-byte "
         "struct)", 16, 1, 16, 4, KNOB_POWER_OF_TWO_OR_MULTIPLE},
        {"pad", "1: store the 12-byte records padded to 16 bytes (__align__(16)); "
         "optimized at --width 12 only", 0, 0, 1},
        {"offset", "bytes from a 256-byte boundary to the image, both programs", 0, 0, 240, 16},
    },
    .nknobs = 3,
    .test_options = {"--width 1", "--width 2", "--width 4", "--width 8", "--width 12",
                     "--width 12 --pad 1", "--offset 16", "--offset 48", "--offset 16 --width 4"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__inst_executed_op_global_ld.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    /* The access width (1 is the naive program, 16 the optimized default),
     * the 12-byte struct without and with padding, and a misaligned start. */
    .sweeps = {"--width 4", "--width 8", "--width 12", "--width 12 --pad 1", "--offset 16"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
