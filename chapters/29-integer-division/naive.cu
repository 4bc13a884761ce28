/* Chapter 29, naive: the index arithmetic of a generic permute kernel. Each
 * flat index i of a 4-D array [depth][width][width][width] is decoded into
 * its coordinates with / and %, and the offset of the same element in the
 * reversed (transposed) layout is computed from them. The width is a kernel
 * argument, known only at run time, so each / (and the % that reuses it) is
 * a full 32-bit unsigned division: a reciprocal on the special function
 * unit (MUFU.RCP) and about fifteen integer instructions around it. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
template <unsigned LITERAL> /* 0: the width is known only at run time */
__global__ void offsets_kernel(unsigned *sums, unsigned n, unsigned width, unsigned depth)
{
    if (LITERAL)
        width = LITERAL; /* --literal 1: the compiler sees the divisor */
    unsigned stride = gridDim.x * blockDim.x, sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned x = i % width, r = i / width;
        unsigned y = r % width;
        r /= width;
        unsigned z = r % width, t = r / width;
        sum += ((x * width + y) * width + z) * depth + t; /* offset in [x][y][z][t] */
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct decode *d = (struct decode *)data;
    void (*kernel)(unsigned *, unsigned, unsigned, unsigned) = offsets_kernel<0>;
    if (d->literal) /* create() admits only these widths with --literal 1 */
        kernel = d->width == LITERAL_WIDTH ? offsets_kernel<LITERAL_WIDTH>
                                           : offsets_kernel<LITERAL_WIDTH_POW2>;
    kernel<<<d->threads / BLOCK, BLOCK, 0, s>>>(d->sums, (unsigned)d->n, d->width, d->depth);
    CHECK_LAUNCH();
}
// [launch]

/* Warp instructions per 32 cells of this program's loop (runtime width, the
 * literal 100, the literal 64), counted from its SASS and the first edition's
 * profile: the issue roof's work. Claims issue-count-* hold the runtime figure
 * to ncu's count at the timed size. */
static void prepare(void *data)
{
    struct decode *d = (struct decode *)data;
    d->warp_insts = !d->literal ? 42 : d->width == LITERAL_WIDTH ? 20 : 11;
}

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare};
    return run_variant(argc, argv, &PROBLEM, &v);
}
