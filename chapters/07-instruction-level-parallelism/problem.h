/* Chapter 07: what naive.cu and optimized.cu share. */
#ifndef ILP_PROBLEM_H
#define ILP_PROBLEM_H

#include "chapter.h"

struct ilp_copy {
    long n;      /* floats copied from in to out */
    int warps;   /* warps per SM: the --warps knob */
    int ilp;     /* loads in flight per thread in the optimized copy: the --ilp knob */
    int sms;     /* multiprocessors of this GPU */
    float *in;   /* device input */
    float *out;  /* device output: out[i] = in[i] */
    float *h_in; /* host copy of the input, the reference */
};

extern const struct problem PROBLEM;

/* The launch both programs use: one block of 32 * warps threads per SM, so
 * every SM holds exactly `warps` warps whatever the kernel does. The low
 * occupancy is fixed by the launch, not by the kernel's resources. */
static inline dim3 copy_grid(const struct ilp_copy *c) { return dim3((unsigned)c->sms); }
static inline dim3 copy_block(const struct ilp_copy *c) { return dim3(32u * (unsigned)c->warps); }

#endif
