/* Chapter 12, the problem: --size bytes in pieces of --piece bytes lie in a
 * pinned host pool, at random slots (or, with --scattered 0, one after the
 * other), and must arrive on the device packed in order: piece i at byte
 * i * piece. The check is bit-exact against the pieces in the pool. Both
 * programs read the same pinned pool; they differ in how many operations
 * carry the pieces over the link. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

enum { KNOB_PIECE, KNOB_SCATTERED, KNOB_PACK };

static long pieces_of(const struct config *c)
{
    size_t piece = (size_t)c->knob[KNOB_PIECE];
    return (long)(((size_t)c->size + piece - 1) / piece);
}

/* The packed pieces and the slot table. */
static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size + (size_t)pieces_of(c) * sizeof(long);
}

/* The pool (two slots a piece), the slot table and the batch API's three
 * lists, the staging buffer, the downloaded copy and the reference the check
 * builds, and the report's packed buffer. */
static size_t host_bytes(const struct config *c)
{
    size_t pieces = (size_t)pieces_of(c);
    return 2 * pieces * (size_t)c->knob[KNOB_PIECE] + 2 * pieces * sizeof(long) +
           pieces * (2 * sizeof(void *) + sizeof(size_t)) + 4 * (size_t)c->size;
}

static void *create(const struct config *c)
{
    struct batch *b = (struct batch *)calloc(1, sizeof *b);
    b->bytes = (size_t)c->size;
    b->piece = (size_t)c->knob[KNOB_PIECE];
    b->pieces = pieces_of(c);
    b->scattered = (int)c->knob[KNOB_SCATTERED];
    b->pack = (int)c->knob[KNOB_PACK];
    long slots = 2 * b->pieces;
    b->pool = (unsigned char *)pinned_alloc((size_t)slots * b->piece);
    b->slot = (long *)host_alloc((size_t)slots * sizeof *b->slot);
    /* Scattered: the first `pieces` entries of a seeded shuffle of all the
     * slots, so pieces land in random order with holes between them. */
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 12;
    for (long s = 0; s < slots; s++)
        b->slot[s] = s;
    if (b->scattered)
        for (long s = slots - 1; s > 0; s--) {
            long j = (long)(rng_next(&state) % (uint64_t)(s + 1));
            long t = b->slot[s];
            b->slot[s] = b->slot[j];
            b->slot[j] = t;
        }
    /* Random bytes in every slot, eight at a time: the holes too, so a copy
     * from the wrong slot fails the check. */
    size_t pool_bytes = (size_t)slots * b->piece, i = 0;
    for (; i + 8 <= pool_bytes; i += 8) {
        uint64_t r = rng_next(&state);
        memcpy(b->pool + i, &r, 8);
    }
    uint64_t r = rng_next(&state);
    memcpy(b->pool + i, &r, pool_bytes - i);
    b->device = (unsigned char *)device_alloc(b->bytes);
    b->d_slot = (long *)device_alloc((size_t)b->pieces * sizeof(long));
    CUDA_CHECK(cudaMemcpy(b->d_slot, b->slot, (size_t)b->pieces * sizeof(long),
                          cudaMemcpyHostToDevice));
    b->dsts = (void **)host_alloc((size_t)b->pieces * sizeof(void *));
    b->srcs = (void **)host_alloc((size_t)b->pieces * sizeof(void *));
    b->sizes = (size_t *)host_alloc((size_t)b->pieces * sizeof(size_t));
    for (long i = 0; i < b->pieces; i++) {
        b->dsts[i] = b->device + (size_t)i * b->piece;
        b->srcs[i] = (void *)piece_at(b, i);
        b->sizes[i] = piece_bytes(b, i);
    }
    return b;
}

/* The device copy, and the optimized program's staging buffer (--pack 0 and 1) too: a run
 * must pack this run's pieces, not send what an earlier run packed there. */
static void poison(void *data)
{
    struct batch *b = (struct batch *)data;
    poison_device(b->device, b->bytes);
    if (b->staging)
        memset(b->staging, 0xFF, b->bytes);
}

