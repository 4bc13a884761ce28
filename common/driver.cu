/* The common driver behind every chapter program: parse the command line,
 * refuse what cannot run, check against the CPU reference, time, report. */
#include "evidence.h"
#include "chapter.h"
#include "cuda_check.h"
#include "device.h"
#include "flush.h"
#include "host.h"
#include "results.h"
#include "roofs.h"
#include "timing.h"

#include <nvtx3/nvToolsExt.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spec_of(const struct problem *p, const char *variant, char *program, size_t len,
                    struct cli_spec *s)
{
    snprintf(program, len, "%02d-%s/%s", p->number, p->slug, variant);
    s->program = program;
    s->title = p->title;
    s->size_help = p->size_help;
    s->default_size = p->default_size;
    s->small_size = p->small_size;
    s->odd_size = p->odd_size;
    s->min_size = p->min_size;
    s->max_size = p->max_size;
    s->knobs = p->knobs;
    s->nknobs = p->nknobs;
}

/* The unit of the headline rate; "time" where there is none. */
static const char *metric_unit(enum metric m)
{
    switch (m) {
    case METRIC_GFLOPS: case METRIC_FP64: case METRIC_FP16: return "GFLOP/s";
    case METRIC_SFU: case METRIC_CONVERT: case METRIC_INT32: return "Gop/s";
    case METRIC_LOOKUPS: case METRIC_L2_GATHER: case METRIC_L1_GATHER:
    case METRIC_SHARED_LOOKUPS: return "Glookup/s";
    case METRIC_ISSUE: return "Ginst/s"; /* warp instructions */
    case METRIC_LAUNCH_STREAM: case METRIC_LAUNCH_GRAPH: return "klaunch/s";
    case METRIC_TIME: return "time";
    default: return "GB/s";
    }
}

static void describe(const struct problem *p, const struct variant *v)
{
    char program[128];
    struct cli_spec s;
    spec_of(p, v->name, program, sizeof program, &s);
    printf("chapter=%02d\nslug=%s\nvariant=%s\ntitle=%s\nsection=%s\n", p->number, p->slug,
           v->name, p->title, p->section);
    printf("default_size=%ld\nsmall_size=%ld\nodd_size=%ld\nmin_size=%ld\nmax_size=%ld\n",
           p->default_size, cli_small_size(&s), p->odd_size, p->min_size, p->max_size);
    printf("timing=%s\nmetric=%s\nncu_metrics=%s\n", p->timing == TIME_KERNEL ? "kernel" : "region",
           metric_unit(p->metric),
           p->ncu_metrics ? p->ncu_metrics : "");
    for (int k = 0; k < p->nknobs; k++)
        printf("knob=%s\n", p->knobs[k].name);
    for (int k = 0; k < MAX_SWEEPS && p->sweeps[k]; k++)
        printf("sweep=%s\n", p->sweeps[k]);
    if (p->rounds > 1)
        printf("rounds=%d\n", p->rounds);
    for (int k = 0; k < MAX_TEST_OPTIONS && p->test_options[k]; k++)
        printf("test=%s\n", p->test_options[k]);
    for (int k = 0; k < MAX_PLANTS && p->plants[k]; k++)
        printf("plant=%s\n", p->plants[k]);
}

/* MemAvailable from /proc/meminfo, in bytes; 0 if unknown. */
static size_t host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb * 1024;
}

/* The largest size from min_size to hi whose device memory (device_bytes, which grows with
 * the size) is at most cap, with the knobs of c; 0 where not even min_size fits. */
static long largest_size(const struct problem *p, const struct config *c, long hi, size_t cap)
{
    struct config t = *c;
    long lo = p->min_size;
    t.size = lo;
    if (p->device_bytes(&t) > cap)
        return 0;
    while (lo < hi) {
        t.size = lo + (hi - lo + 1) / 2;
        if (p->device_bytes(&t) <= cap) lo = t.size;
        else hi = t.size - 1;
    }
    return lo;
}

