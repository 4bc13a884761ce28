/* Chapter 29, optimized: the same decode with the division by the width
 * replaced by a multiply with its precomputed reciprocal (struct divider,
 * computed once on the host): a high multiply, an add and a shift per
 * quotient, and a multiply-subtract for the remainder. Nothing on the
 * special function unit, no conversions, no correction steps. */
#include "problem.h"
#include "cuda_check.h"

// [kernel]
/* n / w.d for n < 2^31, and the remainder. */
static __device__ __forceinline__ unsigned divmod(unsigned n, struct divider w, unsigned *rem)
{
    unsigned q = (__umulhi(n, w.m) + n) >> w.s;
    *rem = n - q * w.d;
    return q;
}

template <unsigned LITERAL> /* 0: the width is known only at run time */
__global__ void offsets_kernel(unsigned *sums, unsigned n, struct divider w, unsigned depth)
{
    if (LITERAL)
        w = divider_of(LITERAL); /* --literal 1: the compiler sees the divisor */
    unsigned stride = gridDim.x * blockDim.x, sum = 0, width = w.d;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned x, y, z;
        unsigned r = divmod(i, w, &x);
        r = divmod(r, w, &y);
        unsigned t = divmod(r, w, &z);
        sum += ((x * width + y) * width + z) * depth + t; /* offset in [x][y][z][t] */
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct decode *d = (struct decode *)data;
    void (*kernel)(unsigned *, unsigned, struct divider, unsigned) = offsets_kernel<0>;
    if (d->literal) /* create() admits only these widths with --literal 1 */
        kernel = d->width == LITERAL_WIDTH ? offsets_kernel<LITERAL_WIDTH>
                                           : offsets_kernel<LITERAL_WIDTH_POW2>;
    kernel<<<d->threads / BLOCK, BLOCK, 0, s>>>(d->sums, (unsigned)d->n, divider_of(d->width),
                                                d->depth);
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
    d->warp_insts = !d->literal ? 21 : d->width == LITERAL_WIDTH ? 21 : 16;
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare};
    return run_variant(argc, argv, &PROBLEM, &v);
}
