/* Chapter 34, optimized: each warp adds up its 32 values for a row with
 * shuffles, which exchange registers inside the warp and need no barrier; the
 * warps' results meet in shared memory behind one __syncthreads(), and the
 * first warp adds them with shuffles again: one barrier per row. */
#include "problem.h"
#include "cuda_check.h"

// [reduce]
/* The sum of v over the 32 lanes of a warp, valid in lane 0. */
static __device__ unsigned warp_sum(unsigned v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The block's sum of v, valid in thread 0. partial holds THREADS / 32 values. */
static __device__ unsigned block_sum(unsigned v, unsigned *partial)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0)
        v = warp_sum(lane < THREADS / 32 ? partial[lane] : 0);
    return v;
}
// [reduce]

// [kernel]
/* Each block loops over the rows, DEPTH at a time: it loads them, then sums
 * them one by one into their own slots. Consecutive rows alternate between two
 * scratch buffers, so a row's stores never meet the previous row's reads. */
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS) row_sum_kernel(unsigned *out, const unsigned char *__restrict__ in,
                                                          long n, long cols, long rows)
{
    __shared__ unsigned scratch[2][THREADS];
    for (long r0 = (long)blockIdx.x * DEPTH; r0 < rows; r0 += (long)gridDim.x * DEPTH) {
        unsigned v[DEPTH];
        load_rows(v, in, n, cols, r0);
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
            unsigned s = block_sum(v[d], scratch[d % 2]);
            if (threadIdx.x == 0 && r0 + d < rows)
                out[r0 + d] = s;
        }
    }
}
// [kernel]

static void prepare(void *data)
{
    struct row_sums *r = (struct row_sums *)data;
    r->grid = resident_grid((const void *)row_sum_kernel);
}

static void run(void *data, cudaStream_t s)
{
    struct row_sums *r = (struct row_sums *)data;
    row_sum_kernel<<<r->grid, THREADS, 0, s>>>(r->out, r->in, r->n, r->cols, r->rows);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
