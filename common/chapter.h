/* The chapter contract: what a chapter's problem file and its programs hand to
 * the common driver (driver.cu). A chapter folder holds
 *   problem.cu   one `const struct problem PROBLEM` (inputs, reference, check)
 *   problem.h    the chapter's data struct, shared by its programs
 *   naive.cu, optimized.cu (and library.cu): kernels, a run function, and
 *                a main() that is one call to run_variant().
 * Everything else (command line, timing, checking, results) lives in common/. */
#ifndef COMMON_CHAPTER_H
#define COMMON_CHAPTER_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "check.h"
#include "cli.h"

#define MAX_SWEEPS 12

#define MAX_TEST_OPTIONS 12

#define MAX_PLANTS 4

/* How the timed region is measured. */
enum timing {
    TIME_KERNEL, /* CUDA events around device work, L2 flushed before each sample */
    TIME_REGION  /* host wall clock around host-orchestrated work, end to end */
};

/* What the headline throughput is, and which roof it is compared with. */
enum metric {
    METRIC_GBS,    /* bytes / time, % of the measured device-to-device copy roof */
    METRIC_GFLOPS, /* flops / time, % of the FP32 peak from device attributes */
    METRIC_HOST_GBS, /* host<->device bytes / time; no device roof applies */
    METRIC_TIME,     /* time alone: no rate says anything useful (launch-bound work) */
    METRIC_SFU,      /* special-function evaluations (flops()) / time, % of the SFU peak */
    METRIC_LOOKUPS,  /* random lookups (flops()) / time, % of the measured random-sector roof */
    /* Instruction-throughput roofs from the guide's throughput table (5.4.1,
     * "Arithmetic Instructions") and device attributes; flops() counts what
     * each one names. */
    METRIC_FP64,     /* FP64 flops (an FMA is 2) / time, % of the FP64 FMA peak */
    METRIC_FP16,     /* FP16 flops (an FMA is 2, a half2 FMA 4) / time, % of the FP16 peak */
    METRIC_CONVERT,  /* conversions to or from 64-bit types / time, % of their peak */
    METRIC_INT32,    /* 32-bit integer add/multiply-add operations / time, % of their peak */
    /* The roofs of issue 20 (common/roofs.h), each measured or derived only by
     * a program whose metric names it. */
    METRIC_READ_GBS, /* bytes() / time, % of a read-only stream's rate (read-mostly kernels) */
    METRIC_L2_GATHER, /* lookups (flops(): one per 4-byte gather) / time, % of random reads
                       * from a table resident in the L2 */
    METRIC_L1_GATHER, /* the same, % of random reads from a table resident in the L1 */
    METRIC_SHARED_LOOKUPS, /* 4-byte shared-memory (or constant) lookups per thread, counted
                            * per lane (flops()) / time, % of 32 per clock per SM */
    METRIC_ISSUE,    /* warp instructions executed (flops(): per warp, not per thread, as
                      * ncu's smsp__inst_executed counts them) / time, % of 4 per clock per SM */
    METRIC_LINK_H2D, /* host-to-device bytes() / time, % of pinned cudaMemcpyAsync's rate */
    METRIC_LINK_D2H, /* device-to-host bytes() / time, the same the other way */
    METRIC_LINK_DUPLEX, /* bytes() of both directions / time, % of both copies at once */
    METRIC_LAUNCH_STREAM, /* kernel launches (flops()) / time, % of empty kernels launched
                           * back to back on one stream; in 1e3 launches/s */
    METRIC_LAUNCH_GRAPH  /* kernel nodes launched (flops()) / time, % of the same empty
                          * kernels as one CUDA graph; in 1e3 launches/s */
};

/* What run_variant tells the problem: size, knobs and seed chosen by the user. */
struct config {
    long size;
    long knob[MAX_KNOBS];
    unsigned long long seed;
    int check_rule;          /* the variant's check_rule, for create() to keep for check() */
};

