/* Accuracy tables, the GPU side: runs a chapter's functions kernel on a grid
 * of arguments (see accuracy.h). */
#include "accuracy.h"
#include "cuda_check.h"

void accuracy_eval(const void *kernel, const float *in, int ins, float *out, int outs, int n,
                   int arg)
{
    const int block = 256;
    float *d_in = (float *)device_alloc((size_t)ins * n * sizeof(float));
    float *d_out = (float *)device_alloc((size_t)outs * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)ins * n * sizeof(float), cudaMemcpyHostToDevice));
    const float *cin = d_in;
    void *args[] = {&d_out, &cin, &n, &arg};
    CUDA_CHECK(cudaLaunchKernel(kernel, dim3((n + block - 1) / block), dim3(block), args, 0, 0));
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)outs * n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}