static int fits(const struct problem *p, const struct config *c, const struct gpu_info *g,
                int timing)
{
    const double GiB = 1073741824.0;
    size_t need = p->device_bytes(c);
    /* Timing also holds the L2 flush buffer and, briefly, the copy-roof buffers. */
    size_t extra = timing ? 2 * g->l2_bytes + ((size_t)64 << 20) : ((size_t)64 << 20);
    size_t free_b = g->mem_free;
    const char *fake = getenv("GUIDE_FAKE_FREE_BYTES"); /* lets tests reach this path */
    if (fake)
        free_b = (size_t)strtoull(fake, NULL, 10);
    if (need + extra > free_b) {
        /* The largest size that would fit, so that a reader on a smaller GPU knows what to
         * ask for. */
        long lo = free_b >= extra ? largest_size(p, c, c->size - 1, free_b - extra) : 0;
        fprintf(stderr, "error: --size %ld needs %.2f GiB of GPU memory, but %s has %.2f GiB free; ",
                c->size, (need + extra) / GiB, g->name, free_b / GiB);
        if (lo)
            fprintf(stderr, "--size %ld fits\n", lo);
        else
            fprintf(stderr, "not even --size %ld fits\n", p->min_size);
        return 0;
    }
    size_t host_need = p->host_bytes(c), avail = host_available();
    if (avail && host_need > avail) {
        fprintf(stderr,
                "error: --size %ld needs %.2f GiB of host memory, but %.2f GiB is available; "
                "try a smaller --size\n",
                c->size, host_need / GiB, avail / GiB);
        return 0;
    }
    return 1;
}

/* --size passes (cli.h): the largest size up to the default whose device memory is at most
 * PASSES_MIB, made odd; the smallest size where even that is too much. */
static long passes_size(const struct problem *p, const struct config *c)
{
    long lo = largest_size(p, c, p->default_size, (size_t)PASSES_MIB << 20);
    if (!lo)
        return p->min_size;
    return lo % 2 == 0 && lo > p->min_size ? lo - 1 : lo;
}

static void knob_text(const struct problem *p, const struct config *c, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < p->nknobs; k++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s=%ld", k ? ";" : "", p->knobs[k].name, c->knob[k]);
    }
}

/* One checked run: poison the outputs, run the program on its stream, wait for that stream
 * alone, check. A device-wide synchronization here would hide a missing join of a non-blocking
 * side stream (a cudaStreamWaitEvent left out). Work put on the legacy default stream, which
 * the check's own cudaMemcpy waits for, and a missing fork pass here: the captured run
 * (captured_run, kernel-timed programs) and the ordered run (ordered_run, host-orchestrated
 * programs) are what catch them; tests/check-audit.md, K3. */
