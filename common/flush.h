/* Cold-L2 timing: before each sample, read a buffer twice the L2's size so
 * that nothing the timed work touched is still cached. Reads leave clean
 * lines, so no write-back of the flush lands inside the timed region. */
#ifndef COMMON_FLUSH_H
#define COMMON_FLUSH_H

#include <stddef.h>
#include <cuda_runtime.h>

struct l2_flusher {
    void *buf;
    size_t bytes;
    int *sink;
};

void l2_flusher_init(struct l2_flusher *f, size_t l2_bytes);
void l2_flush(const struct l2_flusher *f, cudaStream_t s);
void l2_flusher_free(struct l2_flusher *f);

#endif
