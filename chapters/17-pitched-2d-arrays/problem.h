/* Chapter 17: what naive.cu and optimized.cu share. */
#ifndef PITCH_PROBLEM_H
#define PITCH_PROBLEM_H

#include "chapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads per block, both programs. */
#define BLOCK 256

/* The row filter: a three-tap binomial blur along each row, the edge pixel
 * repeated past either end. The weights are powers of two, so each product
 * is exact and only the two additions round. */
#define W_SIDE 0.25f
#define W_MID 0.5f

/* A rows x cols image of floats, stored row after row, `pitch` bytes from the
 * start of one row to the start of the next: cols * 4 when the rows are
 * packed (cudaMalloc), more when cudaMallocPitch pads them. The program
 * allocates both images in its prepare() and then calls filter_upload(). */
struct filter {
    long rows;
    int cols;      /* --cols */
    int vector;    /* --vector: floats per access in the optimized program */
    size_t pitch;  /* bytes between row starts, the same for both images */
    float *in, *out;
    float *h_in;   /* host: the image, packed */
};

extern const struct problem PROBLEM;

/* Upload the input into the program's rows (after it set in, out, pitch). */
void filter_upload(struct filter *t);

/* One block of threads for BLOCK * floats_per_thread columns of one row. */
static inline dim3 filter_grid(const struct filter *t, int floats_per_thread)
{
    long per_block = (long)BLOCK * floats_per_thread;
    return dim3((unsigned)t->rows, (unsigned)((t->cols + per_block - 1) / per_block));
}

#endif
