/* Chapter 14, the problem: a table of float rows lies in pinned host memory,
 * and a kernel needs the sum of some of its rows: 1% of them at random by
 * default (--permille 10), or every row once, in order (--permille 1000).
 * The table holds floats 1 + k 2^-23 in [1, 2), so a row's sum in double is
 * exact in any order of additions, and the check is bit-exact against the
 * CPU's sums. Both programs use the same pinned, mapped table and the same
 * kernel; they differ in how the rows reach it. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

enum { KNOB_ROW, KNOB_PERMILLE };

// [kernel]
/* A warp takes 32 rows. Its lanes first read the 32 row numbers at once, one
 * coalesced load (one round trip across the link for 32 rows, not one per
 * row); then the warp splits into teams of `team` lanes, 16 bytes a lane, a
 * team per row, so short rows keep every lane busy (256-byte rows: two rows
 * at a time). All the warp's row loads depend only on that one index load. */
__global__ void row_sums_kernel(double *sums, const float *rows, const uint32_t *idx, long count,
                                long row_floats)
{
    long k0 = (blockIdx.x * (long)BLOCK + threadIdx.x) / 32 * 32; /* this warp's first row */
    int lane = threadIdx.x % 32;
    if (k0 >= count)
        return; /* the whole warp: k0 is the same for its 32 threads */
    long mine = k0 + lane < count ? k0 + lane : count - 1;
    long r_lane = idx ? (long)idx[mine] : mine;
    long vecs = row_floats / 4; /* float4s in a row: rows are whole multiples of 16 bytes */
    int team = 1;               /* lanes per row: a power of two, at most 32 and vecs */
    while (team < 32 && 2 * team <= vecs)
        team *= 2;
    int per = 32 / team, me = lane / team, col = lane % team;
    for (int j = 0; j < 32; j += per) {
        long k = k0 + j + me;
        long r = __shfl_sync(0xffffffffu, r_lane, j + me);
        double t = 0;
        if (k < count) {
            const float4 *p = (const float4 *)(rows + r * row_floats);
#ifdef PLANT_WHOLE_TEAM_PASSES /* planted fault: whole team passes only; --row 48 loses a float4 */
            for (long c = col; c < vecs / team * team; c += team) {
#else
            for (long c = col; c < vecs; c += team) {
#endif
                float4 v = p[c];
                t += (double)v.x;
                t += (double)v.y;
                t += (double)v.z;
                t += (double)v.w;
            }
        }
        for (int off = team / 2; off > 0; off /= 2)
            t += __shfl_down_sync(0xffffffffu, t, off, team);
        if (col == 0 && k < count)
            sums[k] = t;
    }
}
// [kernel]

void row_sums(const struct table *t, const float *rows, const uint32_t *idx)
{
    long threads = (t->selected + 31) / 32 * 32; /* a warp per 32 rows */
    unsigned blocks = (unsigned)((threads + BLOCK - 1) / BLOCK);
    row_sums_kernel<<<blocks, BLOCK>>>(t->d_sums, rows, idx, t->selected,
                                       (long)(t->row / sizeof(float)));
    CHECK_LAUNCH();
}

static long rows_of(const struct config *c) { return c->size / c->knob[KNOB_ROW]; }

static long selected_of(const struct config *c)
{
    long m = rows_of(c) * c->knob[KNOB_PERMILLE] / 1000;
    return m > 0 ? m : 1;
}

/* The naive program's copy of the rows, the report's, and the sums. */
static size_t device_bytes(const struct config *c)
{
    return 2 * (size_t)selected_of(c) * (size_t)c->knob[KNOB_ROW] +
           (size_t)selected_of(c) * sizeof(double);
}

/* The table, the indices, the gathered rows twice (program and report), and
 * the check's sums. */
static size_t host_bytes(const struct config *c)
{
    size_t table = (size_t)rows_of(c) * (size_t)c->knob[KNOB_ROW];
    return table + (size_t)selected_of(c) * (sizeof(uint32_t) + 2 * (size_t)c->knob[KNOB_ROW] +
                                            2 * sizeof(double));
}

static void *create(const struct config *c)
{
    struct table *t = (struct table *)calloc(1, sizeof *t);
    t->row = (size_t)c->knob[KNOB_ROW];
    t->rows = rows_of(c);
    t->permille = (int)c->knob[KNOB_PERMILLE];
    t->selected = selected_of(c);
    int can_map = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    if (!can_map) {
        fprintf(stderr, "error: this GPU cannot map host memory (canMapHostMemory is 0)\n");
        exit(EXIT_CUDA_ERROR);
    }
    size_t table = (size_t)t->rows * t->row;
    CUDA_CHECK(cudaHostAlloc((void **)&t->host, table, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&t->mapped, t->host, 0));
    /* Floats 1 + k 2^-23, written as bits: exponent of 1, 23 random bits of
     * fraction, two floats from each random word. */
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 14;
    uint32_t *bits = (uint32_t *)t->host;
    size_t n = table / sizeof(float);
    for (size_t i = 0; i < n; i += 2) {
        uint64_t r = rng_next(&state);
        bits[i] = 0x3F800000u | (uint32_t)(r & 0x7FFFFF);
        if (i + 1 < n)
            bits[i + 1] = 0x3F800000u | (uint32_t)((r >> 32) & 0x7FFFFF);
    }
    if (t->permille < 1000) {
        /* Rows at random, with repeats allowed (as queries come). */
        CUDA_CHECK(cudaHostAlloc((void **)&t->idx, t->selected * sizeof(uint32_t),
                                 cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&t->mapped_idx, t->idx, 0));
        for (long k = 0; k < t->selected; k++)
            t->idx[k] = (uint32_t)(rng_next(&state) % (uint64_t)t->rows);
    }
    t->d_sums = (double *)device_alloc((size_t)t->selected * sizeof(double));
    return t;
}

static void poison(void *data)
{
    struct table *t = (struct table *)data;
    poison_device(t->d_sums, (size_t)t->selected * sizeof(double));
}

static int check(void *data, struct check_report *r)
{
    struct table *t = (struct table *)data;
    size_t m = (size_t)t->selected, floats = t->row / sizeof(float);
    double *got = (double *)host_alloc(m * sizeof(double));
    double *ref = (double *)host_alloc(m * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, t->d_sums, m * sizeof(double), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < m; k++) {
        const float *row = t->host + (t->idx ? (size_t)t->idx[k] : k) * floats;
        double s = 0;
        for (size_t j = 0; j < floats; j++)
            s += row[j];
        ref[k] = s;
    }
    /* Exact: every partial sum is a multiple of 2^-23 below 2^30. */
    check_bytes(got, ref, m, sizeof(double), r);
    free(got);
    free(ref);
    return r->passed;
}

/* The bytes the kernel needs from the host: the rows it reads. */
static double bytes(const void *data) { return (double)selected_bytes((const struct table *)data); }

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct table *t = (struct table *)data;
    CUDA_CHECK(cudaFree(t->d_sums));
    CUDA_CHECK(cudaFreeHost(t->host));
    if (t->idx)
        CUDA_CHECK(cudaFreeHost(t->idx));
    free(t);
}

