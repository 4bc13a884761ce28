/* Chapter 34, the problem: the sum of every row of a matrix of bytes, --cols
 * bytes to a row (the last row may be short), each sum into its own slot. The
 * check is exact: one missing or doubled byte changes its row's sum. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_COLS };

/* The matrix repeats a pool of seeded random bytes, so that generating a GiB
 * and its row sums costs a million random numbers, not a billion, and each
 * row's sum is a difference of two prefix sums of the pool. The pool's length
 * is prime, so the repeats do not line up with the rows. */
static const long POOL = 1048573;

static long rows_of(long n, long cols) { return (n + cols - 1) / cols; }

static size_t device_bytes(const struct config *c)
{
    long rows = rows_of(c->size, c->knob[KNOB_COLS]);
    return (size_t)c->size + (size_t)POOL + (size_t)rows * sizeof(unsigned) + 256;
}

static size_t host_bytes(const struct config *c)
{
    long rows = rows_of(c->size, c->knob[KNOB_COLS]);
    return (size_t)POOL * (1 + sizeof(long long)) + 2 * (size_t)rows * sizeof(unsigned); /* want, got */
}

unsigned resident_grid(const void *kernel)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0));
    return (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
}

__global__ void fill_kernel(unsigned char *in, const unsigned char *pool, long n, long pool_n)
{
    long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        in[i] = pool[i % pool_n];
}

static void *create(const struct config *c)
{
    struct row_sums *r = (struct row_sums *)calloc(1, sizeof *r);
    r->n = c->size;
    r->cols = c->knob[KNOB_COLS];
    r->rows = rows_of(r->n, r->cols);
    /* Bytes 1..255: never zero, so a dropped byte always shows. */
    unsigned char *pool = (unsigned char *)host_alloc((size_t)POOL);
    long long *prefix = (long long *)host_alloc((size_t)(POOL + 1) * sizeof(long long));
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 34;
    prefix[0] = 0;
    for (long i = 0; i < POOL; i++) {
        pool[i] = (unsigned char)(1 + rng_next(&state) % 255);
        prefix[i + 1] = prefix[i] + pool[i];
    }
    /* The sum of bytes [0, x): whole pools, then a prefix of one. */
    r->want = (unsigned *)host_alloc((size_t)r->rows * sizeof(unsigned));
    for (long row = 0; row < r->rows; row++) {
        long a = row * r->cols, b = a + r->cols < r->n ? a + r->cols : r->n;
        long long sa = (a / POOL) * prefix[POOL] + prefix[a % POOL];
        long long sb = (b / POOL) * prefix[POOL] + prefix[b % POOL];
        r->want[row] = (unsigned)(sb - sa);
    }
    unsigned char *d_pool = (unsigned char *)device_alloc((size_t)POOL);
    CUDA_CHECK(cudaMemcpy(d_pool, pool, (size_t)POOL, cudaMemcpyHostToDevice));
    unsigned char *in = (unsigned char *)device_alloc((size_t)r->n);
    fill_kernel<<<1024, 256>>>(in, d_pool, r->n, POOL);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    r->in = in;
    r->out = (unsigned *)device_alloc((size_t)r->rows * sizeof(unsigned));
    CUDA_CHECK(cudaFree(d_pool));
    free(prefix);
    free(pool);
    return r;
}

static void poison(void *data)
{
    struct row_sums *r = (struct row_sums *)data;
    poison_device(r->out, (size_t)r->rows * sizeof(unsigned));
}

static int check(void *data, struct check_report *rep)
{
    struct row_sums *r = (struct row_sums *)data;
    size_t bytes = (size_t)r->rows * sizeof(unsigned);
    unsigned *got = (unsigned *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, r->out, bytes, cudaMemcpyDeviceToHost));
    printf("row sums: %ld rows of %ld bytes; row 0: %u on the GPU, %u exact\n", r->rows, r->cols,
           got[0], r->want[0]);
    /* The pair's grid loops over the rows, grid * DEPTH of them a pass: the
     * odd size needs more than one pass, so a wrong stride shows. */
    if (r->grid)
        printf("row loop: %ld passes of %u blocks x %d rows\n",
               (r->rows + (long)r->grid * DEPTH - 1) / ((long)r->grid * DEPTH), r->grid, DEPTH);
    check_bytes(got, r->want, (size_t)r->rows, sizeof(unsigned), rep);
    free(got);
    return rep->passed;
}

/* Every byte of the matrix is read once and every row's sum written once. */
static double bytes(const void *data)
{
    const struct row_sums *r = (const struct row_sums *)data;
    return (double)r->n + (double)r->rows * sizeof(unsigned);
}

static double flops(const void *data) { return (double)((const struct row_sums *)data)->n; }

static void destroy(void *data)
{
    struct row_sums *r = (struct row_sums *)data;
    CUDA_CHECK(cudaFree((void *)r->in));
    CUDA_CHECK(cudaFree(r->out));
    free(r->want);
    free(r);
}

const struct problem PROBLEM = {
    .number = 34,
    .slug = "synchronization",
    .title = "Fewer synchronization points: a block reduction with one barrier",
    .section = "5.4.3",
    .size_help = "bytes of the matrix (1 GiB: 4M rows of 256)",
    .default_size = 1L << 30,
    .small_size = 100003,
    /* 15,626 rows of 256 (the last one byte long): 2.5 passes of the row
     * loop's grid * DEPTH rows, 132 SMs x 6 blocks x 8 = 6,336 on the H100
     * and H200 (two passes on up to 162 SMs), so that every block runs its
     * loop's later passes; at the default --cols. */
    .odd_size = 4000001,
    .min_size = 1,
    /* The library's row offsets are ints. The bound also keeps every index
     * load_rows forms below 2^31, so an int there could not wrap: the rows
     * the grid visits, padded up to whole groups of DEPTH, end at
     * ceil(n / (DEPTH * cols)) * DEPTH * cols bytes, and DEPTH * cols (a
     * power of two up to 2^19) divides 2^31, so n < 2^31 puts that end at
     * 2^31 or below. Past 2^31 an int index would wrap; the 2^31 run of
     * tests/run.sh would then be needed, and it needs max_size >= 2^31. */
    .max_size = (1L << 31) - 1,
    .knobs = {{"cols", "bytes in a row, each row one block reduction (a power of two, "
               "at least 256: every thread of the block holds a share of every row)", 256, 256,
               65536, 0, KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--cols 65536"},
    .timing = TIME_KERNEL,
    .metric = METRIC_READ_GBS,
    /* Barrier and long-scoreboard stalls say where the warps wait; shared-
     * memory instructions carry the tree; issue active says that issue is not
     * the limit; DRAM bytes say each byte is read once. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "smsp__sass_inst_executed_op_shared_st.sum,"
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    /* Longer rows: more bytes per block reduction, until the loads hide it. */
    .sweeps = {"--cols 1024", "--cols 4096"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
