/* Every CUDA call and every launch is checked, in every build. */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <stddef.h>
#include <cuda_runtime.h>

/* Prints where and what failed, then exits: 4 for an allocation the GPU
 * cannot hold, 5 for any other CUDA error. */
void cuda_check_at(cudaError_t e, const char *what, const char *file, int line);

/* Set by the driver while it captures a run from the program's stream (common/driver.cu): a
 * cudaGraphLaunch that the capture refuses is then noted here instead of ending the program,
 * since a run that launches a graph of its own cannot be captured again. */
extern int cuda_check_capturing;
extern int cuda_check_refused_graph_launch;

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
