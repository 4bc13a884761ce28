/* Chapter 15, the problem: n particles lose a quarter of their energy, one
 * multiply per particle on one field of a many-field particle. Bit-exact check
 * of the energies against a CPU multiply, and of every other field of the
 * record array against its fill pattern; the work the step needs is one read and one write
 * of 4 bytes per particle, whatever the layout around them. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_STRIDE };

/* Untimed helpers: move the energies between the packed scratch array and
 * the program's layout (energy of particle i at d[i * step]). */
__global__ void scatter_energy(float *d, long step, const float *packed, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        d[i * step] = packed[i];
}

__global__ void gather_energy(float *packed, const float *d, long step, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        packed[i] = d[i * step];
}

/* The untimed helpers' grid: one thread per particle. */
static dim3 helper_grid(long n) { return dim3((unsigned)((n + BLOCK - 1) / BLOCK)); }

/* The bit pattern of every field but the energy (cudaMemset 0x3f): 0.747. */
#define FILL_BYTE 0x3f
#define FILL_WORD 0x3f3f3f3fu

/* Untimed, for the check: counts the floats of the whole allocation that are
 * not energies and no longer hold the fill pattern (a step that wrote a field
 * it should have left alone), and the lowest such index. */
__global__ void count_clobbered(const float *d, long total, long step, long n,
                                unsigned long long *bad, unsigned long long *lowest)
{
    for (long p = blockIdx.x * (long)blockDim.x + threadIdx.x; p < total;
         p += (long)gridDim.x * blockDim.x) {
        int energy = step == 1 ? p < n : p % step == 0 && p / step < n;
        if (!energy && __float_as_uint(d[p]) != FILL_WORD) {
            atomicAdd(bad, 1ULL);
            atomicMin(lowest, (unsigned long long)p);
        }
    }
}

static size_t floats_of(const struct config *c) { return (size_t)c->size * (size_t)c->knob[KNOB_STRIDE]; }

static size_t device_bytes(const struct config *c)
{
    return (floats_of(c) + (size_t)c->size) * sizeof(float);
}

/* Energies before the step, the downloaded ones after it, the reference. */
static size_t host_bytes(const struct config *c) { return 3 * (size_t)c->size * sizeof(float); }

static void *create(const struct config *c)
{
    struct particles *t = (struct particles *)calloc(1, sizeof *t);
    t->n = c->size;
    t->stride = (int)c->knob[KNOB_STRIDE];
    t->energy_step = -1; /* until the program's prepare() says */
    t->h_energy = (float *)host_alloc((size_t)t->n * sizeof(float));
    /* In [1, 2): never zero, so an energy the step skipped keeps a value
     * (its input) that differs from the right one. */
    rng_fill_f32(t->h_energy, (size_t)t->n, 1.0f, 2.0f, c->seed, 0);
    t->d = (float *)device_alloc(floats_of(c) * sizeof(float));
    t->scratch = (float *)device_alloc((size_t)t->n * sizeof(float));
    /* The other fields: any value will do, the step must leave them alone. */
    CUDA_CHECK(cudaMemset(t->d, FILL_BYTE, floats_of(c) * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(t->scratch, t->h_energy, (size_t)t->n * sizeof(float),
                          cudaMemcpyHostToDevice));
    return t;
}

/* The step updates the energies in place, so the "poison" is the input
 * itself: every energy is reset to its value before the step. An energy the
 * program fails to update then keeps its input, which no correct run leaves
 * (DECAY is not 1 and no input is zero). */
static void poison(void *data)
{
    struct particles *t = (struct particles *)data;
    if (t->energy_step < 1) {
        fprintf(stderr, "error: the program set no layout in its prepare()\n");
        exit(EXIT_USAGE);
    }
    CUDA_CHECK(cudaMemcpy(t->scratch, t->h_energy, (size_t)t->n * sizeof(float),
                          cudaMemcpyHostToDevice));
    scatter_energy<<<helper_grid(t->n), BLOCK>>>(t->d, t->energy_step, t->scratch, t->n);
    CHECK_LAUNCH();
}

static int check(void *data, struct check_report *r)
{
    struct particles *t = (struct particles *)data;
    size_t n = (size_t)t->n;
    float *got = (float *)host_alloc(n * sizeof(float)), *ref = (float *)host_alloc(n * sizeof(float));
    gather_energy<<<helper_grid(t->n), BLOCK>>>(t->scratch, t->d, t->energy_step, t->n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(got, t->scratch, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        ref[i] = t->h_energy[i] * DECAY; /* one rounded multiply, as on the GPU */
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
    /* The rest of the record array: every other field must still hold the
     * fill pattern, or a step that wrote over a neighbour's field would pass. */
    long total = t->n * (long)t->stride;
    const char *plant = getenv("GUIDE_PLANT");
    if (plant && strcmp(plant, "clobber") == 0 && t->stride > 1) {
        /* The planted fault: the last particle's last field overwritten, as by
         * a step that stored a whole struct or one float too far. */
        CUDA_CHECK(cudaMemset(t->d + total - 1, 0, sizeof(float)));
    }
    unsigned long long *counts = (unsigned long long *)device_alloc(2 * sizeof(unsigned long long)), h[2];
    CUDA_CHECK(cudaMemset(counts, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(counts + 1, 0xff, sizeof(unsigned long long)));
    count_clobbered<<<1024, BLOCK>>>(t->d, total, t->energy_step, t->n, counts, counts + 1);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(counts));
    printf("check: %ld energies bit-exact, and the other %ld floats of the %ld-float records "
           "untouched: %llu changed\n", t->n, total - t->n, (long)t->stride, h[0]);
    if (h[0]) {
        printf("check: %llu floats that are not energies were written, the first at float %llu "
               "(particle field %llu)\n", h[0], h[1],
               t->energy_step == 1 ? h[1] / (unsigned long long)t->n : h[1] % (unsigned long long)t->stride);
        r->bad += h[0];
        r->passed = 0;
    }
    free(got);
    free(ref);
    return r->passed;
}

/* What the step needs: read each energy, write it back. Whatever else a
 * layout makes the memory system move is the layout's cost. */
static double bytes(const void *data) { return 8.0 * ((const struct particles *)data)->n; }

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct particles *t = (struct particles *)data;
    CUDA_CHECK(cudaFree(t->d));
    CUDA_CHECK(cudaFree(t->scratch));
    free(t->h_energy);
    free(t);
}

const struct problem PROBLEM = {
    .number = 15,
    .slug = "coalescing",
    .title = "Coalescing: an array of structs becomes a struct of arrays",
    .section = "5.3.2",
    .size_help = "particles (67108864: 256 MiB of energies; 4 GiB of 64-byte particles)",
    .default_size = 67108864,
    .small_size = 100003,
    .odd_size = 333331,
    .min_size = 1,
    .max_size = 268435456,
    .knobs = {{"stride", "floats per particle: the struct's size / 4 (naive; the struct of "
               "arrays reads its energies packed whatever it is)", 16, 1, 32, 0, KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    .test_options = {"--stride 1", "--stride 2", "--stride 4", "--stride 8", "--stride 32"},
    .plants = {"clobber"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Loads: sectors per request is 4 when a warp reads 32 neighbouring
     * floats, 32 when every thread's float lies in a sector of its own. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    /* The stride sweep: the naive program's sectors per useful byte grow with
     * the stride up to 8 floats (one sector per particle), then stay. */
    .sweeps = {"--stride 2", "--stride 4", "--stride 8", "--stride 32"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
