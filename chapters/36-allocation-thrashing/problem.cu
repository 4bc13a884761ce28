/* Chapter 36, the problem: a loop of --iters iterations, each of which needs a
 * scratch buffer of --size elements for two kernels: the first writes
 * scratch = x * (k + 1), the second reads it, in order and reversed, into
 * y += scratch[i] + scratch[n - 1 - i]. The arithmetic is unsigned 32-bit, so
 * the result has a closed form and the check is exact and cheap:
 *   y[i] = (x[i] + x[n - 1 - i]) * iters * (iters + 1) / 2   (mod 2^32). */
#include "problem.h"
#include "evidence.h"
#include "rng.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>

enum { KNOB_ITERS, KNOB_STRATEGY };

static const int THREADS = 256;

static size_t buffer_bytes(long n) { return (size_t)n * sizeof(unsigned); }

/* x, y, and the scratch buffer the loop allocates. */
static size_t device_bytes(const struct config *c) { return 3 * buffer_bytes(c->size); }

/* x, the downloaded y and the reference. */
static size_t host_bytes(const struct config *c) { return 3 * buffer_bytes(c->size); }

static double mib(size_t bytes) { return bytes / 1048576.0; }

__global__ void produce_kernel(unsigned *scratch, const unsigned *x, long n, unsigned factor)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        scratch[i] = x[i] * factor;
}

__global__ void consume_kernel(unsigned *y, const unsigned *scratch, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += scratch[i] + scratch[n - 1 - i];
}

/* The call time of the run that just ended, if any, into run_calls_s. */
static void close_run(struct scratch_loop *w)
{
    double now = w->alloc_s + w->free_s;
    if (w->runs > 0 && w->runs <= MAX_RUNS)
        w->run_calls_s[w->runs - 1] = now - w->calls_s_at_start;
    w->calls_s_at_start = now;
}

void start_loop(struct scratch_loop *w, cudaStream_t s)
{
    close_run(w);
    w->runs++;
    w->stream = s;
    CUDA_CHECK(cudaMemsetAsync(w->y, 0, buffer_bytes(w->n), s));
}

// [iteration]
void iteration(struct scratch_loop *w, unsigned *scratch, int k, cudaStream_t s)
{
    /* The wrappers count every call: as many frees as allocations means the scratch is
     * freed. A loop that allocates without them (an exercise's) counts no call, and nothing here. */
    if (w->alloc_calls > 0 && w->alloc_calls <= w->free_calls)
        w->stale_iterations++;
    unsigned blocks = (unsigned)((w->n + THREADS - 1) / THREADS);
    produce_kernel<<<blocks, THREADS, 0, s>>>(scratch, w->x, w->n, (unsigned)k + 1);
    CHECK_LAUNCH();
    consume_kernel<<<blocks, THREADS, 0, s>>>(w->y, scratch, w->n);
    CHECK_LAUNCH();
}
// [iteration]

/* What one cudaMalloc and one cudaFree of the scratch size cost the host on an
 * idle device, where cudaFree has nothing to wait for: the price of the calls
 * alone. Taken before the timed runs (create) and again after them
 * (report_loop), PRICE_TRIES pairs each time, so that a host that drifts
 * during the runs shows as two different prices; the evidence is the median
 * of all the pairs. */
static const int PRICE_TRIES = 20;
static double price_malloc_s[2 * 20], price_free_s[2 * 20];
static int price_n;

static void measure_call_price(const struct scratch_loop *w, const char *when)
{
    struct stats m, f;
    int first = price_n;
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int t = 0; t < PRICE_TRIES && price_n < 2 * PRICE_TRIES; t++, price_n++) {
        void *p;
        double t0 = host_clock();
        CUDA_CHECK(cudaMalloc(&p, buffer_bytes(w->n)));
        double t1 = host_clock();
        CUDA_CHECK(cudaFree(p));
        double t2 = host_clock();
        price_malloc_s[price_n] = t1 - t0;
        price_free_s[price_n] = t2 - t1;
    }
    stats_compute(price_malloc_s + first, price_n - first, &m);
    stats_compute(price_free_s + first, price_n - first, &f);
    printf("price %s the runs: cudaMalloc %.1f us, cudaFree %.1f us of %.1f MiB on an idle "
           "device (median of %d)\n", when, m.median * 1e6, f.median * 1e6,
           mib(buffer_bytes(w->n)), price_n - first);
}

