/* Chapter 17, optimized: the image is allocated with cudaMallocPitch, so that
 * every row starts on an aligned boundary. Each thread filters VEC pixels
 * with one VEC-wide access (--vector; float4 by default), as the naive
 * program does, and no row needs a peeled head or tail: the pitch keeps every
 * vector aligned, and the last one of a row reaches into the row's padding. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int VEC>
__global__ void row_filter(float *out, const float *in, int cols, long row_floats)
{
    long r = blockIdx.x;
    const float *row = in + r * row_floats;
    float *orow = out + r * row_floats;
    int t = blockIdx.y * blockDim.x + threadIdx.x;
    /* Every pitched row starts aligned: whole vectors from its first pixel. */
    if (t * VEC < cols)
        filter_vector<VEC>(orow, row, t * VEC, cols);
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct filter *t = (struct filter *)data;
    long row_floats = (long)(t->pitch / sizeof(float));
    switch (t->vector) { /* the knob's rule admits only these */
    case 1: row_filter<1><<<filter_grid(t, 1), BLOCK, 0, s>>>(t->out, t->in, t->cols, row_floats); break;
    case 2: row_filter<2><<<filter_grid(t, 2), BLOCK, 0, s>>>(t->out, t->in, t->cols, row_floats); break;
    default: row_filter<4><<<filter_grid(t, 4), BLOCK, 0, s>>>(t->out, t->in, t->cols, row_floats); break;
    }
    CHECK_LAUNCH();
}

// [alloc]
static void prepare(void *data)
{
    struct filter *t = (struct filter *)data;
    size_t row_bytes = (size_t)t->cols * sizeof(float);
    CUDA_CHECK(cudaMallocPitch((void **)&t->in, &t->pitch, row_bytes, t->rows));
    size_t pitch_in = t->pitch;
    CUDA_CHECK(cudaMallocPitch((void **)&t->out, &t->pitch, row_bytes, t->rows));
    if (t->pitch != pitch_in || t->pitch % sizeof(float4) != 0) { /* never seen; but float4 needs it */
        fprintf(stderr, "error: pitches of %zu and %zu bytes\n", pitch_in, t->pitch);
        exit(EXIT_CUDA_ERROR);
    }
    filter_upload(t);
}
// [alloc]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
