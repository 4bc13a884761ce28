/* Chapter 22, optimized: each block first copies the table from global
 * memory into shared memory, then does the same lookups there. Shared memory
 * serves the 32 addresses of a warp in one pass, except where two of them
 * fall in the same bank (a few passes for random keys), where the constant
 * cache would take one pass per distinct address. --table 1 does the same
 * lookups from global memory instead, the comparison for the uniform case. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void lookup_kernel(float *out, const int *keys, long n, unsigned mask,
                              const float *table)
{
    extern __shared__ float s_table[];
#ifdef PLANT_COPY_ONE_PASS /* planted: the copy stops after one block's worth of entries */
    if (threadIdx.x <= mask)
        s_table[threadIdx.x] = table[threadIdx.x];
#else
    for (unsigned e = threadIdx.x; e <= mask; e += blockDim.x)
        s_table[e] = table[e];
#endif
    __syncthreads();
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
#ifdef PLANT_GRID_STRIDE /* planted: a stride of two grids skips every other pass */
         i += 2L * gridDim.x * blockDim.x) {
#else
         i += (long)gridDim.x * blockDim.x) {
#endif
        int key = keys[i];
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < LOOKUPS; j++)
            sum += s_table[(key + j * STEP) & mask];
        out[i] = sum;
    }
}
// [kernel]

/* --table 1, for comparison: the same lookups straight from the table's
 * global copy, through the L1 (read-only, so the loads may take the
 * non-coherent path), with no copy and no barrier. */
__global__ void lookup_global_kernel(float *out, const int *keys, long n, unsigned mask,
                                     const float *__restrict__ table)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        int key = keys[i];
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < LOOKUPS; j++)
#ifdef PLANT_GLOBAL_MASK /* planted: half the table's mask, the top half never read */
            sum += table[(key + j * STEP) & (mask >> 1)];
#else
            sum += table[(key + j * STEP) & mask];
#endif
        out[i] = sum;
    }
}

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct lookup *t = (struct lookup *)data;
    size_t smem = t->entries * sizeof(float);
    if (t->from_global)
        lookup_global_kernel<<<t->grid, BLOCK, 0, s>>>(t->out, t->keys, t->n, t->entries - 1, t->table);
    else
        lookup_kernel<<<t->grid, BLOCK, smem, s>>>(t->out, t->keys, t->n, t->entries - 1, t->table);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