static int checked_run(const struct problem *p, const struct variant *v, void *data,
                       cudaStream_t s, struct check_report *rep, int profiled)
{
    p->poison(data);
    CUDA_CHECK(cudaDeviceSynchronize());
    /* The range holds the variant's own work and nothing else, so that
     * `ncu --nvtx-include NAME/` (make evidence) profiles only its kernels, of one run. */
    if (profiled)
        nvtxRangePushA(v->name);
    v->run(data, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (profiled)
        nvtxRangePop();
    /* The test suite's planted fault: the outputs look unwritten, as after a
     * kernel that never ran or a launch that covered nothing. Every chapter's
     * check must fail on it (tests/run.sh asserts exit 1). */
    const char *plant = getenv("GUIDE_PLANT");
    if (plant && strcmp(plant, "unwritten") == 0) {
        p->poison(data);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    p->check(data, rep);
    /* Whatever the program left in flight on other streams ends before the next step. */
    CUDA_CHECK(cudaDeviceSynchronize());
    return rep->passed;
}

/* The check once more with the program's work captured from its stream into a CUDA graph
 * (GUIDE_CAPTURE=1, which tests/run.sh sets; kernel-timed programs, whose run is stream work
 * alone). A capture holds exactly what is ordered on the stream: a side stream forked and never
 * joined back fails the capture, and work put on another stream (the legacy default stream, a
 * stream never forked from this one) runs at once, outside the graph. The outputs are poisoned
 * after that stray work has ended, so only the graph's work can write them: the check then
 * fails where the direct runs passed because the check's own copy waited on the stray work. */
static int captured_run(const struct problem *p, const struct variant *v, void *data,
                        cudaStream_t s, struct check_report *rep)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cuda_check_capturing = 1;
    cuda_check_refused_graph_launch = 0;
    v->run(data, s);
    cuda_check_capturing = 0;
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    if (cuda_check_refused_graph_launch) {
        /* The run is a launch of a graph the program captured itself (chapter 05): that
         * capture already failed on any fork not joined back, and a graph launch is ordered
         * on the stream as a whole. The direct runs' verdict stands. */
        (void)cudaGetLastError();
        if (e == cudaSuccess)
            CUDA_CHECK(cudaGraphDestroy(graph));
        CUDA_CHECK(cudaDeviceSynchronize());
        return rep->passed;
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        CUDA_CHECK(cudaDeviceSynchronize());
        printf("check: the program's work could not be captured from its stream (%s): a side "
               "stream forked and never joined back?\n", cudaGetErrorString(e));
        rep->passed = 0;
        return 0;
    }
    CUDA_CHECK(cudaDeviceSynchronize()); /* stray work outside the capture ends here */
    p->poison(data);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    p->check(data, rep);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return rep->passed;
}

/* The ordered run (GUIDE_CAPTURE=1, host-orchestrated programs whose problem sets watch and
 * poison_on): the check once more with the program's stream s held shut at first, so that only
 * the program's own stream and event edges order its work. Neither of the runs above can show
 * such a fault: checked_run queues nothing on s before the run, so a side stream that forgets
 * to wait for s (a dropped fork) loses nothing, and the check's own cudaMemcpy, on the legacy
 * stream, waits for work put on the legacy stream by mistake.
 *
 * On s, before the run: gate_kernel, which spins until the problem's watched output word
 * changes from its poison or ORDER_WAIT_NS has passed, then the problem's poison_on, which
 * poisons the outputs again in s's order. In a correct program everything the run does is
 * ordered after those two, so nothing it does can write the watched word while the gate
 * spins: the gate always waits out its time, the outputs are poisoned, the run overwrites
 * them, and the check passes. Work that is not ordered after s's earlier work (a side stream
 * never made to wait for s, a copy or kernel on the legacy stream, which a non-blocking s does
 * not synchronize with) runs while the gate spins. When it writes the watched word, the gate
 * sees it, records that it did, and only then ends; the poison that follows in s's order lands
 * on that word after the stray write, and nothing writes it again. Both make the run fail:
 * the gate's record alone (a correct program cannot set it), and the check, which reads the
 * poison there. This is not a race between the stray work and anything of the harness: the
 * gate does not stop after a time the stray work must beat, it stops when it has seen the
 * stray write. The one condition is that the stray work writes the watched word within
 * ORDER_WAIT_NS at all, while nothing else holds the GPU: the stray work of the chapters that
 * use this (a chunk of chapter 02, the first iteration of chapter 36) takes well under a
 * millisecond at the test sizes, so 100 ms leaves it a margin of over 100 times, enough for
 * the GPU's time slices among the test suite's processes. A correct program pays the 100 ms
 * once per ordered run. A host-to-device copy on the legacy stream is not such stray work on
 * an H200 (driver 580): it started only after the gate ended, in 15 runs of 15, whether
 * cudaMemcpy or cudaMemcpyAsync from pinned or pageable memory, so chapter 13 has no ordered
 * run (tests/check-audit.md, K3 of 13).
 *
 * After the run the driver waits for s alone, as checked_run does. A join left out is not a
 * stray write this gate can see (the side streams start after it, as they should): the
 * captured run of a problem with capture_region catches that one, as it does for the kernel-
 * timed programs. */
static const unsigned long long ORDER_WAIT_NS = 100000000ull; /* 100 ms */

__global__ void gate_kernel(const unsigned *watch, unsigned long long wait_ns, unsigned *seen)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        /* A volatile load is a relaxed load at system scope (PTX ISA, ld.volatile): it sees a
         * write by a copy engine or by another kernel once it is visible, in device memory or
         * in pinned host memory alike. */
        if (watch && *(const volatile unsigned *)watch != 0xFFFFFFFFu) {
            *seen = 1;
            return;
        }
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < wait_ns);
}

__global__ void poison_kernel(unsigned char *p, size_t bytes)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t words = ((size_t)p % 4 == 0) ? bytes / 4 : 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        ((unsigned *)p)[i] = 0xFFFFFFFFu;
    for (size_t i = words * 4 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
         i += stride)
        p[i] = 0xFF;
}

void poison_async(void *p, size_t bytes, cudaStream_t s)
{
    if (bytes == 0)
        return;
    poison_kernel<<<1024, 256, 0, s>>>((unsigned char *)p, bytes);
    CHECK_LAUNCH();
}

