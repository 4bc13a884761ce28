/* Chapter 17, naive: the image is allocated with cudaMalloc, its rows packed
 * one after another: row r starts at r * cols floats, an address whose
 * alignment depends on r when cols is odd. Each thread filters VEC pixels
 * with one VEC-wide access (--vector; float4 by default), which is legal only
 * from an aligned address: so each row's pixels before its first aligned
 * address, and after its last whole vector, go one at a time. */
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
    /* A packed row starts at any float: peel the pixels before its first
     * VEC-aligned address (the allocation is aligned), and the tail. */
    int head = (int)((VEC - r * row_floats % VEC) % VEC);
    head = head < cols ? head : cols;
    int vectors = (cols - head) / VEC, tail = cols - head - vectors * VEC;
    if (t < vectors)
        filter_vector<VEC>(orow, row, head + t * VEC, cols);
    if (t < head)
        filter_pixel(orow, row, t, cols);
    if (t < tail)
        filter_pixel(orow, row, head + vectors * VEC + t, cols);
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
