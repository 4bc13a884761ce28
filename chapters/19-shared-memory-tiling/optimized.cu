/* Chapter 19, optimized: the block walks along K one 32 x 32 tile of A and
 * one of B at a time. Each thread loads one element of each tile (coalesced)
 * into shared memory; after a barrier, every thread of the block reads the
 * 32 elements of its row of the A tile and its column of the B tile from
 * there. Each element loaded from global memory is used 32 times. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void sgemm_kernel(float *c, const float *a, const float *b, int n)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        /* Zeros outside the matrices: the last, partial tile adds nothing.
         * Every thread takes part, so that all of them reach the barriers. */
        int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[(long)row * n + ka] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[(long)kb * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads(); /* before the next tile overwrites this one */
    }
    if (row < n && col < n)
        c[(long)row * n + col] = acc;
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct gemm *g = (struct gemm *)data;
    sgemm_kernel<<<gemm_grid(g->n), dim3(TILE, TILE), 0, s>>>(g->c, g->a, g->b, (int)g->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