static int ordered_run(const struct problem *p, const struct variant *v, void *data,
                       cudaStream_t s, struct check_report *rep)
{
    unsigned *seen, seen_h = 0;
    CUDA_CHECK(cudaMalloc((void **)&seen, sizeof *seen));
    CUDA_CHECK(cudaMemset(seen, 0, sizeof *seen));
    p->poison(data);
    CUDA_CHECK(cudaDeviceSynchronize());
    gate_kernel<<<1, 1, 0, s>>>(p->watch ? p->watch(data) : NULL, ORDER_WAIT_NS, seen);
    CHECK_LAUNCH();
    p->poison_on(data, s);
    v->run(data, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    p->check(data, rep);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&seen_h, seen, sizeof seen_h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(seen));
    if (seen_h) {
        printf("check: the program's work wrote its output while its stream was still held "
               "before the run: work not ordered after the stream (a side stream not made to "
               "wait for it, a copy or kernel on the legacy stream)\n");
        rep->passed = 0;
    }
    return rep->passed;
}

/* The check runs the configuration as the timed loop does: twice in one process on the same
 * buffers, the outputs poisoned before each, so that state a run leaves behind (a counter or
 * a queue not reset, a buffer freed too early) fails the second check; with GUIDE_CAPTURE=1
 * the ordered run (ordered_run, host-orchestrated problems that opt in) and the run from a
 * graph captured on the stream (captured_run, kernel-timed programs and problems that opt in). The report printed is the first
 * failing run's, or the last run's. */
static int verify(const struct problem *p, const struct variant *v, void *data,
                  cudaStream_t s, struct check_report *rep)
{
    const char *capture = getenv("GUIDE_CAPTURE");
    int on = capture && strcmp(capture, "1") == 0;
    /* The runs in order: 1 and 2 checked_run; with GUIDE_CAPTURE=1, 3 the ordered run where
     * the problem sets poison_on (host-orchestrated chapters), 4 the captured run where the
     * program is kernel-timed or its problem sets capture_region. */
    int kinds[4] = {1, 1, 0, 0}, runs = 2;
    if (on && p->poison_on)
        kinds[runs++] = 3;
    if (on && (p->timing == TIME_KERNEL || p->capture_region))
        kinds[runs++] = 4;
    for (int run = 1; run <= runs; run++) {
        int kind = kinds[run - 1];
        evidence_mute(run > 1);
        int ok = kind == 1 ? checked_run(p, v, data, s, rep, run == 1)
               : kind == 3 ? ordered_run(p, v, data, s, rep)
                           : captured_run(p, v, data, s, rep);
        evidence_mute(0);
        if (!ok) {
            if (run == 2)
                printf("check: the second run on the same buffers failed (the first passed): "
                       "state left by the first run?\n");
            if (kind == 3)
                printf("check: the run with the program's stream held before it failed (the "
                       "direct runs passed): work outside the stream's order?\n");
            if (kind == 4)
                printf("check: the run captured from the program's stream failed (the direct "
                       "runs passed): work outside the stream's order?\n");
            break;
        }
    }
    check_print(rep, stdout);
    return rep->passed;
}

/* What one program measured, beyond its check. */
struct measurement {
    struct timing_result tr;
    double rate, roof;        /* negative where they do not apply */
    const char *roof_name, *unit;
    double sm_clock_mhz;
};

/* The roofs of issue 20 (roofs.h): the rate counts bytes() or flops(), as the
 * metric's comment in chapter.h says, and only this metric's roof is measured. */
static void new_roof(const struct problem *p, enum metric k, void *data,
                     const struct gpu_info *g, double sec, struct measurement *m)
{
    int launches = k == METRIC_LAUNCH_STREAM || k == METRIC_LAUNCH_GRAPH;
    int bytes = k == METRIC_READ_GBS || k == METRIC_LINK_H2D || k == METRIC_LINK_D2H ||
                k == METRIC_LINK_DUPLEX;
    m->rate = (bytes ? p->bytes(data) : p->flops(data)) / sec / (launches ? 1e3 : 1e9);
    switch (k) {
    case METRIC_READ_GBS: m->roof = gpu_read_roof_gbs(g); m->roof_name = "read"; break;
    case METRIC_L2_GATHER: m->roof = gpu_l2_gather_roof(g); m->roof_name = "l2-gather"; break;
    case METRIC_L1_GATHER: m->roof = gpu_l1_gather_roof(g); m->roof_name = "l1-gather"; break;
    case METRIC_SHARED_LOOKUPS:
        m->roof = shared_lookup_roof(g, m->sm_clock_mhz);
        m->roof_name = "shared";
        break;
    case METRIC_ISSUE: m->roof = issue_roof(g, m->sm_clock_mhz); m->roof_name = "issue"; break;
    case METRIC_LINK_H2D:
        m->roof = gpu_link_roof_gbs(g, LINK_H2D);
        m->roof_name = "link-h2d";
        break;
    case METRIC_LINK_D2H:
        m->roof = gpu_link_roof_gbs(g, LINK_D2H);
        m->roof_name = "link-d2h";
        break;
    case METRIC_LINK_DUPLEX:
        m->roof = gpu_link_roof_gbs(g, LINK_DUPLEX);
        m->roof_name = "link-duplex";
        break;
    case METRIC_LAUNCH_STREAM:
        m->roof = gpu_launch_roof_klps(0);
        m->roof_name = "launch-stream";
        break;
    case METRIC_LAUNCH_GRAPH:
        m->roof = gpu_launch_roof_klps(1);
        m->roof_name = "launch-graph";
        break;
    default: m->rate = -1; break; /* not one of these: no rate, no roof */
    }
}

