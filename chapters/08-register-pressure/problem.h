/* Chapter 08: what naive.cu and optimized.cu share. */
#ifndef REGISTER_PRESSURE_PROBLEM_H
#define REGISTER_PRESSURE_PROBLEM_H

#include "chapter.h"

/* Each thread filters its own signal through a cascade of STAGES one-pole
 * low-pass stages, y[k] <- y[k-1] + a[k] * (y[k] - y[k-1]), with its own
 * coefficients a[k]: STAGES states and STAGES coefficients stay live in
 * registers for the whole signal. */
#define STAGES 64
#define CASCADE_BLOCK 256 /* threads per block, both programs */

struct cascade {
    long n;         /* signals, one per thread */
    int steps;      /* samples per signal: the --steps knob */
    int min_blocks; /* the optimized program's __launch_bounds__ promise: --min-blocks */
    float *in;      /* device, steps x n samples: in[t * n + i] */
    float *coef;    /* device, STAGES x n coefficients: coef[k * n + i] */
    float *out;     /* device, STAGES x n final states: out[k * n + i] */
    float *h_in, *h_coef; /* host copies, for the reference */
};

extern const struct problem PROBLEM;

/* The launch both programs use: one thread per signal. */
static inline dim3 cascade_grid(long n)
{
    return dim3((unsigned)((n + CASCADE_BLOCK - 1) / CASCADE_BLOCK));
}

/* Print the kernel's registers and local memory, the register arithmetic of
 * guide 5.2.3 on this GPU, and the occupancy the runtime predicts. */
void report_registers(const void *kernel);

#endif
