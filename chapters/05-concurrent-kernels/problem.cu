/* Chapter 05, the problem: a batch of independent small kernels. Kernel k
 * runs `rounds` xorshift32 steps on each element of its own slice of the
 * input and writes its own slice of the output; no kernel reads what another
 * writes. Bit-exact check against the same steps on the CPU. Each kernel also
 * records when it ran, and the last run's timeline is printed as evidence. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static size_t slice_bytes(const struct config *c)
{
    return (size_t)c->knob[0] * (size_t)c->size * sizeof(int);
}

static size_t stamps_bytes(const struct config *c)
{
    return 2 * (size_t)c->knob[0] * sizeof(unsigned long long);
}

static size_t device_bytes(const struct config *c) { return 2 * slice_bytes(c) + stamps_bytes(c); }

/* Input, the downloaded output and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * slice_bytes(c); }

static void *create(const struct config *c)
{
    struct batch *b = (struct batch *)calloc(1, sizeof *b);
    b->n = c->size;
    b->kernels = (int)c->knob[0];
    b->nstreams = (int)c->knob[1];
    b->rounds = (int)c->knob[2];
    size_t count = (size_t)b->kernels * b->n, bytes = slice_bytes(c);
    b->h_in = (int *)host_alloc(bytes);
    /* Never zero: zero is the one value xorshift32 maps to itself. */
    rng_fill_i32(b->h_in, count, 1, INT32_MAX, c->seed, 0);
    b->in = (int *)device_alloc(bytes);
    b->out = (int *)device_alloc(bytes);
    b->stamps = (unsigned long long *)device_alloc(stamps_bytes(c));
    /* Zeroed once, before any kernel runs. Every run's kernels write all the stamps, but
     * compute-sanitizer's initcheck has now and then reported some start stamps as never
     * written after the optimized program's kernels ran side by side (on the H100, in about
     * one run of fifty; giving each kernel's stamps a 32-byte sector of its own did not stop
     * it). With the stamps zeroed first, initcheck has nothing to report, and a stamp that a
     * kernel really failed to write still shows: it reads 0, which stretches the timeline's
     * span to the whole clock and fails the chapter's claims on it. */
    CUDA_CHECK(cudaMemset(b->stamps, 0, stamps_bytes(c)));
    CUDA_CHECK(cudaMemcpy(b->in, b->h_in, bytes, cudaMemcpyHostToDevice));
    return b;
}

/* -1 everywhere; the kernels write x >> 1, which is never negative. */
static void poison(void *data)
{
    struct batch *b = (struct batch *)data;
    poison_device(b->out, (size_t)b->kernels * b->n * sizeof(int));
}

static int check(void *data, struct check_report *r)
{
    struct batch *b = (struct batch *)data;
    size_t count = (size_t)b->kernels * b->n, bytes = count * sizeof(int);
    int *got = (int *)host_alloc(bytes), *ref = (int *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, b->out, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; i++) {
        unsigned x = (unsigned)b->h_in[i];
        for (int k = 0; k < b->rounds; k++)
            x = xorshift32(x);
        ref[i] = (int)(x >> 1);
    }
    check_bytes(got, ref, count, sizeof(int), r);
    free(got);
    free(ref);
    return r->passed;
}

/* What the kernels read and write. It is tiny: these kernels are limited by
 * the latency of their instruction chains, and the headline is the time. */
static double bytes(const void *data)
{
    const struct batch *b = (const struct batch *)data;
    return 2.0 * b->kernels * b->n * sizeof(int);
}

/* Not flops: the kernels one run launches (one graph launch of them), which
 * METRIC_LAUNCH_GRAPH compares with the rate at which this GPU runs a graph of
 * empty kernel nodes (common/roofs.h). */
static double flops(const void *data) { return (double)((const struct batch *)data)->kernels; }