/* Time the variant, then derive the rate and the roof it is compared with. */
static void measure(const struct problem *p, const struct variant *v, void *data,
                    cudaStream_t s, const struct gpu_info *g, const struct options *o,
                    struct measurement *m)
{
    struct l2_flusher fl;
    l2_flusher_init(&fl, g->l2_bytes);
    /* The larger of the chapter's floor and the user's --samples. */
    int samples = p->min_samples > o->min_samples ? p->min_samples : o->min_samples;
    struct timing_opts to = {samples, 0.5, o->warm_l2};
    nvtxRangePushA(v->name);
    time_variant(p->timing, v, data, s, &fl, &to, &m->tr);
    nvtxRangePop();
    l2_flusher_free(&fl);
    m->sm_clock_mhz = gpu_measure_sm_clock_mhz();
    double sec = m->tr.us.median * 1e-6;
    /* The configuration's metric where a knob picks the roof (chapter 13's direction). */
    enum metric k = p->metric_of ? p->metric_of(data) : p->metric;
    m->rate = m->roof = -1;
    m->roof_name = "";
    m->unit = k == METRIC_TIME ? "" : metric_unit(k);
    if (k == METRIC_GFLOPS) {
        m->rate = p->flops(data) / sec / 1e9;
        m->roof = g->fp32_peak_gflops;
        m->roof_name = "fp32";
    } else if (k == METRIC_SFU) {
        m->rate = p->flops(data) / sec / 1e9;
        m->roof = g->sfu_peak_gops;
        m->roof_name = "sfu";
    } else if (k == METRIC_FP64 || k == METRIC_FP16 ||
               k == METRIC_CONVERT || k == METRIC_INT32) {
        m->rate = p->flops(data) / sec / 1e9;
        m->roof = k == METRIC_FP64 ? g->fp64_peak_gflops
                : k == METRIC_FP16 ? g->fp16_peak_gflops
                : k == METRIC_CONVERT ? g->convert_peak_gops : g->int32_peak_gops;
        m->roof_name = k == METRIC_FP64 ? "fp64" : k == METRIC_FP16 ? "fp16"
                     : k == METRIC_CONVERT ? "convert" : "int32";
    } else if (k == METRIC_LOOKUPS) {
        m->rate = p->flops(data) / sec / 1e9;
        m->roof = gpu_random_sector_roof(g);
        m->roof_name = "dram-sector";
    } else if (k == METRIC_GBS || k == METRIC_HOST_GBS) {
        m->rate = p->bytes(data) / sec / 1e9;
        if (k == METRIC_GBS) {
            m->roof = gpu_copy_roof_gbs(g);
            m->roof_name = "copy";
        }
    } else if (k != METRIC_TIME) {
        new_roof(p, k, data, g, sec, m);
    }
    if (v->other_work) { /* the work counted is not this program's: no rate, no roof */
        m->rate = m->roof = -1;
        m->roof_name = "";
    }
}

/* The host's copy rates (common/host.h), measured once per process, after the first timed
 * configuration, where the host sets the time: one core's, then every core's. */
static const double *host_figures(const struct problem *p)
{
    static double gbs[2] = {-1, -1};
    static int measured;
    if (p->timing == TIME_REGION && !measured) {
        gbs[0] = host_copy_gbs(HOST_COPY_BYTES, 0);
        gbs[1] = host_copy_gbs(HOST_COPY_BYTES, 1);
        if (gbs[0] < 0 || gbs[1] < 0) /* no memory for the buffers: neither is recorded */
            gbs[0] = gbs[1] = -1;
        measured = 1;
    }
    return gbs;
}

