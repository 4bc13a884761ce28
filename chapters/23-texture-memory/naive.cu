/* Chapter 23, naive: bilinear filtering by hand. Each thread finds the four
 * source pixels around (u, v), clamps their indices to the image, loads them
 * with four global loads and blends them with the fractional parts of u and v
 * as weights, in float. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void rotate_kernel(float *out, const float *in, size_t pitch, int n,
                              struct rotation r)
{
    int x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * BLOCK_Y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    float u, v;
    source_of(&r, x, y, &u, &v);
    float fu = floorf(u), fv = floorf(v);
    float a = u - fu, b = v - fv; /* the weights: exact fractional parts */
    int x0 = min(max((int)fu, 0), n - 1), x1 = min(max((int)fu + 1, 0), n - 1);
    int y0 = min(max((int)fv, 0), n - 1), y1 = min(max((int)fv + 1, 0), n - 1);
    const float *row0 = (const float *)((const char *)in + y0 * pitch);
    const float *row1 = (const float *)((const char *)in + y1 * pitch);
    float t00 = row0[x0], t10 = row0[x1], t01 = row1[x0], t11 = row1[x1];
    float top = fmaf(a, t10 - t00, t00), bottom = fmaf(a, t11 - t01, t01);
    out[(size_t)y * n + x] = fmaf(b, bottom - top, top);
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