struct problem {
    int number;              /* 20 */
    const char *slug;        /* "matrix-transpose" */
    const char *title;       /* "Matrix transpose" */
    const char *section;     /* guide section, "5.3.2" */
    const char *size_help;   /* what --size means, "matrix side n (n x n floats)" */
    long default_size, small_size, odd_size, min_size, max_size;
    struct knob knobs[MAX_KNOBS];
    int nknobs;
    /* Knob values the prose uses besides the default and the sweeps (its
     * exercises), as program options: `make test` on a GPU checks each at the
     * small and odd sizes, so no value a reader is told to try is untested. */
    const char *test_options[MAX_TEST_OPTIONS];
    /* Faults of the chapter's own that its check must catch, each a value of
     * the GUIDE_PLANT environment variable that create() or check() reads
     * ("tf32": inputs the GPU rounds), besides the driver's "unwritten".
     * `make test` on a GPU runs each and expects the check to fail. */
    const char *plants[MAX_PLANTS];
    enum timing timing;
    enum metric metric;
    /* Optional: the metric of one configuration, where a knob changes which
     * roof bounds the program (chapter 13's --direction: the link's rate
     * each way). NULL: .metric for every configuration. */
    enum metric (*metric_of)(const void *data);
    const char *ncu_metrics; /* comma-separated, the chapter's profiler evidence */
    /* Other configurations `make results` measures besides the default, as
     * program options ("--fast-exp 1"): the knob settings the prose relies on. */
    const char *sweeps[MAX_SWEEPS];
    /* Fewest timed samples, whatever --samples says (0: the harness's 20).
     * For noisy host-orchestrated regions, so that the quartiles, and with
     * them the noise figure, rest on enough samples to mean something. */
    int min_samples;
    /* Rounds of the default configuration (0 or 1: one). With R > 1, `make results` runs the
     * chapter's programs R times each, one process per run, taking turns (naive, optimized,
     * naive, ...), and keeps each program's round of median time: for host-orchestrated work
     * whose time moves between processes more than within one (chapter 36's allocations). */
    int rounds;

    /* Bytes of device and host memory create() will need, so that a size too
     * large is refused with a message before anything is allocated. */
    size_t (*device_bytes)(const struct config *c);
    size_t (*host_bytes)(const struct config *c);
    /* Allocate host and device buffers, fill inputs from c->seed, upload. */
    void *(*create)(const struct config *c);
    /* Fill every output with a value no correct run writes (NaN, 0xFF). */
    void (*poison)(void *data);
    /* Download the outputs and compare with the CPU reference. */
    int (*check)(void *data, struct check_report *r);
    /* Work counted for the derived figures (fewest bytes that must move; flops,
     * or what the metric's comment above says flops() counts: evaluations,
     * lookups, warp instructions, launches). */
    double (*bytes)(const void *data);
    double (*flops)(const void *data);
    void (*destroy)(void *data);

    /* Optional, for host-orchestrated programs (timing TIME_REGION), whose run is not checked
     * from a captured graph: with poison_on set, `make test` (GUIDE_CAPTURE=1) checks once more with
     * the program's stream held shut at first (common/driver.cu, ordered_run), so that only the
     * program's own stream and event edges order its work before the check reads.
     *   watch: a 32-bit word (device memory, or pinned host memory, which a kernel reads
     *     through the same pointer) that the run's work writes early, poisoned to 0xFFFFFFFF by
     *     poison(); NULL where there is none.
     *   poison_on: poison every output the run writes (as poison() does) by work queued on
     *     stream s (poison_async, cudaMemsetAsync, cudaLaunchHostFunc), so that it lands after
     *     everything queued on s before it and before everything queued after it. */
    const unsigned *(*watch)(void *data);
    void (*poison_on)(void *data, cudaStream_t s);
    /* 1: the run is stream work alone (no synchronous call), so that the check also runs it
     * from a graph captured on its stream (captured_run) although it is timed on the host
     * clock: a side stream not joined back then fails cudaStreamEndCapture (chapter 02). */
    int capture_region;
};

/* One program of the pair (or the library bar). */
struct variant {
    const char *name;                   /* "naive", "optimized", "library" */
    void (*run)(void *data, cudaStream_t stream); /* the timed work */
    void (*prepare)(void *data);        /* optional, untimed, before the first run */
    void (*release)(void *data);        /* optional, after the last run */
    /* Optional (0: the problem's one rule): which accuracy the check holds this
     * program to, where the programs of a pair may differ in accuracy (chapter
     * 25: the documented bounds of the functions it calls). Passed to create()
     * in struct config. */
    int check_rule;
    /* 1: a library bar that does other work than flops() or bytes() count for the pair
     * (chapter 34's merge sort against the pair's 32 splits a group): the rate, which
     * credits the pair's work, does not apply to it, so its row carries the time alone. */
    int other_work;
};

/* The whole program: parse options, check, time, report. Returns the exit
 * code. SOURCE_HASH is defined by the Makefile when it compiles a chapter:
 * the hash of the chapter's sources, written into every results row. */
#ifndef SOURCE_HASH
#define SOURCE_HASH "unknown"
#endif
/* Fill bytes at p (device memory, or pinned host memory) with 0xFF, by a kernel queued on s:
 * the stream-ordered poison of a problem's poison_on. */
void poison_async(void *p, size_t bytes, cudaStream_t s);

int run_variant_hashed(int argc, char **argv, const struct problem *p, const struct variant *v,
                       const char *source_hash);
#define run_variant(argc, argv, p, v) run_variant_hashed((argc), (argv), (p), (v), SOURCE_HASH)

/* Exit codes every program shares. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_CHECK_FAILED = 1,
    EXIT_USAGE = 2,
    EXIT_NO_GPU = 3,
    EXIT_TOO_LARGE = 4,
    EXIT_CUDA_ERROR = 5
};

#endif
