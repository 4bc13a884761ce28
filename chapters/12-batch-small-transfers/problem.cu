/* Chapter 12, the problem: --size bytes in pieces of --piece bytes lie in a
 * pinned host pool, at random slots (or, with --scattered 0, one after the
 * other), and must arrive on the device packed in order: piece i at byte
 * i * piece. The check is bit-exact against the pieces in the pool. Both
 * programs read the same pinned pool; they differ in how many copies they
 * make. */
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

/* The pool (two slots a piece), the staging buffer, the downloaded copy and
 * the reference the check builds, and the report's packed buffer. */
static size_t host_bytes(const struct config *c)
{
    return 2 * (size_t)pieces_of(c) * (size_t)c->knob[KNOB_PIECE] + 4 * (size_t)c->size;
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
    return b;
}

static void poison(void *data)
{
    struct batch *b = (struct batch *)data;
    poison_device(b->device, b->bytes);
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
    free(b);
}

// [pack]
void pack_on_host(const struct batch *b, unsigned char *dst, int every_core)
{
    /* Pieces are independent: each thread takes a contiguous share of them. */
#pragma omp parallel for schedule(static) num_threads(every_core ? omp_get_max_threads() : 1)
    for (long i = 0; i < b->pieces; i++)
        memcpy(dst + (size_t)i * b->piece, piece_at(b, i), piece_bytes(b, i));
}

/* A block per piece (grid-stride over the pieces): its threads read the
 * piece from pinned host memory over the link, 16 bytes each where the piece
 * allows, and write it to its place. Pinned memory from cudaMallocHost is
 * mapped into the device's address space at the same address (unified
 * addressing), so the kernel takes the host pointer as it is. */
__global__ void gather_kernel(unsigned char *dst, const unsigned char *pool, const long *slot,
                              size_t piece, size_t bytes, long pieces)
{
    for (long i = blockIdx.x; i < pieces; i += gridDim.x) {
        size_t first = (size_t)i * piece, len = bytes - first < piece ? bytes - first : piece;
        const unsigned char *src = pool + (size_t)slot[i] * piece;
        unsigned char *out = dst + first;
        size_t vec = piece % 16 == 0 ? len / 16 : 0; /* 16-byte aligned at both ends */
        for (size_t k = threadIdx.x; k < vec; k += blockDim.x)
            ((uint4 *)out)[k] = ((const uint4 *)src)[k];
        for (size_t k = 16 * vec + threadIdx.x; k < len; k += blockDim.x)
            out[k] = src[k];
    }
}
// [pack]

void gather_on_device(const struct batch *b, cudaStream_t stream)
{
    /* Enough blocks to keep many reads of the link in flight on every SM. */
    int sms;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    long blocks = b->pieces < 8L * sms ? b->pieces : 8L * sms;
    gather_kernel<<<(unsigned)blocks, 256, 0, stream>>>(b->device, b->pool, b->d_slot, b->piece,
                                                       b->bytes, b->pieces);
    CHECK_LAUNCH();
}

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
               "program packs them first; 0: they lie one after the other", 1, 0, 1},
              {"pack", "how the optimized program gathers scattered pieces (the naive program "
               "ignores it): 0 one host core packs, then one copy; 1 every host core packs, then "
               "one copy; 2 one kernel reads them from mapped host memory", 0, 0, 2}},
    .nknobs = 3,
    .test_options = {"--piece 1024", "--piece 16384", "--piece 262144",
                     "--scattered 0 --piece 1024", "--scattered 0 --piece 16384",
                     "--scattered 0 --piece 262144", "--pack 1", "--pack 2",
                     "--pack 2 --piece 1000", "--pack 2 --scattered 0"},
    .timing = TIME_REGION,
    /* Every byte crosses the link once: the pinned link's rate bounds both. */
    .metric = METRIC_LINK_H2D,
    /* Copies are not kernels: Nsight Compute has nothing to measure. */
    .ncu_metrics = "",
    /* Adjacent pieces (the copy alone), then larger pieces, fewer calls. */
    .sweeps = {"--scattered 0", "--piece 65536", "--piece 1048576",
               /* What an expert packs with: every core, or the device itself. */
               "--pack 1", "--pack 2"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
