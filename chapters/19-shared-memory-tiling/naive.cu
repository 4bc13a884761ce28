/* Chapter 19, naive: each thread computes one element of C straight from
 * global memory. A warp is 32 neighbouring columns of one row of C: its loads
 * of B are 32 neighbours in a row (coalesced) and its loads of A are one
 * address (a broadcast). Each element of A and B is loaded n times over the
 * whole grid; only the caches stand between those loads and DRAM. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void sgemm_kernel(float *c, const float *a, const float *b, int n)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++)
            acc += a[(long)row * n + k] * b[(long)k * n + col];
        c[(long)row * n + col] = acc;
    }
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
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