static void *create(const struct config *c)
{
    struct scratch_loop *w = (struct scratch_loop *)calloc(1, sizeof *w);
    w->n = c->size;
    w->iters = (int)c->knob[KNOB_ITERS];
    w->strategy = (int)c->knob[KNOB_STRATEGY];
    /* Device memory before this program takes any: the "before" of the
     * footprint that report_loop prints. */
    CUDA_CHECK(cudaMemGetInfo(&w->mem_free_before, &w->mem_total));
    w->h_x = (unsigned *)host_alloc(buffer_bytes(w->n));
    rng_fill_i32((int32_t *)w->h_x, (size_t)w->n, 1, 1 << 20, c->seed, 0);
    w->x = (unsigned *)device_alloc(buffer_bytes(w->n));
    w->y = (unsigned *)device_alloc(buffer_bytes(w->n));
    CUDA_CHECK(cudaMemcpy(w->x, w->h_x, buffer_bytes(w->n), cudaMemcpyHostToDevice));
    measure_call_price(w, "before");
    return w;
}

static void poison(void *data)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    poison_device(w->y, buffer_bytes(w->n));
}

/* The ordered run (common/driver.cu, ordered_run): y's first word, which the first
 * iteration's consume kernel writes. Kernels put on the legacy stream (which the program's
 * non-blocking stream does not wait for) write it while the stream is held, before
 * start_loop's zeroing of y, which then wipes the first iteration's sum there. */
static const unsigned *watch(void *data) { return ((struct scratch_loop *)data)->y; }

static void poison_on(void *data, cudaStream_t s)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    poison_async(w->y, buffer_bytes(w->n), s);
}

static int check(void *data, struct check_report *r)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    size_t n = (size_t)w->n;
    unsigned *got = (unsigned *)host_alloc(buffer_bytes(w->n));
    unsigned *ref = (unsigned *)host_alloc(buffer_bytes(w->n));
    CUDA_CHECK(cudaMemcpy(got, w->y, buffer_bytes(w->n), cudaMemcpyDeviceToHost));
    /* The sum of the factors 1 .. iters, wrapped as the GPU's products wrap. */
    unsigned factors = (unsigned)((unsigned long long)w->iters * (w->iters + 1) / 2);
    for (size_t i = 0; i < n; i++)
        ref[i] = (w->h_x[i] + w->h_x[n - 1 - i]) * factors;
    check_bytes(got, ref, n, sizeof *got, r);
    if (w->stale_iterations) {
        printf("check: %ld iterations queued their kernels after the scratch buffer's free\n",
               w->stale_iterations);
        r->passed = 0;
    }
    if (w->unordered_allocs) {
        printf("check: %ld cudaMallocAsync calls were queued on another stream than the loop's, "
               "ordered before none of the kernels that use the buffer\n", w->unordered_allocs);
        r->passed = 0;
    }
    if (w->unordered_frees) {
        printf("check: %ld cudaFreeAsync calls were queued on another stream than the loop's, "
               "ordered after none of the kernels that use the buffer\n", w->unordered_frees);
        r->passed = 0;
    }
    free(got);
    free(ref);
    return r->passed;
}

