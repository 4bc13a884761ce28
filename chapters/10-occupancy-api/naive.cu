/* Chapter 10, naive: the block size is hard-coded (--block, 32 by default:
 * one warp per block, as in the guide's own occupancy example). Each block
 * keeps a 32 KB table in shared memory, so an SM holds only 6 blocks: with
 * one warp each, 6 of its 64 warp slots are used, too few to hide the
 * latency of a walk in which every lookup waits for the one before. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
__global__ void walk_kernel(float *out, const float *table, const uint32_t *in, long n, int steps)
{
    extern __shared__ float t[]; /* the block's copy of the table, TABLE floats */
    for (int j = threadIdx.x; j < TABLE; j += blockDim.x)
        t[j] = table[j];
    __syncthreads();
    long first = blockIdx.x * (long)CHUNK, end = first + CHUNK < n ? first + CHUNK : n;
    for (long i = first + threadIdx.x; i < end; i += blockDim.x) {
        uint32_t x = in[i];
        float sum = 0.0f;
        for (int s = 0; s < steps; s++) {
            float v = t[x % TABLE]; /* a random shared-memory read */
            sum += v;
            x = walk_next(x, v);
        }
        out[i] = sum;
    }
}
// [kernel]

// [launch]
static void prepare(void *data)
{
    struct walk *w = (struct walk *)data;
    w->block = w->hand_block; /* picked by hand */
    report_occupancy((const void *)walk_kernel, w->block);
}
// [launch]

static void run(void *data, cudaStream_t s)
{
    struct walk *w = (struct walk *)data;
    walk_kernel<<<walk_grid(w->n), w->block, TABLE_BYTES, s>>>(w->out, w->table, w->in, w->n,
                                                              w->steps);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
