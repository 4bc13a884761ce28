/* Chapter 15: what naive.cu and optimized.cu share. */
#ifndef COALESCING_PROBLEM_H
#define COALESCING_PROBLEM_H

#include "chapter.h"

/* Threads per block, both programs. */
#define BLOCK 256

/* Particles per thread, both programs: a thread loads all its energies
 * before it stores any, so it keeps PER_THREAD loads in flight. One 4-byte
 * load per thread puts only 8 KB per SM in flight, too little to cover DRAM's
 * latency at the copy roof (Little's law; chapters 6 and 7). */
#define PER_THREAD 4

/* The step: every particle loses a fixed fraction of its energy. */
#define DECAY 0.75f

/* n particles of `stride` floats each (energy and stride - 1 other fields:
 * position, velocity, mass...). Both programs get the same allocation of
 * n * stride floats; each program says in prepare() where the energies lie:
 *   array of structs (naive):    energy of particle i at d[i * stride]
 *   struct of arrays (optimized): energy of particle i at d[i] (the first of
 *                                 `stride` arrays of n floats, one per field) */
struct particles {
    long n;
    int stride;      /* --stride: floats per particle (64 bytes at 16) */
    long energy_step;/* set by the program's prepare(): floats between two energies */
    float *d;        /* device: every field of every particle */
    float *scratch;  /* device: n floats, the energies packed, for upload and check */
    float *h_energy; /* host: the energies before the step */
};

extern const struct problem PROBLEM;

/* The timed kernels' grid: PER_THREAD particles per thread. */
static inline dim3 particle_grid(long n)
{
    return dim3((unsigned)((n + BLOCK * PER_THREAD - 1) / (BLOCK * PER_THREAD)));
}

#endif
