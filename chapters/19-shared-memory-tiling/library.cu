/* Chapter 19, library bar: cuBLAS SGEMM, held to FP32 arithmetic
 * (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores, which round the inputs to 10
 * mantissa bits), so that it does the same work as the two kernels. */
#include "problem.h"
#include "cuda_check.h"

#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

static void cublas_check(cublasStatus_t st, const char *what)
{
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "error: %s failed: %s\n", what, cublasGetStatusString(st));
        exit(EXIT_CUDA_ERROR);
    }
}

static void prepare(void *data)
{
    struct gemm *g = (struct gemm *)data;
    cublasHandle_t h;
    cublas_check(cublasCreate(&h), "cublasCreate");
    cublas_check(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    g->library = h;
}

static void run(void *data, cudaStream_t s)
{
    struct gemm *g = (struct gemm *)data;
    cublasHandle_t h = (cublasHandle_t)g->library;
    const float one = 1.0f, zero = 0.0f;
    int n = (int)g->n;
    cublas_check(cublasSetStream(h, s), "cublasSetStream");
    /* cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T,
     * so B goes first. */
    cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, g->b, n, g->a, n, &zero,
                             g->c, n),
                 "cublasSgemm");
}

static void release(void *data)
{
    struct gemm *g = (struct gemm *)data;
    cublas_check(cublasDestroy((cublasHandle_t)g->library), "cublasDestroy");
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