void batch_capture(struct batch *b, batch_submit submit)
{
    cudaStream_t origin;
    cudaGraph_t g;
    CUDA_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
    submit(b, origin);
    CUDA_CHECK(cudaStreamEndCapture(origin, &g));
    CUDA_CHECK(cudaGraphInstantiate(&b->graph, g, 0));
    CUDA_CHECK(cudaGraphDestroy(g));
    CUDA_CHECK(cudaStreamDestroy(origin));
}

void batch_run(void *data, cudaStream_t stream)
{
    CUDA_CHECK(cudaGraphLaunch(((struct batch *)data)->graph, stream));
}

void batch_release(void *data) { CUDA_CHECK(cudaGraphExecDestroy(((struct batch *)data)->graph)); }

/* The timeline of the last run (the last timed sample, or the checked run):
 * the mean kernel length, the span from the first start to the last end, and
 * their quotient, how many kernels ran at once on average (the sum of the
 * kernels' lengths over the span). Nsight Compute cannot show this: it runs
 * kernels one at a time to measure them. */
static void print_timeline(const struct batch *b)
{
    size_t count = 2 * (size_t)b->kernels;
    unsigned long long *t = (unsigned long long *)host_alloc(count * sizeof *t);
    CUDA_CHECK(cudaMemcpy(t, b->stamps, count * sizeof *t, cudaMemcpyDeviceToHost));
    unsigned long long first = t[0], last = t[1];
    double busy = 0;
    for (int k = 0; k < b->kernels; k++) {
        first = t[2 * k] < first ? t[2 * k] : first;
        last = t[2 * k + 1] > last ? t[2 * k + 1] : last;
        busy += (double)(t[2 * k + 1] - t[2 * k]);
    }
    double span = (double)(last - first);
    evidence_print("kernel_us", busy / b->kernels / 1e3, "us");
    evidence_print("span_us", span / 1e3, "us");
    evidence_print("kernels_at_once", span > 0 ? busy / span : 0, "kernels");
    free(t);
}

static void destroy(void *data)
{
    struct batch *b = (struct batch *)data;
    print_timeline(b);
    CUDA_CHECK(cudaFree(b->stamps));
    CUDA_CHECK(cudaFree(b->in));
    CUDA_CHECK(cudaFree(b->out));
    free(b->h_in);
    free(b);
}

const struct problem PROBLEM = {
    .number = 5,
    .slug = "concurrent-kernels",
    .title = "Concurrent kernels: independent small kernels in many streams",
    .section = "5.2.2",
    .size_help = "elements per kernel, one block of 256 threads each (default: one per thread)",
    .default_size = 256,
    .small_size = 100,
    /* Past BLOCK: every thread's loop takes a second, partial pass (457 = 256 + 201), which
     * no other test size reaches (passes is capped at 255 by the default size). */
    .odd_size = 457,
    .min_size = 1,
    .max_size = 1 << 20,
    .knobs = {{"kernels", "independent one-block kernels per run", 64, 1, 1024},
              {"streams", "streams the optimized program spreads the kernels over "
                          "(the naive uses one)", 64, 1, 1024},
              {"rounds", "xorshift32 steps per element: each kernel's length "
                         "(32768: about 400 us)", 32768, 1, 1 << 20}},
    .nknobs = 3,
    .test_options = {"--kernels 1 --streams 1", "--kernels 256 --streams 256", "--streams 1",
                     "--streams 8", "--streams 16", "--streams 32", "--rounds 1", "--rounds 64",
                     "--rounds 65536"},
    .timing = TIME_KERNEL,
    .metric = METRIC_LAUNCH_GRAPH,
    /* The last three: the instructions a generator step executes and the
     * cycles they take (the count of 24 cycles a step against the measured
     * 31; see the README's Results). */
    .ncu_metrics = "gpu__time_duration.sum,launch__grid_size,launch__block_size,"
                   "sm__cycles_active.avg.pct_of_peak_sustained_elapsed,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__inst_executed.sum,sm__cycles_active.max,"
                   "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
