/* Chapter 23, optimized: the same image, read through a texture object with
 * linear filtering and clamp addressing. One fetch instruction returns the
 * blended value: the texture unit finds the four texels, clamps their
 * coordinates and blends them, with weights of 8 fractional bits. It does so
 * for PIXELS output pixels, issuing all their fetches before it stores the
 * first (problem.h). */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void rotate_kernel(float *out, cudaTextureObject_t tex, int n, struct rotation r)
{
    int x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * TILE_Y + threadIdx.y;
    if (x >= n)
        return;
    float got[PIXELS];
    /* Every fetch first: PIXELS independent fetches in flight per thread. */
#pragma unroll
    for (int k = 0; k < PIXELS; k++) {
        int yk = y + k * BLOCK_Y;
        if (yk < n) {
            float u, v;
            source_of(&r, x, yk, &u, &v);
            /* Texel centres lie at +0.5: the unit subtracts 0.5 before it
             * splits the coordinate into a texel index and a weight. */
            got[k] = tex2D<float>(tex, u + 0.5f, v + 0.5f);
        }
    }
    /* Then each pixel's store, as its value arrives. */
#pragma unroll
    for (int k = 0; k < PIXELS; k++) {
        int yk = y + k * BLOCK_Y;
        if (yk < n) {
            out[(size_t)yk * n + x] = got[k];
        }
    }
}
// [kernel]

// [launch]
static void prepare(void *data)
{
    struct warp *w = (struct warp *)data;
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D; /* the naive program's buffer, as it is */
    res.res.pitch2D.devPtr = w->in;
    res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    res.res.pitch2D.width = w->n;
    res.res.pitch2D.height = w->n;
    res.res.pitch2D.pitchInBytes = w->pitch;
    struct cudaTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModeLinear;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 0;
    CUDA_CHECK(cudaCreateTextureObject(&w->tex, &res, &desc, NULL));
}

static void release(void *data)
{
    CUDA_CHECK(cudaDestroyTextureObject(((struct warp *)data)->tex));
}

static void run(void *data, cudaStream_t s)
{
    struct warp *w = (struct warp *)data;
    rotate_kernel<<<warp_grid(w->n), dim3(BLOCK_X, BLOCK_Y), 0, s>>>(w->out, w->tex, w->n,
                                                                      w->rot);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    /* The check holds this program to the bound of 8-bit filter weights. */
    static const struct variant v = {"optimized", run, prepare, release, RULE_TEXTURE};
    return run_variant(argc, argv, &PROBLEM, &v);
}
