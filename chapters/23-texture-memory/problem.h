/* Chapter 23: what naive.cu and optimized.cu share. */
#ifndef TEXTURE_MEMORY_PROBLEM_H
#define TEXTURE_MEMORY_PROBLEM_H

#include "chapter.h"

#define BLOCK_X 32
#define BLOCK_Y 8
/* Output pixels per thread, in one column, BLOCK_Y rows apart: a block covers a tile of
 * BLOCK_X x TILE_Y pixels. Each thread issues the reads of all its pixels before it uses the
 * first, so that PIXELS fetches per thread are in flight at once (the guide's 5.2.3,
 * "Multiprocessor Level": independent instructions hide latency). With one pixel per thread
 * the 2048 threads an SM holds keep about 15 KB of DRAM traffic in flight, half of the about
 * 32 KB an H200 needs to stream at its copy rate (evidence.toml's prediction). */
#define PIXELS 4
#define TILE_Y (BLOCK_Y * PIXELS)

/* Output pixel (x, y) samples the source image at (u, v): the pixel's
 * offset from the centre, rotated by --angle degrees, plus the centre. */
struct rotation {
    float cs, sn;     /* cos and sin of the angle, rounded to float on the host */
    float centre;     /* (n - 1) / 2: exact in float */
};

struct warp {
    int n;                 /* the image is n x n floats */
    int angle;             /* --angle, degrees */
    struct rotation rot;
    float *in;             /* device source image, pitched */
    size_t pitch;          /* bytes per source row */
    float *out;            /* device output, n x n, dense */
    float *h_in;           /* host source, dense */
    size_t sampled;        /* source texels that some output pixel blends (bytes()) */
    cudaTextureObject_t tex; /* optimized.cu's texture over `in` */
    int texture;           /* 1: the program filters in the texture unit (its check_rule) */
};

/* What each program declares as the check_rule of its struct variant: how it
 * blends, and so the error bound the check applies. */
enum warp_rule {
    RULE_FLOAT_BLEND = 1, /* three fmaf in float: 7 u max|tap| */
    RULE_TEXTURE = 2      /* hardware weights with 8 fractional bits */
};

extern const struct problem PROBLEM;

/* The source coordinates of output pixel (x, y). Every product and sum is
 * rounded once, in this order, on the GPU (the _rn intrinsics are never fused
 * into FMAs) and on the CPU alike, so the check sees the same (u, v) as the
 * kernels and measures only the blending. */
static __host__ __device__ inline void source_of(const struct rotation *r, int x, int y,
                                                 float *u, float *v)
{
    float dx = (float)x - r->centre, dy = (float)y - r->centre; /* exact */
#ifdef __CUDA_ARCH__
    *u = __fadd_rn(__fadd_rn(__fmul_rn(r->cs, dx), __fmul_rn(r->sn, dy)), r->centre);
    *v = __fadd_rn(__fsub_rn(__fmul_rn(r->cs, dy), __fmul_rn(r->sn, dx)), r->centre);
#else
    volatile float a = r->cs * dx, b = r->sn * dy, c = r->cs * dy, d = r->sn * dx;
    *u = (a + b) + r->centre;
    *v = (c - d) + r->centre;
#endif
}

/* One block per tile, the last tile row and column partly outside the image when n is not a
 * multiple of the tile: the kernels' guards (x < n, and y < n for each pixel) cover it. */
static inline dim3 warp_grid(int n)
{
#ifdef PLANT_GRID_FLOOR
    return dim3((unsigned)((n + BLOCK_X - 1) / BLOCK_X), (unsigned)(n / TILE_Y));
#else
    return dim3((unsigned)((n + BLOCK_X - 1) / BLOCK_X), (unsigned)((n + TILE_Y - 1) / TILE_Y));
#endif
}

#endif
