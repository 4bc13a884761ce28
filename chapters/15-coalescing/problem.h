/* Chapter 15: what naive.cu and optimized.cu share. */
#ifndef COALESCING_PROBLEM_H
#define COALESCING_PROBLEM_H

#include "chapter.h"

/* Threads per block, both programs. */
#define BLOCK 256

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

static inline dim3 particle_grid(long n) { return dim3((unsigned)((n + BLOCK - 1) / BLOCK)); }

#endif
