/* Chapter 20, naive: each thread copies in[r][c] straight to out[c][r]. The
 * reads of a warp are 32 neighbours in a row (coalesced); its writes land in
 * 32 different rows of the output, one 32-byte sector each. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void transpose_kernel(float *out, const float *in, long n)
{
    long c = blockIdx.x * (long)TILE + threadIdx.x;
    long r0 = blockIdx.y * (long)TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        long r = r0 + j;
        if (r < n && c < n)
            out[c * n + r] = in[r * n + c];
    }
}
// [kernel]

static void run(void *data, cudaStream_t s)
{
    struct transpose *t = (struct transpose *)data;
    transpose_kernel<<<transpose_grid(t->n), dim3(TILE, BLOCK_ROWS), 0, s>>>(t->out, t->in, t->n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
