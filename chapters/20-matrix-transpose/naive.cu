/* Chapter 20, naive: each thread copies in[r][c] straight to out[c][r]. The
 * reads of a warp are 32 neighbours in a row (coalesced); its writes land in
 * 32 different rows of the output, one 32-byte sector each. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <int ROWS> /* threads per tile column: --rows picks the instance */
__global__ void transpose_kernel(float *out, const float *in, long n)
{
    long c = blockIdx.x * (long)TILE + threadIdx.x;
    long r0 = blockIdx.y * (long)TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        long r = r0 + j;
        if (r < n && c < n)
            out[c * n + r] = in[r * n + c];
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
