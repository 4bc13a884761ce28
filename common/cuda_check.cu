#include "cuda_check.h"
#include "chapter.h"

#include <stdio.h>
#include <stdlib.h>

void cuda_check_at(cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    if (e == cudaErrorMemoryAllocation) {
        fprintf(stderr, "error: the GPU ran out of memory in %s (%s:%d); try a smaller --size\n",
                what, file, line);
        exit(EXIT_TOO_LARGE);
    }
    fprintf(stderr, "error: CUDA call failed: %s\n  %s at %s:%d\n", cudaGetErrorString(e), what,
            file, line);
    exit(EXIT_CUDA_ERROR);
}

void *device_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
}

void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: could not allocate %.2f GiB of host memory; try a smaller --size\n",
                bytes / 1073741824.0);
        exit(EXIT_TOO_LARGE);
    }
    return p;
}

void *pinned_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
}

void poison_device(void *p, size_t bytes)
{
    CUDA_CHECK(cudaMemset(p, 0xFF, bytes));
}