static int check(void *data, struct check_report *r)
{
    struct batch *b = (struct batch *)data;
    unsigned char *got = (unsigned char *)host_alloc(b->bytes);
    unsigned char *ref = (unsigned char *)host_alloc(b->bytes);
    CUDA_CHECK(cudaMemcpy(got, b->device, b->bytes, cudaMemcpyDeviceToHost));
    for (long i = 0; i < b->pieces; i++)
        memcpy(ref + (size_t)i * b->piece, piece_at(b, i), piece_bytes(b, i));
    check_bytes(got, ref, b->bytes, 1, r);
    free(got);
    free(ref);
    return r->passed;
}

/* Every byte crosses the link once. */
static double bytes(const void *data) { return (double)((const struct batch *)data)->bytes; }

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct batch *b = (struct batch *)data;
    CUDA_CHECK(cudaFree(b->device));
    CUDA_CHECK(cudaFree(b->d_slot));
    CUDA_CHECK(cudaFreeHost(b->pool));
    free(b->slot);
    free(b->dsts);
    free(b->srcs);
    free(b->sizes);
    free(b);
}

// [pack]
void pack_on_host(const struct batch *b, unsigned char *dst, int every_core)
{
    /* Pieces are independent: each thread takes a contiguous share of them. */
#ifdef PLANT_PACK_SKIP_LAST
    long n = b->pieces - 1; /* off by one: the last piece is never packed */
#else
    long n = b->pieces;
#endif
#pragma omp parallel for schedule(static) num_threads(every_core ? omp_get_max_threads() : 1)
    for (long i = 0; i < n; i++)
        memcpy(dst + (size_t)i * b->piece, piece_at(b, i), piece_bytes(b, i));
}

void send_batch_api(const struct batch *b, cudaStream_t stream)
{
    /* One set of attributes for every copy: read the sources in stream order, as a
     * cudaMemcpyAsync would (the pool is pinned and nothing else writes it). */
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t first = 0; /* attr applies from copy 0 to the last */
#ifdef PLANT_BATCH_COUNT
    size_t count = (size_t)b->pieces - 1; /* off by one: the last piece is never sent */
#else
    size_t count = (size_t)b->pieces;
#endif
#if CUDART_VERSION >= 13000
    CUDA_CHECK(cudaMemcpyBatchAsync(b->dsts, b->srcs, b->sizes, count, &attr, &first, 1, stream));
#elif CUDART_VERSION >= 12080
    size_t failed; /* 12.8 and 12.9 report the index of a copy that failed; 13.0 dropped it */
    CUDA_CHECK(cudaMemcpyBatchAsync(b->dsts, b->srcs, b->sizes, count, &attr, &first, 1, &failed,
                                    stream));
#else
    (void)b; (void)stream; (void)attr; (void)first; (void)count;
    fprintf(stderr, "error: --pack 3 needs cudaMemcpyBatchAsync, CUDA 12.8 or newer\n");
    exit(EXIT_USAGE);
#endif
}
// [pack]

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { TRIES = 3 };

