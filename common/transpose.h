/* The transpose problem that chapters 20 (coalescing through a shared tile)
 * and 21 (bank conflicts of that tile) both time: an n x n float matrix,
 * transposed out of place, checked bit for bit against a CPU transpose. One
 * owner for the data, the inputs and the check; each chapter's problem.cu
 * keeps only what it teaches (its title, knobs, sweeps and profiler metrics). */
#ifndef COMMON_TRANSPOSE_H
#define COMMON_TRANSPOSE_H

#include "chapter.h"

/* The kernels of both chapters move a TILE x TILE block of the matrix per
 * thread block, with TILE x rows threads, each thread handling TILE / rows
 * elements. The pairs use BLOCK_ROWS: 512 threads of eight elements each.
 * --rows (a power of two up to MAX_ROWS) changes it. The tile is 64 floats
 * wide, not 32: on an H200 a 32-wide tile stayed under 90% of the copy roof
 * at every --rows measured (the results of commit 0aebb60). */
#define TILE 64
#define BLOCK_ROWS 8
/* The largest --rows: the largest instance kernel_for compiles, and a block
 * of TILE x MAX_ROWS threads stays within 1,024 (a smaller TILE keeps it). */
#define MAX_ROWS 16
static_assert(TILE * MAX_ROWS <= 1024, "a block of TILE x MAX_ROWS threads passes 1,024");

struct transpose {
    long n;        /* the matrix is n x n floats, row-major */
    int rows;      /* --rows: threads per tile column (knob 0 of both chapters) */
    float *in;     /* device input */
    float *out;    /* device output: out[c][r] = in[r][c] */
    float *h_in;   /* host copy of the input, for the reference */
    void *library; /* chapter 20's library.cu handle */
};

/* One block per tile. */
static inline dim3 transpose_grid(long n)
{
    return dim3((unsigned)((n + TILE - 1) / TILE), (unsigned)((n + TILE - 1) / TILE));
}

/* struct problem's hooks (chapter.h); bytes() is one read and one write of
 * the matrix, flops() none. */
size_t transpose_device_bytes(const struct config *c);
size_t transpose_host_bytes(const struct config *c);
void *transpose_create(const struct config *c);
void transpose_poison(void *data);
int transpose_check(void *data, struct check_report *r);
double transpose_bytes(const void *data);
double transpose_flops(const void *data);
void transpose_destroy(void *data);

#endif
