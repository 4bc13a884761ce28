/* Chapter 13, the problem: move --size bytes between a host staging buffer and
 * device memory with one cudaMemcpy. The data is seeded random bytes; the check
 * is bit-exact against the input. The programs differ only in how they
 * allocate the staging buffer. */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_DIRECTION };

static size_t device_bytes(const struct config *c) { return (size_t)c->size; }

/* The input, the staging buffer and the downloaded copy for the check. */
static size_t host_bytes(const struct config *c) { return 3 * (size_t)c->size; }

/* First line of a small text file (sysfs, procfs), or "?" if unreadable. */
static void read_first_line(const char *path, char *out, size_t len)
{
    snprintf(out, len, "?");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = '\0';
    else
        snprintf(out, len, "?");
    fclose(f);
}

/* A transfer's speed depends on the host as much as on the GPU: print the
 * CPU, the NUMA node the GPU hangs off, and the PCIe link it trained to (read
 * after a transfer, since an idle link may drop to a slower generation). */
static void print_host(void)
{
    char cpu[160] = "?", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon) {
                snprintf(cpu, sizeof cpu, "%s", colon + 2);
                cpu[strcspn(cpu, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    int dev;
    char bus[32], sys[96], path[160], numa[32], speed[64], width[16], max_speed[64], max_width[16];
    unsigned dom = 0, b = 0, d = 0, fn = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
    sscanf(bus, "%x:%x:%x.%x", &dom, &b, &d, &fn);
    snprintf(sys, sizeof sys, "/sys/bus/pci/devices/%04x:%02x:%02x.%x", dom, b, d, fn);
    snprintf(path, sizeof path, "%s/numa_node", sys);
    read_first_line(path, numa, sizeof numa);
    snprintf(path, sizeof path, "%s/current_link_speed", sys);
    read_first_line(path, speed, sizeof speed);
    snprintf(path, sizeof path, "%s/current_link_width", sys);
    read_first_line(path, width, sizeof width);
    snprintf(path, sizeof path, "%s/max_link_speed", sys);
    read_first_line(path, max_speed, sizeof max_speed);
    snprintf(path, sizeof path, "%s/max_link_width", sys);
    read_first_line(path, max_width, sizeof max_width);
    printf("host: CPU %s; GPU at PCI %s on NUMA node %s; link %s x%s (GPU max %s x%s)\n", cpu,
           bus, numa, speed, width, max_speed, max_width);
}

/* The host's own copy rate, which caps a pageable transfer (the driver's
 * CPU thread copies every byte into its staging buffer): one core's memcpy,
 * best of three, of up to 1 GiB of the input into a buffer whose pages are
 * already touched, and of the same bytes through a small buffer that is
 * reused chunk after chunk, as the driver reuses its staging buffer. */
static const size_t COPY_CAP = (size_t)1 << 30, CHUNK = (size_t)2 << 20;
enum { COPY_TRIES = 3 };

static void measure_host_copy(const struct transfer *t)
{
    size_t bytes = t->bytes < COPY_CAP ? t->bytes : COPY_CAP;
    unsigned char *whole = (unsigned char *)host_alloc(bytes);
    unsigned char *chunk = (unsigned char *)host_alloc(CHUNK);
    memset(whole, 0, bytes);
    memset(chunk, 0, CHUNK);
    double best_whole = 1e30, best_chunked = 1e30;
    for (int k = 0; k < COPY_TRIES; k++) {
        double t0 = host_seconds();
        memcpy(whole, t->input, bytes);
        double t1 = host_seconds();
        for (size_t off = 0; off < bytes; off += CHUNK)
            memcpy(chunk, t->input + off, bytes - off < CHUNK ? bytes - off : CHUNK);
        double t2 = host_seconds();
        best_whole = t1 - t0 < best_whole ? t1 - t0 : best_whole;
        best_chunked = t2 - t1 < best_chunked ? t2 - t1 : best_chunked;
    }
    /* Read the buffers, so the copies cannot be optimized away. */
    volatile unsigned char sink = whole[bytes - 1] ^ chunk[0];
    (void)sink;
    printf("host copy: one core's memcpy of %zu bytes: %.1f GB/s into a touched buffer, "
           "%.1f GB/s through a reused %zu MiB buffer\n",
           bytes, bytes / best_whole / 1e9, bytes / best_chunked / 1e9, CHUNK >> 20);
    evidence_print("host_memcpy_gbs", bytes / best_whole / 1e9, "GB/s");
    evidence_print("host_chunked_memcpy_gbs", bytes / best_chunked / 1e9, "GB/s");
    free(whole);
    free(chunk);
}

static void *create(const struct config *c)
{
    struct transfer *t = (struct transfer *)calloc(1, sizeof *t);
    t->bytes = (size_t)c->size;
    t->to_host = (int)c->knob[KNOB_DIRECTION];
    t->input = (unsigned char *)host_alloc(t->bytes);
    /* Random bytes from the seed, eight at a time, then the odd tail. */
    uint64_t state = c->seed * 0x9E3779B97F4A7C15ULL + 13;
    size_t i = 0;
    for (; i + 8 <= t->bytes; i += 8) {
        uint64_t r = rng_next(&state);
        memcpy(t->input + i, &r, 8);
    }
    uint64_t r = rng_next(&state);
    memcpy(t->input + i, &r, t->bytes - i);
    t->device = (unsigned char *)device_alloc(t->bytes);
    /* Device to host needs the data on the device first; host to device gets
     * the upload anyway, so that the link has trained before print_host. */
    CUDA_CHECK(cudaMemcpy(t->device, t->input, t->bytes, cudaMemcpyHostToDevice));
    print_host();
    measure_host_copy(t);
    return t;
}

void staging_fill(struct transfer *t, const char *kind, double t0)
{
    memcpy(t->staging, t->input, t->bytes);
    double ms = (host_seconds() - t0) * 1e3;
    printf("staging: %zu bytes of %s memory allocated and filled in %.1f ms (not timed)\n",
           t->bytes, kind, ms);
}

/* Whichever buffer the transfer writes gets 0xFF bytes. */
static void poison(void *data)
{
    struct transfer *t = (struct transfer *)data;
    if (t->to_host)
        memset(t->staging, 0xFF, t->bytes);
    else
        poison_device(t->device, t->bytes);
}

/* Compare in the widest words that divide the size: an odd size falls back to
 * single bytes, a large power of two goes eight bytes at a time. */
static int check(void *data, struct check_report *r)
{
    struct transfer *t = (struct transfer *)data;
    size_t word = t->bytes % 8 == 0 ? 8 : t->bytes % 4 == 0 ? 4 : t->bytes % 2 == 0 ? 2 : 1;
    if (t->to_host) {
        check_bytes(t->staging, t->input, t->bytes / word, word, r);
    } else {
        unsigned char *got = (unsigned char *)host_alloc(t->bytes);
        CUDA_CHECK(cudaMemcpy(got, t->device, t->bytes, cudaMemcpyDeviceToHost));
        check_bytes(got, t->input, t->bytes / word, word, r);
        free(got);
    }
    return r->passed;
}

/* Every byte crosses the link once. */
static double bytes(const void *data) { return (double)((const struct transfer *)data)->bytes; }

/* Each direction against the pinned link's rate that way (roofs.h): the
 * optimized copy is one DMA, which that roof bounds. */
static enum metric metric_of(const void *data)
{
    return ((const struct transfer *)data)->to_host ? METRIC_LINK_D2H : METRIC_LINK_H2D;
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct transfer *t = (struct transfer *)data;
    CUDA_CHECK(cudaFree(t->device));
    free(t->input);
    free(t);
}

const struct problem PROBLEM = {
    .number = 13,
    .slug = "pinned-memory",
    .title = "Pinned memory: host-device copies from page-locked buffers",
    .section = "5.3.1",
    .size_help = "bytes moved by one cudaMemcpy (1G: one GiB)",
    .default_size = 1L << 30,
    .small_size = 1000003,
    .odd_size = (64L << 20) + 3,
    .min_size = 1,
    .max_size = 8L << 30,
    .knobs = {{"direction", "0: host to device, 1: device to host", 0, 0, 1}},
    .nknobs = 1,
    .test_options = {"--direction 1"},
    .timing = TIME_REGION,
    .metric = METRIC_LINK_H2D, /* METRIC_LINK_D2H with --direction 1: metric_of() */
    .metric_of = metric_of,
    /* A copy is not a kernel, so Nsight Compute has nothing to say; the
     * evidence is the Nsight Systems trace (see the README). */
    .ncu_metrics = "",
    /* The other direction, against the link's rate that way. */
    .sweeps = {"--direction 1"},
    /* A pageable copy's time depends on a CPU thread and the host's memory,
     * which other work on the host disturbs: 100 samples give quartiles, and
     * a noise figure, that one unlucky sample cannot move. */
    .min_samples = 100,
    /* And the default configuration five times, one process each, the programs taking turns,
     * each program's round of median time kept (as chapter 36 does): a process whose pageable
     * copies a disturbed host slowed, and spread (issue 34 saw 16% on one host), is then not
     * the one recorded. */
    .rounds = 5,
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
