/* Chapter 16, the problem: the negative of an 8-bit image, 255 - p for every
 * pixel. Bit-exact check against the CPU; the work is one read and one write
 * of every pixel, whatever padding the layout adds. */
#include "problem.h"
#include "cuda_check.h"
#include "ncu_stalls.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_WIDTH, KNOB_PAD, KNOB_OFFSET };

/* Pixels before the first record: up to the next 16-byte boundary where the
 * records are wider than a byte and the start is not on one. */
static int head_of(long n, int record, int offset)
{
    long head = record > 1 ? (16 - offset % 16) % 16 : 0;
    return (int)(head < n ? head : n);
}

/* Bytes of one device image in its layout, padding included. */
static size_t span_of(long n, int record, int stride, int head)
{
    long records = (n - head) / record;
    return (size_t)head + (size_t)records * stride + (size_t)(n - head - records * record);
}

static int padded(const struct config *c) { return c->knob[KNOB_WIDTH] == 12 && c->knob[KNOB_PAD]; }

static size_t device_bytes(const struct config *c)
{
    int off = (int)c->knob[KNOB_OFFSET];
    size_t span = padded(c) ? span_of(c->size, 12, 16, head_of(c->size, 12, off)) : (size_t)c->size;
    return 2 * (span + (size_t)c->knob[KNOB_OFFSET]);
}

/* The pixels, the downloaded output, the reference; and the padded layout
 * staged on the host where there is one. */
static size_t host_bytes(const struct config *c)
{
    int off = (int)c->knob[KNOB_OFFSET];
    return 3 * (size_t)c->size + (padded(c) ? span_of(c->size, 12, 16, head_of(c->size, 12, off)) : 0);
}

static void *create(const struct config *c)
{
    struct image *t = (struct image *)calloc(1, sizeof *t);
    t->n = c->size;
    t->width = (int)c->knob[KNOB_WIDTH];
    t->pad = (int)c->knob[KNOB_PAD];
    t->offset = (int)c->knob[KNOB_OFFSET];
    t->h_in = (unsigned char *)host_alloc((size_t)t->n);
    /* Random bytes, eight per draw: one pass over the image. Never 0 (a 0
     * becomes 1), so that no correct pixel of the negative is 255 - 0 = 0xFF,
     * the byte poison (poison_device): a pixel left unwritten always fails,
     * where with 0 among the inputs it would pass at 1 pixel in 256. */
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 16;
    for (long i = 0; i < t->n; i += 8) {
        uint64_t r = rng_next(&state);
        long m = t->n - i < 8 ? t->n - i : 8;
        for (long j = 0; j < m; j++) {
            unsigned char b = (unsigned char)(r >> (8 * j));
            t->h_in[i + j] = b ? b : 1;
        }
    }
    return t;
}

/* Between packed pixels and the layout's bytes: to_layout 1 places the
 * pixels, 0 takes them out. */
static void layout_pixels(const struct image *t, unsigned char *layout, unsigned char *pixels,
                          int to_layout)
{
    long h = t->head, k;
    size_t rec = (size_t)t->record, tail = (size_t)(t->n - h - t->records * t->record);
    unsigned char *l = layout + h, *p = pixels + h;
    if (to_layout)
        memcpy(layout, pixels, (size_t)h);
    else
        memcpy(pixels, layout, (size_t)h);
    for (k = 0; k < t->records; k++, l += t->stride, p += rec)
        to_layout ? memcpy(l, p, rec) : memcpy(p, l, rec);
    to_layout ? memcpy(l, p, tail) : memcpy(p, l, tail);
}

void image_layout(struct image *t, int record, int stride)
{
    t->record = record;
    t->stride = stride;
    t->head = head_of(t->n, record, t->offset);
    t->records = (t->n - t->head) / record;
    t->span = span_of(t->n, record, stride, t->head);
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
    layout_pixels(t, staged, t->h_in, 1);
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
        layout_pixels(t, staged, got, 0);
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
    /* 2^31 + 3, the size at which make test checks both programs past 2^31
     * (tests/run.sh runs at the smaller of max_size and 2^31 + 3). Every index
     * and byte offset is 64-bit (long i, records and the grid's product), but
     * a 32-bit one would wrap past 2^31 (int) or 2^32 (unsigned), and the test
     * reaches only the first: with max_size at the tested size, no accepted
     * size forms a larger index than the test does at the same knobs (it runs
     * the default ones). Larger sizes are refused by the command line before
     * any work, rather than run where no test reaches. */
    .max_size = 2147483651L,
    .knobs = {
        {"width", "bytes per access, optimized only: 1, 2, 4, 8, 16, or 12 (a 12-byte "
         "struct)", 16, 1, 16, 4, KNOB_POWER_OF_TWO_OR_MULTIPLE},
        {"pad", "1: store the 12-byte records padded to 16 bytes (__align__(16)); "
         "optimized at --width 12 only", 0, 0, 1},
        {"offset", "bytes from a 256-byte boundary to the image, both programs (the optimized "
         "one takes the pixels before the next 16-byte boundary one byte each)", 0, 0, 255, 0},
    },
    .nknobs = 3,
    /* Besides the sweeps: offsets that leave the start off every vector
     * width's alignment, so that the head is exercised at each width. */
    .test_options = {"--width 1", "--width 2", "--offset 48", "--offset 16 --width 4",
                     "--offset 1", "--offset 7 --width 4", "--offset 13 --width 8",
                     "--offset 3 --width 12", "--offset 5 --width 12 --pad 1",
                     "--offset 255 --width 2", "--offset 9 --width 1"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__inst_executed_op_global_ld.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   /* achieved occupancy, beside the bytes each request carries: both set
                    * the bytes in flight */
                   NCU_WARP_STATES,
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