// [gather]
void gather_rows(const struct table *t, float *dst, int every_core)
{
    size_t floats = t->row / sizeof(float);
#pragma omp parallel for schedule(static) num_threads(every_core ? omp_get_max_threads() : 1)
    for (long k = 0; k < t->selected; k++)
        memcpy(dst + (size_t)k * floats, t->host + (size_t)t->idx[k] * floats, t->row);
}
// [gather]

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { TRIES = 3 };

void report_zero_copy(const struct table *t)
{
    int integrated = 0, can_map = 0, uva = 0, pageable = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&uva, cudaDevAttrUnifiedAddressing, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    printf("device: integrated %d (1: GPU and CPU share one memory), canMapHostMemory %d, "
           "unifiedAddressing %d, pageableMemoryAccess %d\n", integrated, can_map, uva, pageable);
    /* The naive program's two steps, each alone, best of three. */
    size_t bytes = selected_bytes(t);
    float *packed = t->idx ? (float *)pinned_alloc(bytes) : t->host;
    float *dev = (float *)device_alloc(bytes);
    double gather_ms = 0, gather1_ms = 0, copy_ms = 1e30;
    if (t->idx) {
        gather_ms = gather1_ms = 1e30;
        for (int k = 0; k < TRIES; k++) {
            double t0 = now_ms();
            gather_rows(t, packed, 1);
            double t1 = now_ms();
            gather_rows(t, packed, 0);
            double t2 = now_ms();
            gather_ms = t1 - t0 < gather_ms ? t1 - t0 : gather_ms;
            gather1_ms = t2 - t1 < gather1_ms ? t2 - t1 : gather1_ms;
        }
    }
    for (int k = 0; k < TRIES; k++) {
        double t0 = now_ms();
        CUDA_CHECK(cudaMemcpy(dev, packed, bytes, cudaMemcpyHostToDevice));
        double ms = now_ms() - t0;
        copy_ms = ms < copy_ms ? ms : copy_ms;
    }
    printf("rows: %ld of %ld read (%zu bytes each, %zu bytes in all); alone, best of %d: "
           "host gather %.3f ms on %d threads (%.3f ms on one), one copy %.3f ms (%.1f GB/s)\n",
           t->selected, t->rows, t->row, bytes, TRIES, gather_ms, omp_get_max_threads(),
           gather1_ms, copy_ms, bytes / copy_ms / 1e6);
    CUDA_CHECK(cudaFree(dev));
    if (t->idx)
        CUDA_CHECK(cudaFreeHost(packed));
    evidence_print("integrated", integrated, "flag");
    evidence_print("can_map_host_memory", can_map, "flag");
    evidence_print("selected_bytes", (double)bytes, "bytes");
    evidence_print("gather_ms", gather_ms, "ms");
    evidence_print("gather_one_core_ms", gather1_ms, "ms");
    evidence_print("host_threads", omp_get_max_threads(), "threads");
    evidence_print("copy_ms", copy_ms, "ms");
    evidence_print("link_gbs", bytes / copy_ms / 1e6, "GB/s");
}

