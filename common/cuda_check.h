/* Every CUDA call and every launch is checked, in every build. */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <stddef.h>
#include <cuda_runtime.h>

/* Prints where and what failed, then exits: 4 for an allocation the GPU
 * cannot hold, 5 for any other CUDA error. */
void cuda_check_at(cudaError_t e, const char *what, const char *file, int line);

#define CUDA_CHECK(call) cuda_check_at((call), #call, __FILE__, __LINE__)
/* After every kernel launch: catches bad configurations at once. */
#define CHECK_LAUNCH() cuda_check_at(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* Allocations that exit with a clear message instead of returning NULL. */
void *device_alloc(size_t bytes);
void *host_alloc(size_t bytes);
/* Page-locked host memory (cudaMallocHost). */
void *pinned_alloc(size_t bytes);

/* Fill device memory with 0xFF bytes: a NaN as float, -1 as an integer. */
void poison_device(void *p, size_t bytes);

#endif
