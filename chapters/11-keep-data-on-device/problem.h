/* Chapter 11: what naive.cu and optimized.cu share. */
#ifndef KEEP_PROBLEM_H
#define KEEP_PROBLEM_H

#include "chapter.h"

#include <stddef.h>

/* Threads per block of the stencil: 32 x 8, one cell each. */
#define TILE_X 32
#define TILE_Y 8

struct stencil {
    long n;              /* --size: the grid is n x n floats */
    int steps;           /* --steps: Jacobi sweeps the host asks for */
    double stop_norm;    /* the host stops once a step changes the grid by no more than this */
    float *h_grid;       /* pinned: the initial grid, the program's input (never written) */
    float *h_work[2];    /* pinned: where the grid comes back to the host */
    float *result;       /* the final grid on the host: one of h_work, set by run() */
    double *norm;        /* the norm of each step's change, as the host saw it */
    int steps_done;      /* steps run before the host stopped */
    float *d_a, *d_b;    /* the grid on the device, before and after a step */
    double *d_parts;     /* the device norm's per-block partial sums */
    double *d_norm;      /* the device norm, one double */
};

extern const struct problem PROBLEM;

static inline size_t grid_bytes(const struct stencil *s)
{
    return (size_t)s->n * (size_t)s->n * sizeof(float);
}

/* One Jacobi step on the device: out = the average of each interior cell's
 * four neighbours in `in`; the boundary cells keep their values. */
void stencil_step(float *out, const float *in, long n);

/* The convergence norm, || new - old ||_2, summed in double on the host (one
 * pass over both grids, on every core, or on `threads` of them), or on the
 * device into s->d_norm. */
double host_norm(const float *next, const float *prev, size_t cells);
double host_norm_threads(const float *next, const float *prev, size_t cells, int threads);
void device_norm(struct stencil *s, const float *next, const float *prev);

/* The chapter's evidence, printed after the timing: each part of one step
 * timed alone, so the prose can say what the naive program's time is made of. */
void report_steps(struct stencil *s);

#endif
