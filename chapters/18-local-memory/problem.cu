/* Chapter 18, the problem: for each of n records of 64 byte-sized symbols,
 * count how many symbols fall in each of `bins` equal ranges of 0..255 (bin =
 * symbol * bins / 256). Exact check of every count against a CPU reference;
 * the work is one read of the records and one write of the counts. */
#include "problem.h"
#include "cuda_check.h"
#include "ncu_stalls.h"
#include "rng.h"

#include <stdlib.h>
#include <string.h>

enum { KNOB_BINS, KNOB_PACKED };

/* Inputs are drawn from a pool of at most POOL distinct records scattered at
 * random over the array, so that the reference is computed once per pool
 * record; every count of every record is still checked. The kernels cannot
 * tell: each thread reads and counts its own record. */
#define POOL 65536L

static size_t in_bytes(long n) { return (size_t)n * RECORD_WORDS * sizeof(uint32_t); }
static size_t out_bytes(long n, long bins) { return (size_t)n * (size_t)bins; }

static size_t device_bytes(const struct config *c)
{
    return in_bytes(c->size) + out_bytes(c->size, c->knob[KNOB_BINS]);
}

/* Input, pick, the downloaded counts and the reference counts, the pool. */
static size_t host_bytes(const struct config *c)
{
    return in_bytes(c->size) + (size_t)c->size * sizeof(int32_t) +
           2 * out_bytes(c->size, c->knob[KNOB_BINS]) + (size_t)POOL * RECORD_WORDS * 4;
}

static void *create(const struct config *c)
{
    struct localmem *h = (struct localmem *)calloc(1, sizeof *h);
    h->n = c->size;
    h->bins = (int)c->knob[KNOB_BINS];
    h->packed = (int)c->knob[KNOB_PACKED];
    h->npool = h->n < POOL ? h->n : POOL;
    h->pool = (uint32_t *)host_alloc((size_t)h->npool * RECORD_WORDS * sizeof(uint32_t));
    h->pick = (int32_t *)host_alloc((size_t)h->n * sizeof(int32_t));
    h->h_in = (uint32_t *)host_alloc(in_bytes(h->n));
    /* Uniform random bytes: every bin equally likely. */
    rng_fill_i32((int32_t *)h->pool, (size_t)h->npool * RECORD_WORDS, INT32_MIN, INT32_MAX,
                 c->seed, 0);
    rng_fill_i32(h->pick, (size_t)h->n, 0, (int32_t)(h->npool - 1), c->seed, 1);
    /* But pool record p < 256 is symbol p 64 times over, and record r < 256 is
     * pool record r: at every --bins each bin's count reaches 64, the most a
     * record holds, which random records never come near, so that a counter
     * too narrow for 64 (a packed field) fails the check at every test size. */
    for (long p = 0; p < h->npool && p < 256; p++) { /* npool <= n */
        for (int k = 0; k < RECORD_WORDS; k++)
            h->pool[p * RECORD_WORDS + k] = (uint32_t)p * 0x01010101u;
        h->pick[p] = (int32_t)p;
    }
    for (long k = 0; k < RECORD_WORDS; k++)
#pragma omp parallel for schedule(static) /* 128M scattered reads: every core */
        for (long r = 0; r < h->n; r++)
            h->h_in[k * h->n + r] = h->pool[(size_t)h->pick[r] * RECORD_WORDS + k];
    h->in = (uint32_t *)device_alloc(in_bytes(h->n));
    h->out = (uint8_t *)device_alloc(out_bytes(h->n, h->bins));
    CUDA_CHECK(cudaMemcpy(h->in, h->h_in, in_bytes(h->n), cudaMemcpyHostToDevice));
    return h;
}

static void poison(void *data)
{
    struct localmem *h = (struct localmem *)data;
    poison_device(h->out, out_bytes(h->n, h->bins)); /* 255: no count of 64 symbols */
}

static int check(void *data, struct check_report *r)
{
    struct localmem *h = (struct localmem *)data;
    size_t n = (size_t)h->n, bins = (size_t)h->bins, bytes = out_bytes(h->n, h->bins);
    uint8_t *got = (uint8_t *)host_alloc(bytes), *ref = (uint8_t *)host_alloc(bytes);
    uint8_t *pool_ref = (uint8_t *)host_alloc((size_t)h->npool * bins);
    CUDA_CHECK(cudaMemcpy(got, h->out, bytes, cudaMemcpyDeviceToHost));
    memset(pool_ref, 0, (size_t)h->npool * bins);
    for (long p = 0; p < h->npool; p++)
        for (int k = 0; k < RECORD_WORDS; k++)
            for (int s = 0; s < 4; s++) {
                unsigned symbol = (h->pool[p * RECORD_WORDS + k] >> (8 * s)) & 255u;
                pool_ref[(size_t)p * bins + symbol * bins / 256]++;
            }
    for (size_t b = 0; b < bins; b++)
#pragma omp parallel for schedule(static)
        for (long i = 0; i < (long)n; i++)
            ref[b * n + i] = pool_ref[(size_t)h->pick[i] * bins + b];
    check_bytes(got, ref, bytes, 1, r);
    free(got);
    free(ref);
    free(pool_ref);
    return r->passed;
}

