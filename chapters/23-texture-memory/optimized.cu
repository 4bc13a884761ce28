/* Chapter 23, optimized: the same image, read through a texture object with
 * linear filtering and clamp addressing. One fetch instruction returns the
 * blended value: the texture unit finds the four texels, clamps their
 * coordinates and blends them, with weights of 8 fractional bits. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void rotate_kernel(float *out, cudaTextureObject_t tex, int n, struct rotation r)
{
    int x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * BLOCK_Y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    float u, v;
    source_of(&r, x, y, &u, &v);
    /* Texel centres lie at +0.5: the unit subtracts 0.5 before it splits
     * the coordinate into a texel index and a weight. */
    out[(size_t)y * n + x] = tex2D<float>(tex, u + 0.5f, v + 0.5f);
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
