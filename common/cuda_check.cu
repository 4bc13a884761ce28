#include "cuda_check.h"
#include "chapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cuda_check_capturing = 0;
int cuda_check_refused_graph_launch = 0;

void cuda_check_at(cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    if (cuda_check_capturing && e == cudaErrorStreamCaptureUnsupported
        && strncmp(what, "cudaGraphLaunch(", 16) == 0) {
        cuda_check_refused_graph_launch = 1;
        return;
    }
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

/* A large malloc'd block is mapped but not yet backed: each page faults on its first write.
 * The checks download a GPU result into such a block (cudaMemcpy from the device to pageable
 * memory), and there the driver meets every fault on one thread: on the H100 reference
 * machine such a download took many times as long as one into touched pages, the faults
 * costing far more than the copy. Writing one byte of every 4 KiB first, on all cores, takes
 * the faults in parallel (with larger pages some writes land on a page already touched).
 * The contents stay unspecified, as malloc's are, and the block is the same memory
 * afterwards: a timed transfer from or to it (chapter 13's pageable staging) meets touched
 * pages either way once warm-up has run. Below 16 MiB the faults cost too little to matter. */
static void prefault(void *p, size_t bytes)
{
    const size_t page = 4096, small = (size_t)1 << 24;
    if (bytes < small)
        return;
    volatile unsigned char *b = (volatile unsigned char *)p;
    long pages = (long)((bytes + page - 1) / page);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < pages; i++)
        b[(size_t)i * page] = 0;
}

void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: could not allocate %.2f GiB of host memory; try a smaller --size\n",
                bytes / 1073741824.0);
        exit(EXIT_TOO_LARGE);
    }
    prefault(p, bytes);
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
