/* Chapter 23, naive: bilinear filtering by hand. Each thread finds the four
 * source pixels around (u, v), clamps their indices to the image, loads them
 * with four global loads and blends them with the fractional parts of u and v
 * as weights, in float. It does so for PIXELS output pixels, issuing all their
 * loads before it blends the first (problem.h). */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void rotate_kernel(float *out, const float *in, size_t pitch, int n,
                              struct rotation r)
{
    int x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * TILE_Y + threadIdx.y;
    if (x >= n)
        return;
    float a[PIXELS], b[PIXELS], t00[PIXELS], t10[PIXELS], t01[PIXELS], t11[PIXELS];
    /* Every load first: 4 x PIXELS independent loads in flight per thread. */
#pragma unroll
    for (int k = 0; k < PIXELS; k++) {
        int yk = y + k * BLOCK_Y;
        if (yk < n) {
            float u, v;
            source_of(&r, x, yk, &u, &v);
            float fu = floorf(u), fv = floorf(v);
            a[k] = u - fu, b[k] = v - fv; /* the weights: exact fractional parts */
            int x0 = min(max((int)fu, 0), n - 1), x1 = min(max((int)fu + 1, 0), n - 1);
            int y0 = min(max((int)fv, 0), n - 1), y1 = min(max((int)fv + 1, 0), n - 1);
            const float *row0 = (const float *)((const char *)in + y0 * pitch);
            const float *row1 = (const float *)((const char *)in + y1 * pitch);
            t00[k] = row0[x0], t10[k] = row0[x1], t01[k] = row1[x0], t11[k] = row1[x1];
        }
    }
    /* Then each pixel's blend, as its texels arrive. */
#pragma unroll
    for (int k = 0; k < PIXELS; k++) {
        int yk = y + k * BLOCK_Y;
        if (yk < n) {
            float top = fmaf(a[k], t10[k] - t00[k], t00[k]);
            float bottom = fmaf(a[k], t11[k] - t01[k], t01[k]);
            out[(size_t)yk * n + x] = fmaf(b[k], bottom - top, top);
        }
    }
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct warp *w = (struct warp *)data;
    rotate_kernel<<<warp_grid(w->n), dim3(BLOCK_X, BLOCK_Y), 0, s>>>(w->out, w->in, w->pitch,
                                                                      w->n, w->rot);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    /* The check holds this program to float blending's bound. */
    static const struct variant v = {"naive", run, NULL, NULL, RULE_FLOAT_BLEND};
    return run_variant(argc, argv, &PROBLEM, &v);
}
