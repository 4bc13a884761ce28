/* Chapter 17, naive: the image is allocated with cudaMalloc, its rows packed
 * one after another: row r starts at r * cols floats, an address whose
 * alignment depends on r when cols is odd. One thread per pixel, scalar loads. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void row_filter(float *out, const float *in, int cols, long row_floats)
{
    long r = blockIdx.x;
    int c = blockIdx.y * blockDim.x + threadIdx.x;
    if (c < cols) {
        const float *row = in + r * row_floats;
        float left = row[c > 0 ? c - 1 : 0];
        float right = row[c + 1 < cols ? c + 1 : cols - 1];
        out[r * row_floats + c] = W_SIDE * left + W_MID * row[c] + W_SIDE * right;
    }
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct filter *t = (struct filter *)data;
    row_filter<<<filter_grid(t, 1), BLOCK, 0, s>>>(t->out, t->in, t->cols,
                                                    (long)(t->pitch / sizeof(float)));
    CHECK_LAUNCH();
}

// [alloc]
static void prepare(void *data)
{
    struct filter *t = (struct filter *)data;
    size_t row_bytes = (size_t)t->cols * sizeof(float);
    CUDA_CHECK(cudaMalloc((void **)&t->in, row_bytes * t->rows));
    CUDA_CHECK(cudaMalloc((void **)&t->out, row_bytes * t->rows));
    t->pitch = row_bytes; /* the rows, packed */
    filter_upload(t);
}
// [alloc]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