static void print_measurement(const struct problem *p, const struct measurement *m,
                              const struct gpu_info *g)
{
    const struct stats *us = &m->tr.us;
    printf("time: median %.2f us (min %.2f, q1 %.2f, q3 %.2f), noise %.2f%%, %d samples\n",
           us->median, us->min, us->q1, us->q3, 100 * us->noise, us->n);
    printf("time: %s\n", m->tr.method);
    if (us->noise > 0.05)
        printf("warning: noise above 5%%; another process may be using this GPU\n");
    if (m->rate >= 0 && m->roof > 0)
        printf("rate: %.1f %s = %.1f%% of the %s roof (%.1f %s)\n", m->rate, m->unit,
               100 * m->rate / m->roof, m->roof_name, m->roof, m->unit);
    else if (m->rate >= 0)
        printf("rate: %.1f %s\n", m->rate, m->unit);
    printf("gpu: %s, cc %d.%d, %d SMs, SM clock %.0f MHz measured (rated %.0f), "
           "driver %s, runtime %s\n",
           g->name, g->cc_major, g->cc_minor, g->sms, m->sm_clock_mhz, g->max_clock_khz / 1e3,
           g->driver, g->runtime);
    char host[320];
    host_describe(host, sizeof host);
    const double *gbs = host_figures(p);
    if (gbs[0] > 0)
        printf("host: %s; memcpy %.2f GB/s on one core, %.2f GB/s on every core (this host sets "
               "the time)\n", host, gbs[0], gbs[1]);
    else
        printf("host: %s\n", host);
}

/* One results row; m is NULL when nothing was timed (check only, or failed). */
static int append_row(const char *path, const struct problem *p, const struct variant *v,
                      const struct gpu_info *g, const struct config *cfg, const char *knobs,
                      const struct check_report *rep, const struct measurement *m,
                      const char *method, const char *source_hash)
{
    char date[32];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const char *commit = getenv("RESULTS_COMMIT");
    const struct stats *us = m ? &m->tr.us : NULL;
    struct result_row row;
    memset(&row, 0, sizeof row);
    row.chapter = p->number;
    row.slug = p->slug;
    row.variant = v->name;
    row.gpu = g->name;
    row.cc_major = g->cc_major;
    row.cc_minor = g->cc_minor;
    row.sms = g->sms;
    row.sm_clock_mhz = m ? m->sm_clock_mhz : -1;
    row.driver = g->driver;
    row.cuda = g->runtime;
    row.size = cfg->size;
    row.knobs = knobs;
    row.seed = cfg->seed;
    row.method = method;
    row.samples = us ? us->n : 0;
    row.median_us = us ? us->median : -1;
    row.min_us = us ? us->min : -1;
    row.q1_us = us ? us->q1 : -1;
    row.q3_us = us ? us->q3 : -1;
    row.noise_pct = us ? 100 * us->noise : -1;
    row.rate = m ? m->rate : -1; /* -1 for METRIC_TIME */
    row.rate_unit = m && m->rate >= 0 ? m->unit : "";
    row.roof_name = m ? m->roof_name : "";
    row.roof = m ? m->roof : -1;
    row.pct_roof = m && m->roof > 0 && m->rate > 0 ? 100 * m->rate / m->roof : -1;
    row.check_passed = rep->passed;
    row.max_err = rep->mode == CHECK_EXACT ? (double)rep->bad : rep->max_abs;
    row.source_hash = source_hash;
    row.commit = commit && *commit ? commit : "unknown";
    row.date = date;
    /* The host, on every row; its copy rates where the host sets the time (the chapters timed
     * end to end on the host clock), measured now, in the same run as the row. */
    char host[320];
    host_describe(host, sizeof host);
    row.host = host;
    const double *gbs = host_figures(p);
    row.host_copy_gbs = m ? gbs[0] : -1;
    row.host_copy_all_gbs = m ? gbs[1] : -1;
    return results_append(path, &row);
}

/* Whether a results row can be appended to path: the file is writable, or it does not exist
 * and its folder is. Checked before the GPU opens, so a typo does not cost the run. */
static int appendable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return 0;
        }
        return access(path, W_OK) == 0;
    }
    if (errno != ENOENT)
        return 0;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return 0;
    }
    return access(dir, W_OK | X_OK) == 0;
}

/* One configuration on an opened GPU: its inputs, the check and, unless --check-only, the
 * timing and the row. Returns the program's exit status. */
