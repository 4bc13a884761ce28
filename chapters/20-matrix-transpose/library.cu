/* Chapter 20, library bar: cuBLAS's out-of-place transpose (cublasSgeam with
 * alpha = 1, beta = 0), the vendor's tuned answer to the same problem. */
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
    struct transpose *t = (struct transpose *)data;
    cublasHandle_t h;
    cublas_check(cublasCreate(&h), "cublasCreate");
    t->library = h;
}

static void run(void *data, cudaStream_t s)
{
    struct transpose *t = (struct transpose *)data;
    cublasHandle_t h = (cublasHandle_t)t->library;
    const float one = 1.0f, zero = 0.0f;
    int n = (int)t->n;
    cublas_check(cublasSetStream(h, s), "cublasSetStream");
    /* Column-major C = A^T is row-major out = in^T for a square matrix.
     * With beta = 0 the second operand is not read. */
    cublas_check(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, t->in, n, &zero, t->in, n,
                             t->out, n),
                 "cublasSgeam");
}

static void release(void *data)
{
    struct transpose *t = (struct transpose *)data;
    cublas_check(cublasDestroy((cublasHandle_t)t->library), "cublasDestroy");
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
