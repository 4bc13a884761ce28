/* Chapter 20, optimized: a block reads a 64 x 64 tile with coalesced loads
 * into shared memory, then writes it back transposed, again coalesced: the
 * transposition happens in shared memory, where any order is cheap. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ROWS> /* threads per tile column: --rows picks the instance */
__global__ void transpose_kernel(float *out, const float *in, long n)
{
    /* One extra column: a warp's column read below then hits 32 different banks
     * (chapter 21 measures what happens without it). */
    __shared__ float tile[TILE][TILE + 1];
    long c = blockIdx.x * (long)TILE + threadIdx.x;
    long r0 = blockIdx.y * (long)TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        long r = r0 + j;
        if (r < n && c < n)
            tile[threadIdx.y + j][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();
    /* Swap the block's coordinates: this block writes tile (x, y) of the
     * input as tile (y, x) of the output, a warp along an output row. */
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
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
