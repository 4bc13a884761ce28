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
    int vector;    /* --vector: floats per access, both programs */
    size_t pitch;  /* bytes between row starts, the same for both images */
    float *in, *out;
    float *h_in;   /* host: the image, packed */
};

extern const struct problem PROBLEM;

/* Upload the input into the program's rows (after it set in, out, pitch). */
void filter_upload(struct filter *t);

/* VEC neighbouring floats as one access: float, float2 or float4. */
template <int VEC> struct vec_of;
template <> struct vec_of<1> { typedef float type; };
template <> struct vec_of<2> { typedef float2 type; };
template <> struct vec_of<4> { typedef float4 type; };

/* Output pixel c of a row from scalar loads. */
__device__ inline void filter_pixel(float *orow, const float *row, int c, int cols)
{
    float left = row[c > 0 ? c - 1 : 0];
    float right = row[c + 1 < cols ? c + 1 : cols - 1];
    orow[c] = W_SIDE * left + W_MID * row[c] + W_SIDE * right;
}

/* Output pixels c0 .. c0 + VEC - 1 of a row: one VEC-wide load of the pixels,
 * two scalar loads of the neighbours outside it, one VEC-wide store. row + c0
 * must be aligned to VEC floats. Pixels at cols and past it, where a pitched
 * row's last vector reaches into its padding, are computed and stored there
 * (the padding is the allocation's, and was written before it is read). */
template <int VEC>
__device__ inline void filter_vector(float *orow, const float *row, int c0, int cols)
{
    typedef typename vec_of<VEC>::type vec;
    float p[VEC + 2]; /* p[1..VEC]: the pixels; p[0], p[VEC + 1]: their neighbours */
    vec v = *(const vec *)(row + c0);
    memcpy(p + 1, &v, sizeof v);
    p[0] = row[c0 > 0 ? c0 - 1 : 0];
    p[VEC + 1] = row[c0 + VEC < cols ? c0 + VEC : cols - 1];
    float o[VEC];
#pragma unroll
    for (int j = 0; j < VEC; j++) {
        float right = c0 + j + 1 < cols ? p[j + 2] : p[j + 1];
        o[j] = W_SIDE * p[j] + W_MID * p[j + 1] + W_SIDE * right;
    }
    memcpy(&v, o, sizeof v);
    *(vec *)(orow + c0) = v;
}

/* One block of threads for BLOCK * floats_per_thread columns of one row. */
static inline dim3 filter_grid(const struct filter *t, int floats_per_thread)
{
    long per_block = (long)BLOCK * floats_per_thread;
    return dim3((unsigned)t->rows, (unsigned)((t->cols + per_block - 1) / per_block));
}

#endif
