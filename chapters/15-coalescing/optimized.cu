/* Chapter 15, optimized: the particles are a struct of arrays, one array of n
 * floats per field. The 32 threads of a warp update 32 neighbouring energies:
 * 128 contiguous bytes, four sectors, every byte of which the step needs. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* The energies of all particles, one after another; the other fields
 * (position, velocity, mass, charge...) are arrays of their own. */
__global__ void decay_kernel(float *energy, long n)
{
    long first = blockIdx.x * (long)blockDim.x * PER_THREAD + threadIdx.x;
    float e[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) { /* every load before any store */
        long i = first + k * (long)blockDim.x;
        if (i < n)
            e[k] = energy[i];
    }
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        long i = first + k * (long)blockDim.x;
        if (i < n)
            energy[i] = e[k] * DECAY;
    }
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct particles *t = (struct particles *)data;
    decay_kernel<<<particle_grid(t->n), BLOCK, 0, s>>>(t->d, t->n);
    CHECK_LAUNCH();
}

/* Struct of arrays: the energies are the first array, packed. */
static void prepare(void *data)
{
    struct particles *t = (struct particles *)data;
    t->energy_step = 1;
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
