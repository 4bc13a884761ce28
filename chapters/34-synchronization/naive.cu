/* Chapter 34, naive: a block adds up its threads' values for a row with a tree
 * in shared memory, halving the active threads at every level and waiting for
 * the whole block with __syncthreads() after each one: 1 + 8 barriers for 256
 * threads, on every row. */
#include "problem.h"
#include "cuda_check.h"

// [reduce]
/* The block's sum of v, valid in thread 0. partial holds THREADS values. */
static __device__ unsigned block_sum(unsigned v, unsigned *partial)
{
    partial[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    return threadIdx.x == 0 ? partial[0] : 0;
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
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
