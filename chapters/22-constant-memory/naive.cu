/* Chapter 22, naive: the table lives in constant memory. Each lookup is one
 * LDC instruction per warp; the constant cache serves one address at a time,
 * so a warp whose 32 threads ask for 32 different entries waits for 32
 * requests, one after the other. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__constant__ float c_table[MAX_ENTRIES];

__global__ void lookup_kernel(float *out, const int *keys, long n, unsigned mask)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
#ifdef PLANT_GRID_STRIDE /* planted: a stride of two grids skips every other pass */
         i += 2L * gridDim.x * blockDim.x) {
#else
         i += (long)gridDim.x * blockDim.x) {
#endif
        int key = keys[i];
#ifdef PLANT_LANE0_KEY /* planted: lane 0's key for the whole warp, right only when uniform */
        key = __shfl_sync(__activemask(), key, 0);
#endif
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < LOOKUPS; j++)
            sum += c_table[(key + j * STEP) & mask];
        out[i] = sum;
    }
}
// [kernel]

// [launch]
static void prepare(void *data)
{
    struct lookup *t = (struct lookup *)data;
    CUDA_CHECK(cudaMemcpyToSymbol(c_table, t->h_table, t->entries * sizeof(float)));
}

static void run(void *data, cudaStream_t s)
{
    struct lookup *t = (struct lookup *)data;
    lookup_kernel<<<t->grid, BLOCK, 0, s>>>(t->out, t->keys, t->n, t->entries - 1);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