static int run_config(const struct problem *p, const struct variant *v, const char *program,
                      const struct options *o, const struct gpu_info *g, const char *source_hash)
{
    struct config cfg;
    cfg.size = o->size;
    cfg.seed = o->seed;
    cfg.check_rule = v->check_rule;
    memcpy(cfg.knob, o->knob, sizeof cfg.knob);
    if (cfg.size == SIZE_PASSES)
        cfg.size = passes_size(p, &cfg);
    char knobs[128];
    knob_text(p, &cfg, knobs, sizeof knobs);

    if (!fits(p, &cfg, g, !o->check_only))
        return EXIT_TOO_LARGE;

    printf("%s: size %ld%s%s, seed %llu, on %s\n", program, cfg.size, *knobs ? ", " : "", knobs,
           cfg.seed, g->name);
    double t_start = host_now_s();
    void *data = p->create(&cfg);
    if (v->prepare)
        v->prepare(data);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    double t_created = host_now_s();
    struct check_report rep;
    int passed = verify(p, v, data, s, &rep);
    double t_checked = host_now_s();
    /* A program that fails its check is not timed: it prints no speedup. */
    int timed = passed && !o->check_only;
    struct measurement m;
    if (timed) {
        measure(p, v, data, s, g, o, &m);
        print_measurement(p, &m, g);
    }
    /* Where a run's wall time goes (make results' runtime figures read this line). */
    printf("phases: inputs %.2f s, check %.2f s, timing %.2f s\n", t_created - t_start,
           t_checked - t_created, host_now_s() - t_checked);
    if (o->append) {
        const char *method = timed ? m.tr.method : o->check_only ? "check only"
                                                                 : "not timed: check failed";
        if (append_row(o->append, p, v, g, &cfg, knobs, &rep, timed ? &m : NULL, method,
                       source_hash) != 0) {
            fprintf(stderr, "error: could not append the result to '%s'\n", o->append);
            return EXIT_USAGE;
        }
    }

    if (v->release)
        v->release(data);
    p->destroy(data);
    CUDA_CHECK(cudaStreamDestroy(s));
    return passed ? EXIT_OK : EXIT_CHECK_FAILED;
}

/* A batch: one set of options per line, each run in this one process. A CUDA context costs
 * a process most of its time at the test sizes, and 16 processes starting contexts at once
 * wait on each other in the driver.
 *   --check-batch (the test suite): lines from standard input, each only checked; --append
 *     is refused there.
 *   --batch FILE (make results, make evidence): each line runs as it would alone, timed
 *     unless it says --check-only, its row appended where it says --append. Each runs inside
 *     an NVTX start/end range "batch N" (N counts the sets from 1), so that Nsight Compute's
 *     report tells which set a kernel belongs to.
 * Every set is read and parsed before the GPU is touched: the GPU opens only if some set is
 * valid. After each set's own output comes one line "batch: exit N: OPTIONS"; a set the parser
 * refuses is exit 2 (its error, then its line) and the others run. Where the GPU cannot open,
 * the refused sets are still reported, then the program exits with the GPU's status (3: no
 * GPU). Exits 0 if every set passed, else the worst status. */
struct batch_set {
    char line[1024];
    char words[1024]; /* line cut into words; o's strings point into it */
    struct options o;
    char err[256];    /* empty: valid */
};

/* Parse one set; its err says why it is refused, empty if it is valid. */
static void batch_parse(struct batch_set *b, const char *program, const struct cli_spec *spec,
                        int check_only)
{
    char *args[64];
    int n = 0;
    snprintf(b->words, sizeof b->words, "%s", b->line);
    args[n++] = (char *)program;
    for (char *t = strtok(b->words, " \t"); t && n < 63; t = strtok(NULL, " \t"))
        args[n++] = t;
    args[n] = NULL;
    b->err[0] = '\0';
    enum cli_status st = cli_parse(n, args, spec, &b->o, b->err, sizeof b->err);
    if (st == CLI_OK && (b->o.check_batch || b->o.batch))
        snprintf(b->err, sizeof b->err, "a batch cannot stand in a batch");
    else if (st == CLI_OK && b->o.append && check_only)
        snprintf(b->err, sizeof b->err, "--append and --check-batch cannot stand in a batch");
    else if (st == CLI_OK && b->o.append && !appendable(b->o.append))
        snprintf(b->err, sizeof b->err, "--append '%s': %s", b->o.append, strerror(errno));
    else if (st == CLI_OK)
        b->err[0] = '\0';
    else if (st != CLI_ERROR)
        snprintf(b->err, sizeof b->err, "--help and --describe cannot stand in a batch");
    if (st == CLI_OK && !b->err[0] && check_only)
        b->o.check_only = 1;
}

