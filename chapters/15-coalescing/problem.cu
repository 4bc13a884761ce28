/* Chapter 15, the problem: n particles lose a quarter of their energy, one
 * multiply per particle on one field of a many-field particle. Bit-exact check
 * against a CPU multiply; the work the step needs is one read and one write
 * of 4 bytes per particle, whatever the layout around them. */
#include "problem.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>

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
    CUDA_CHECK(cudaMemset(t->d, 0x3f, floats_of(c) * sizeof(float)));
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
    scatter_energy<<<particle_grid(t->n), BLOCK>>>(t->d, t->energy_step, t->scratch, t->n);
    CHECK_LAUNCH();
}

static int check(void *data, struct check_report *r)
{
    struct particles *t = (struct particles *)data;
    size_t n = (size_t)t->n;
    float *got = (float *)host_alloc(n * sizeof(float)), *ref = (float *)host_alloc(n * sizeof(float));
    gather_energy<<<particle_grid(t->n), BLOCK>>>(t->scratch, t->d, t->energy_step, t->n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(got, t->scratch, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        ref[i] = t->h_energy[i] * DECAY; /* one rounded multiply, as on the GPU */
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n, &tol, NULL, r);
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
