/* Chapter 15, naive: the particles are an array of structs. Each thread
 * updates one field of PER_THREAD particles; the 32 threads of a warp touch 32
 * energies that lie `stride` floats apart, so every 32-byte sector the warp
 * fetches holds one energy it needs (from a stride of 8 floats up). */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* A particle of FLOATS floats: the energy, then fields this step ignores. */
template <int FLOATS>
struct particle {
    float energy;
    float other[FLOATS - 1]; /* position, velocity, mass, charge... */
};
template <>
struct particle<1> {
    float energy;
};

template <int FLOATS>
__global__ void decay_kernel(particle<FLOATS> *p, long n)
{
    long first = blockIdx.x * (long)blockDim.x * PER_THREAD + threadIdx.x;
    float e[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) { /* every load before any store */
        long i = first + k * (long)blockDim.x;
        if (i < n)
            e[k] = p[i].energy;
    }
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        long i = first + k * (long)blockDim.x;
        if (i < n)
            p[i].energy = e[k] * DECAY;
    }
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct particles *t = (struct particles *)data;
    dim3 grid = particle_grid(t->n);
    switch (t->stride) { /* the knob's rule admits only these */
    case 1: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<1> *)t->d, t->n); break;
    case 2: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<2> *)t->d, t->n); break;
    case 4: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<4> *)t->d, t->n); break;
    case 8: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<8> *)t->d, t->n); break;
    case 32: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<32> *)t->d, t->n); break;
    default: decay_kernel<<<grid, BLOCK, 0, s>>>((particle<16> *)t->d, t->n); break;
    }
    CHECK_LAUNCH();
}

/* Array of structs: particle i's energy is the first of its `stride` floats. */
static void prepare(void *data)
{
    struct particles *t = (struct particles *)data;
    t->energy_step = t->stride;
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