void report_batch(const struct batch *b)
{
    unsigned char *packed = (unsigned char *)pinned_alloc(b->bytes);
    double copy_ms = 1e30, pack_ms = 1e30;
    for (int k = 0; k < TRIES; k++) {
        /* One core packs every piece into one pinned buffer... */
        double t0 = now_ms();
        pack_on_host(b, packed, 0);
        double t1 = now_ms();
        /* ...and one cudaMemcpy sends all the bytes at the link's rate. */
        CUDA_CHECK(cudaMemcpy(b->device, packed, b->bytes, cudaMemcpyHostToDevice));
        double t2 = now_ms();
        pack_ms = t1 - t0 < pack_ms ? t1 - t0 : pack_ms;
        copy_ms = t2 - t1 < copy_ms ? t2 - t1 : copy_ms;
    }
    CUDA_CHECK(cudaFreeHost(packed));
    printf("batch: %ld pieces of %zu bytes (%s); alone, best of %d: one copy of all %zu bytes "
           "%.3f ms (%.1f GB/s), packing them on one core %.3f ms (%.1f GB/s)\n",
           b->pieces, b->piece, b->scattered ? "scattered" : "adjacent", TRIES, b->bytes, copy_ms,
           b->bytes / copy_ms / 1e6, pack_ms, b->bytes / pack_ms / 1e6);
    evidence_print("pieces", (double)b->pieces, "pieces");
    evidence_print("copy_ms", copy_ms, "ms");
    evidence_print("link_gbs", b->bytes / copy_ms / 1e6, "GB/s");
    evidence_print("pack_ms", pack_ms, "ms");
    evidence_print("pack_gbs", b->bytes / pack_ms / 1e6, "GB/s");
#if CUDART_VERSION >= 12080
    /* One cudaMemcpyBatchAsync of every piece from where it lies: one call, and as many
     * copies for the copy engine as there are pieces. */
    double batch_ms = 1e30;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int k = 0; k < TRIES; k++) {
        double t0 = now_ms();
        send_batch_api(b, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        double t1 = now_ms();
        batch_ms = t1 - t0 < batch_ms ? t1 - t0 : batch_ms;
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    printf("batch: one cudaMemcpyBatchAsync of the %ld pieces, alone, best of %d: %.3f ms "
           "(%.1f GB/s)\n", b->pieces, TRIES, batch_ms, b->bytes / batch_ms / 1e6);
    evidence_print("batch_api_ms", batch_ms, "ms");
    evidence_print("batch_api_gbs", b->bytes / batch_ms / 1e6, "GB/s");
#endif
}

const struct problem PROBLEM = {
    .number = 12,
    .slug = "batch-small-transfers",
    .title = "Batch small transfers: one copy instead of thousands",
    .section = "5.3.1",
    .size_help = "bytes sent to the device in pieces of --piece bytes (64M: 16384 pieces of 4 KiB)",
    .default_size = 64L << 20,
    .small_size = 300007,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"piece", "bytes of one piece (the last may be shorter)", 4096, 64, 64L << 20},
              {"scattered", "1: the pieces lie at random slots of a host pool, so the optimized "
               "program gathers them; 0: they lie one after the other, one copy sends them", 1,
               0, 1},
              {"pack", "how the optimized program gathers scattered pieces (the naive program "
               "ignores it): 0 one host core packs, then one copy; 1 every host core packs, then "
               "one copy; 2 one kernel reads them from mapped host memory; 3 one "
               "cudaMemcpyBatchAsync call (CUDA 12.8+)", 2, 0, 3}},
    .nknobs = 3,
    .test_options = {"--piece 1024", "--piece 16384", "--piece 262144", "--piece 1000",
                     "--scattered 0 --piece 1024", "--scattered 0 --piece 262144", "--pack 0",
                     "--pack 1", "--pack 1 --piece 1000", "--pack 3", "--pack 3 --piece 1000",
                     "--scattered 0 --piece 1000"},
    .timing = TIME_REGION,
    /* Every byte crosses the link once: the pinned link's rate bounds both. */
    .metric = METRIC_LINK_H2D,
    /* Copies are not kernels, and the gather kernel's rate is read against the link's from
     * the results (result:rate / host:link_gbs): no profiler counter is needed. */
    .ncu_metrics = "",
    /* Adjacent pieces (the copy alone), then larger pieces, fewer calls. */
    .sweeps = {"--scattered 0", "--piece 65536", "--piece 1048576",
               /* The other ways to gather: one core packs (the guide's wording), every
                * core packs, the batch API at small and at 64 KiB pieces. */
               "--pack 0", "--pack 1", "--pack 3", "--pack 3 --piece 65536"},
    /* Host-orchestrated: each naive sample is 16384 driver calls, and their cost moves
     * between processes; more samples and three rounds keep the noise figure meaningful. */
    .min_samples = 60,
    .rounds = 3,
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
