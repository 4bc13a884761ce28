/* Chapter 17, optimized: the image is allocated with cudaMallocPitch, so that
 * every row starts on an aligned boundary. That makes 16-byte loads of four
 * neighbouring pixels legal in every row: each thread filters four pixels
 * with one float4 load (--vector 1 keeps the pitch and goes back to scalar
 * loads, to show which of the two changes pays). */
#include "problem.h"
#include "cuda_check.h"

/* VEC neighbouring floats as one access: float, float2 or float4. */
template <int VEC> struct vec_of;
template <> struct vec_of<1> { typedef float type; };
template <> struct vec_of<2> { typedef float2 type; };
template <> struct vec_of<4> { typedef float4 type; };

// [kernel]
template <int VEC>
__global__ void row_filter(float *out, const float *in, int cols, long row_floats)
{
    typedef typename vec_of<VEC>::type vec;
    long r = blockIdx.x;
    int c0 = (blockIdx.y * blockDim.x + threadIdx.x) * VEC;
    if (c0 < cols) {
        const float *row = in + r * row_floats;
        /* p[1..VEC]: this thread's pixels, in one aligned load (the pitch
         * keeps c0 a multiple of VEC floats from an aligned row start; the
         * last access of a row may read into the padding, which is ours). */
        float p[VEC + 2];
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
        *(vec *)(out + r * row_floats + c0) = v; /* past cols: into the padding */
    }
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