const struct problem PROBLEM = {
    .number = 14,
    .slug = "zero-copy",
    .title = "Zero-copy: a kernel that reads mapped host memory",
    .section = "5.3.1",
    .size_help = "bytes of the host table, whole rows of --row bytes (1G: 4M rows of 256 bytes)",
    .default_size = 1L << 30,
    .small_size = 3000017,
    .odd_size = 25300003,
    .min_size = 65536,
    .max_size = 4L << 30,
    .knobs = {{"row", "bytes of one row of the table", 256, 16, 65536, 16},
              {"permille", "rows read per thousand, at random; 1000 reads every row once, in "
               "order", 10, 1, 1000}},
    .nknobs = 2,
    /* --row 48: 3 float4s a row, a team of 2 lanes, so one lane of each team takes a second
     * pass and the other does not; every other tested row is a power-of-two number of float4s,
     * which its team divides. */
    .test_options = {"--permille 1", "--permille 100", "--row 32", "--row 4096",
                     "--row 16 --permille 1000", "--row 48"},
    .timing = TIME_REGION,
    .metric = METRIC_LINK_H2D,
    /* Sectors the L2 fetched from system memory (host memory over PCIe):
     * the zero-copy kernel's rows, and none for a kernel on device memory. */
    .ncu_metrics = "gpu__time_duration.sum,lts__t_sectors_aperture_sysmem_op_read.sum,"
                   "dram__bytes_read.sum",
    /* Every row once, in order: the read-once case of the guide. */
    .sweeps = {"--permille 1000"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