/* The fewest bytes the work must move: read every record, write every count. */
static double bytes(const void *data)
{
    const struct localmem *h = (const struct localmem *)data;
    return (double)in_bytes(h->n) + (double)out_bytes(h->n, h->bins);
}

/* The issue roof's count (METRIC_ISSUE): a floor under the warp instructions
 * each variant executes per warp of 32 records, counted from its code and
 * credited to both programs of a configuration, as bytes() credits both with
 * the fewest bytes. Per symbol: a compare, a select and an add per counter
 * register (B of them, or B / 4 packed; packed, also the shift that makes
 * the 1 to add, and with one register only the add, since every symbol lands
 * in it). Per record: 16 loads and B stores. The byte extraction, addressing
 * and setup the compiler adds are left out, so the count can only fall short
 * of what the GPU executes: the rate is at most the executed instructions
 * per second, and no row can pass the issue roof. The claim count-is-a-floor
 * checks the count against smsp__inst_executed at every profiled
 * configuration. (An estimate of every instruction, the earlier count,
 * overshot at 4 bins and put a row at 102% of the roof.) */
static double warp_insts(int bins, int packed)
{
    int regs = packed ? bins / 4 : bins;
    double per_symbol = !packed ? 3.0 * regs : regs > 1 ? 3.0 * regs + 1 : 2.0;
    return 64 * per_symbol + RECORD_WORDS + bins;
}

static double flops(const void *data)
{
    const struct localmem *h = (const struct localmem *)data;
    return (double)((h->n + 31) / 32) * warp_insts(h->bins, h->packed);
}

static void destroy(void *data)
{
    struct localmem *h = (struct localmem *)data;
    CUDA_CHECK(cudaFree(h->in));
    CUDA_CHECK(cudaFree(h->out));
    free(h->h_in);
    free(h->pool);
    free(h->pick);
    free(h);
}

const struct problem PROBLEM = {
    .number = 18,
    .slug = "local-memory",
    .title = "Local memory: a per-thread array indexed at run time",
    .section = "5.3.2",
    .size_help = "records n, each 64 one-byte symbols (8M: 512 MiB of records)",
    .default_size = 8L << 20,
    .small_size = 100001,
    .odd_size = 77777,
    .min_size = 1,
    /* 2^25 records: the largest index of a count, b * n + r at 64 bins, is
     * 64 * 2^25 - 1 = 2^31 - 1, so no size the program accepts needs more
     * than a 32-bit index (the kernels use long all the same); a larger size
     * is refused with its range. Past 2^25 records the suite would have to
     * check a run past 2^31 (8 GiB at 2^26 records and 64 bins) for nothing
     * the lesson needs: the default is a quarter of this. */
    .max_size = 1L << 25,
    .knobs = {{"bins", "histogram bins per record, naive and optimized (a power of two)",
               DEFAULT_BINS, 4, 64, 0, KNOB_POWER_OF_TWO},
              {"packed", "1: the optimized program keeps four 8-bit counters in each register "
               "(the naive program ignores it)", 0, 0, 1}},
    .nknobs = 2,
    /* Every --bins value with and without --packed: each runs its own kernel
     * instance (kernel_for, packed_for). */
    .test_options = {"--bins 4", "--bins 8", "--bins 32", "--bins 64", "--packed 1",
                     "--packed 1 --bins 4", "--packed 1 --bins 8", "--packed 1 --bins 32",
                     "--packed 1 --bins 64"},
    .timing = TIME_KERNEL,
    /* The register version is issue-bound (smsp__issue_active, below): the
     * issue roof, with flops() a floor under each variant's warp instructions. */
    .metric = METRIC_ISSUE,
    /* Local loads and stores: instructions, requests and sectors (a warp's
     * request touches one 128-byte line per distinct bin its threads hit);
     * all instructions issued, which the optimized program trades for them;
     * the L2's sectors read and written for the L1 (global and local alike),
     * to show how much local traffic leaves the L1 and how much of it the L2
     * keeps from DRAM. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "smsp__sass_inst_executed_op_local_ld.sum,"
                   "smsp__sass_inst_executed_op_local_st.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,"
                   "lts__t_sectors_srcunit_tex_op_read.sum,"
                   "lts__t_sectors_srcunit_tex_op_write.sum,"
                   /* the local version issues on few cycles: what holds its warps */
                   NCU_WARP_STATES,
    /* Fewer bins: the register version's compares shrink; more bins: they
     * grow with the bins while a local-memory update stays two accesses. */
    .sweeps = {"--bins 4", "--bins 64",
               /* The expert's next step (an exercise): four counters per register. */
               "--packed 1"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