/* A refused set's two lines: its error, then its verdict. */
static void batch_refuse(const struct batch_set *b, const char *program)
{
    printf("%s: error: %s\n", program, b->err);
    printf("batch: exit %d: %s\n", EXIT_USAGE, b->line);
    fflush(stdout);
}

static int run_batch(const struct problem *p, const struct variant *v, const char *program,
                     const struct cli_spec *spec, const char *source_hash, const char *file)
{
    int check_only = file == NULL;
    FILE *in = stdin;
    if (file && strcmp(file, "-") != 0 && !(in = fopen(file, "r"))) {
        fprintf(stderr, "%s: error: --batch '%s': %s\n", program, file, strerror(errno));
        return EXIT_USAGE;
    }
    /* Every set, read and parsed before the GPU is touched. */
    struct batch_set *sets = NULL;
    int nsets = 0, cap = 0, valid = 0;
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[strspn(line, " \t")] == '\0')
            continue;
        if (nsets == cap) {
            cap = cap ? 2 * cap : 64;
            struct batch_set *more = (struct batch_set *)realloc(sets, cap * sizeof *sets);
            if (!more) {
                fprintf(stderr, "%s: error: out of host memory reading the batch\n", program);
                free(sets);
                if (in != stdin)
                    fclose(in);
                return EXIT_TOO_LARGE;
            }
            sets = more;
        }
        struct batch_set *b = &sets[nsets++];
        snprintf(b->line, sizeof b->line, "%s", line);
        batch_parse(b, program, spec, check_only);
        valid += !b->err[0];
    }
    if (in != stdin)
        fclose(in);
    if (!nsets) {
        fprintf(stderr, "%s: error: %s read no options from %s\n", program,
                check_only ? "--check-batch" : "--batch", in == stdin ? "standard input" : file);
        return EXIT_USAGE;
    }

    int worst = EXIT_OK, rc;
    struct gpu_info g;
    memset(&g, 0, sizeof g);
    if (valid) {
        rc = gpu_open(&g, program);
        if (rc) {
            /* No set can run; the refused ones are still reported. */
            for (int i = 0; i < nsets; i++)
                if (sets[i].err[0])
                    batch_refuse(&sets[i], program);
            free(sets);
            return rc;
        }
    }
    for (int i = 0; i < nsets; i++) {
        struct batch_set *b = &sets[i];
        if (b->err[0]) {
            batch_refuse(b, program);
            rc = EXIT_USAGE;
        } else {
            char label[32];
            snprintf(label, sizeof label, "batch %d", i + 1);
            nvtxRangeId_t range = nvtxRangeStartA(label);
            rc = run_config(p, v, program, &b->o, &g, source_hash);
            nvtxRangeEnd(range);
            printf("batch: exit %d: %s\n", rc, b->line);
            fflush(stdout);
        }
        if (rc > worst)
            worst = rc;
    }
    free(sets);
    return worst;
}

int run_variant_hashed(int argc, char **argv, const struct problem *p, const struct variant *v,
                       const char *source_hash)
{
    char program[128], err[256];
    struct cli_spec spec;
    struct options o;
    spec_of(p, v->name, program, sizeof program, &spec);
    switch (cli_parse(argc, argv, &spec, &o, err, sizeof err)) {
    case CLI_HELP: cli_usage(&spec, stdout); return EXIT_OK;
    case CLI_DESCRIBE: describe(p, v); return EXIT_OK;
    case CLI_ERROR:
        fprintf(stderr, "%s: error: %s\n", program, err);
        fprintf(stderr, "run '%s --help' for the options\n", argv[0]);
        return EXIT_USAGE;
    case CLI_OK: break;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (o.check_batch || o.batch)
        return run_batch(p, v, program, &spec, source_hash, o.batch);

    if (o.append && !appendable(o.append)) {
        fprintf(stderr, "%s: error: --append '%s': %s\n", program, o.append, strerror(errno));
        return EXIT_USAGE;
    }

    struct gpu_info g;
    int rc = gpu_open(&g, program);
    if (rc)
        return rc;
    return run_config(p, v, program, &o, &g, source_hash);
}