void report_loop(void *data)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    double iterations = (double)w->runs * w->iters;
    size_t mem_free_after, total;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&mem_free_after, &total));
    close_run(w);
    /* The cost model: host time inside the allocation and free calls per
     * iteration, median over the runs (the same runs whose median time the
     * results table reports), and its spread. */
    int kept = w->runs < MAX_RUNS ? (int)w->runs : MAX_RUNS;
    struct stats calls, m, f;
    for (int r = 0; r < kept; r++)
        w->run_calls_s[r] /= w->iters;
    stats_compute(w->run_calls_s, kept, &calls);
    measure_call_price(w, "after");
    stats_compute(price_malloc_s, price_n, &m);
    stats_compute(price_free_s, price_n, &f);
    printf("cost model: %.1f us per iteration inside allocation and free calls (median of %d "
           "runs, spread %.1f%%); idle-device price %.1f + %.1f us (median of %d pairs)\n",
           calls.median * 1e6, kept, 100 * calls.noise, m.median * 1e6, f.median * 1e6, price_n);
    evidence_print("calls_us_per_iter", calls.median * 1e6, "us");
    evidence_print("calls_noise_pct", 100 * calls.noise, "%");
    evidence_print("malloc_us", m.median * 1e6, "us");
    evidence_print("free_us", f.median * 1e6, "us");
    printf("loop: %ld runs of %d iterations: %.3f allocation calls per iteration, "
           "%.1f us per allocation call, %.1f us per free call (host time inside the call)\n",
           w->runs, w->iters, w->alloc_calls / iterations, w->alloc_s / w->alloc_calls * 1e6,
           w->free_s / w->free_calls * 1e6);
    printf("memory: %.0f MiB total, %.0f MiB free before this program's buffers, %.0f MiB "
           "free after its last run (it holds %.1f MiB)\n", mib(w->mem_total),
           mib(w->mem_free_before), mib(mem_free_after),
           mib(w->mem_free_before - mem_free_after));
    evidence_print("iterations", w->iters, "iterations");
    evidence_print("alloc_calls_per_iter", w->alloc_calls / iterations, "calls");
    evidence_print("loop_alloc_us", w->alloc_s / w->alloc_calls * 1e6, "us");
    evidence_print("loop_free_us", w->free_s / w->free_calls * 1e6, "us");
    evidence_print("mem_total_mib", mib(w->mem_total), "MiB");
    evidence_print("mem_free_before_mib", mib(w->mem_free_before), "MiB");
    evidence_print("mem_free_after_mib", mib(mem_free_after), "MiB");
}

/* Each iteration reads x and writes the scratch, then reads the scratch twice
 * and y once and writes y. */
static double bytes(const void *data)
{
    const struct scratch_loop *w = (const struct scratch_loop *)data;
    return 6.0 * buffer_bytes(w->n) * w->iters;
}

/* The launch roof's work (METRIC_LAUNCH_STREAM): the two kernel launches of
 * every iteration. The optimized loop is bound by them (its kernels take a
 * few microseconds, a launch about as long); the naive loop by its calls. */
static double flops(const void *data)
{
    return 2.0 * ((const struct scratch_loop *)data)->iters;
}

static void destroy(void *data)
{
    struct scratch_loop *w = (struct scratch_loop *)data;
    CUDA_CHECK(cudaFree(w->x));
    CUDA_CHECK(cudaFree(w->y));
    free(w->h_x);
    free(w);
}

const struct problem PROBLEM = {
    .number = 36,
    .slug = "allocation-thrashing",
    .title = "Allocation thrashing: cudaMalloc and cudaFree out of the loop",
    .section = "5.5",
    .size_help = "elements (4 bytes) of the scratch buffer each iteration needs, and of x and y",
    .default_size = 1L << 20,
    .small_size = 100003,
    .odd_size = 1000003,
    .min_size = 1,
    .max_size = 1L << 30,
    .knobs = {{"iters", "iterations of the loop, each needing the scratch buffer", 200, 1, 10000},
              {"strategy", "optimized only: 0 allocate once before the loop, 1 cudaMallocAsync "
               "from the stream-ordered pool every iteration", STRATEGY_REUSE, 0, 1}},
    .nknobs = 2,
    .test_options = {"--iters 1", "--iters 1000"},
    .timing = TIME_REGION,
    .metric = METRIC_LAUNCH_STREAM,
    /* The cost is in host API calls, which Nsight Compute does not see; the
     * evidence is the programs' own host figures (evidence: lines). */
    .ncu_metrics = "",
    .sweeps = {"--strategy 1"},
    /* Host API timings wander with the host: 30 samples for the quartiles. */
    .min_samples = 30,
    .rounds = 5,
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
    .watch = watch,
    .poison_on = poison_on,
};
