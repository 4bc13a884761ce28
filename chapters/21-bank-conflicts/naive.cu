/* Chapter 21, naive: the tiled transpose with a 64 x 64 shared array. Each
 * warp writes a row of the tile and later reads a column of it; a column of
 * a 64-float-wide array lies in a single bank. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ROWS> /* threads per tile column: --rows picks the instance */
__global__ void transpose_kernel(float *out, const float *in, long n)
{
    /* 64 floats a row: element [i][j] is in bank j % 32, whatever i is. */
    __shared__ float tile[TILE][TILE];
    long c = blockIdx.x * (long)TILE + threadIdx.x;
    long r0 = blockIdx.y * (long)TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        long r = r0 + j;
        if (r < n && c < n)
            tile[threadIdx.y + j][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();
    /* This block writes tile (x, y) of the input as tile (y, x) of the
     * output, a warp along an output row, so down a column of the tile. */
    c = blockIdx.y * (long)TILE + threadIdx.x;
    r0 = blockIdx.x * (long)TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        long r = r0 + j;
        if (r < n && c < n)
            out[r * n + c] = tile[threadIdx.x][threadIdx.y + j];
    }
}
// [kernel]

typedef void (*transpose_fn)(float *, const float *, long);

static transpose_fn kernel_for(int rows)
{
    switch (rows) { /* the knob admits only these */
    case 1: return transpose_kernel<1>;
    case 2: return transpose_kernel<2>;
    case 4: return transpose_kernel<4>;
    case 16: return transpose_kernel<16>;
    default: return transpose_kernel<BLOCK_ROWS>;
    }
}

static void run(void *data, cudaStream_t s)
{
    struct transpose *t = (struct transpose *)data;
    kernel_for(t->rows)<<<transpose_grid(t->n), dim3(TILE, t->rows), 0, s>>>(t->out, t->in, t->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
