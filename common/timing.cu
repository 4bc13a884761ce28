#include "timing.h"
#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MAX_SAMPLES = 1000, WARMUP_MIN_RUNS = 3 };

double host_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run until module loading, first-touch allocation and clock ramp-up are
 * behind us: at least 3 runs and 50 ms. */
static void warm_up(const struct variant *v, void *data, cudaStream_t s)
{
    double t0 = host_now_s();
    for (int i = 0; i < 200; i++) {
        v->run(data, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        if (i + 1 >= WARMUP_MIN_RUNS && host_now_s() - t0 > 0.05)
            break;
    }
}

static int enough(int n, double total_s, const struct timing_opts *o)
{
    int cap = o->min_samples > MAX_SAMPLES ? o->min_samples : MAX_SAMPLES;
    return n >= cap || (n >= o->min_samples && total_s >= o->min_total_s);
}

/* One sample of `batch` runs between two events. With a graph, the batch is
 * one launch, so the gaps between runs are those of the GPU, not the CPU. */
static double event_sample(const struct variant *v, void *data, cudaStream_t s,
                           const struct l2_flusher *fl, int warm, cudaGraphExec_t graph,
                           int batch, cudaEvent_t a, cudaEvent_t b)
{
    if (!warm)
        l2_flush(fl, s);
    CUDA_CHECK(cudaEventRecord(a, s));
    if (graph)
        CUDA_CHECK(cudaGraphLaunch(graph, s));
    else
        for (int i = 0; i < batch; i++)
            v->run(data, s);
    CUDA_CHECK(cudaEventRecord(b, s));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e3 / batch;
}

/* Capture `batch` runs into a graph; NULL if the work cannot be captured. */
static cudaGraphExec_t capture(const struct variant *v, void *data, cudaStream_t s, int batch)
{
    cudaGraph_t g;
    cudaGraphExec_t exec = NULL;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess)
        return NULL;
    for (int i = 0; i < batch; i++)
        v->run(data, s);
    if (cudaStreamEndCapture(s, &g) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        exec = NULL;
    }
    CUDA_CHECK(cudaGraphDestroy(g));
    return exec;
}

static void time_kernel(const struct variant *v, void *data, cudaStream_t s,
                        const struct l2_flusher *fl, const struct timing_opts *o, double *us,
                        int *n, struct timing_result *r)
{
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    const char *l2 = o->warm_l2 ? "warm L2" : "L2 flushed before each sample";

    /* Probe: is one run long enough to time alone? */
    double probe = 1e30;
    for (int i = 0; i < 3; i++) {
        double t = event_sample(v, data, s, fl, o->warm_l2, NULL, 1, a, b);
        if (t < probe)
            probe = t;
    }
    int batch = 1;
    cudaGraphExec_t graph = NULL;
    if (probe < SHORT_WORK_US) {
        batch = (int)(200.0 / (probe > 0.5 ? probe : 0.5)) + 1;
        graph = capture(v, data, s, batch);
        snprintf(r->method, sizeof r->method, "%s of %d runs per sample, %s before each batch",
                 graph ? "CUDA graph" : "stream batch", batch, o->warm_l2 ? "warm L2" : "L2 flushed");
        if (graph) /* the graph's first launch uploads it */
            event_sample(v, data, s, fl, 1, graph, batch, a, b);
    } else {
        snprintf(r->method, sizeof r->method, "CUDA events, %s", l2);
    }
    r->batch = batch;

    double total = 0;
    *n = 0;
    while (!enough(*n, total, o)) {
        us[*n] = event_sample(v, data, s, fl, o->warm_l2, graph, batch, a, b);
        total += us[*n] * batch * 1e-6;
        ++*n;
    }
    if (graph)
        CUDA_CHECK(cudaGraphExecDestroy(graph));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
}

static void time_region(const struct variant *v, void *data, cudaStream_t s,
                        const struct l2_flusher *fl, const struct timing_opts *o, double *us,
                        int *n, struct timing_result *r)
{
    snprintf(r->method, sizeof r->method, "host wall clock, end to end, %s",
             o->warm_l2 ? "warm L2" : "L2 flushed before each sample");
    r->batch = 1;
    double total = 0;
    *n = 0;
    while (!enough(*n, total, o)) {
        if (!o->warm_l2)
            l2_flush(fl, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = host_now_s();
        v->run(data, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        double t = host_now_s() - t0;
        us[*n] = t * 1e6;
        total += t;
        ++*n;
    }
}

void time_variant(enum timing mode, const struct variant *v, void *data, cudaStream_t s,
                  const struct l2_flusher *fl, const struct timing_opts *o,
                  struct timing_result *r)
{
    int cap = o->min_samples > MAX_SAMPLES ? o->min_samples : MAX_SAMPLES;
    double *us = (double *)host_alloc((size_t)cap * sizeof *us);
    int n = 0;
    warm_up(v, data, s);
    if (mode == TIME_KERNEL)
        time_kernel(v, data, s, fl, o, us, &n, r);
    else
        time_region(v, data, s, fl, o, us, &n, r);
    stats_compute(us, n, &r->us);
    free(us);
}
