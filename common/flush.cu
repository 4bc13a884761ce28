#include "flush.h"
#include "cuda_check.h"

/* Reads every 16-byte word; writes only if the sum hits a value the data
 * never produces, so the compiler cannot drop the loads. */
__global__ void l2_flush_kernel(const int4 *buf, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x13572468)
        *sink = acc;
}

void l2_flusher_init(struct l2_flusher *f, size_t l2_bytes)
{
    f->bytes = 2 * (l2_bytes ? l2_bytes : ((size_t)64 << 20));
    f->buf = device_alloc(f->bytes);
    f->sink = (int *)device_alloc(sizeof(int));
    CUDA_CHECK(cudaMemset(f->buf, 0x5A, f->bytes));
}

void l2_flush(const struct l2_flusher *f, cudaStream_t s)
{
    l2_flush_kernel<<<1024, 256, 0, s>>>((const int4 *)f->buf, f->bytes / sizeof(int4), f->sink);
    CHECK_LAUNCH();
}

void l2_flusher_free(struct l2_flusher *f)
{
    CUDA_CHECK(cudaFree(f->buf));
    CUDA_CHECK(cudaFree(f->sink));
    f->buf = NULL;
}
