/* Chapter 33, naive: the radius is a kernel argument, known only at run
 * time, so the tap count is too. nvcc still unrolls the loop (by four, with a
 * remainder loop for the last taps), but it cannot drop the counter, the
 * compares and the branches, and each weight is read from constant memory
 * with a computed index. */
#include "problem.h"

// [kernel]
template <int SELECT> /* --select: the padding as a select (1) or an if (0) */
__global__ void conv_kernel(float *out, const float *in, int n, int radius)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < 2 * radius + 1; k++)
        acc = tap<SELECT>(acc, c_w[k], in, i + k - radius, n);
    out[i] = acc;
}
// [kernel]

// [launch]
static void run(void *data, cudaStream_t s)
{
    struct conv *c = (struct conv *)data;
    void (*kernel)(float *, const float *, int, int) = c->select ? conv_kernel<1> : conv_kernel<0>;
    kernel<<<conv_grid(c->n), BLOCK, 0, s>>>(c->out, c->in, c->n, c->radius);
    CHECK_LAUNCH();
}
// [launch]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, upload_weights, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
