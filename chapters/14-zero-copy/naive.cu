/* Chapter 14, naive: the rows the kernel needs are brought to device memory
 * first. A sparse selection is gathered on the host, on every core, into one
 * pinned buffer (so that it crosses the link as one copy, chapter 12); every
 * row in order is copied as it lies; then the kernel reads device memory. */
#include "problem.h"
#include "cuda_check.h"

// [read]
/* Untimed: a pinned buffer for the gathered rows and their device copy. */
static void prepare(void *data)
{
    struct table *t = (struct table *)data;
    if (t->idx)
        t->staging = (float *)pinned_alloc(selected_bytes(t));
    t->d_rows = (float *)device_alloc(selected_bytes(t));
}

/* Timed: gather (if some rows), one copy, the kernel on device memory. */
static void run(void *data, cudaStream_t s)
{
    struct table *t = (struct table *)data;
    (void)s; /* cudaMemcpy and the launch use the default stream */
    const float *rows = t->host; /* every row, in order: the table is the batch */
    if (t->idx) {
        gather_rows(t, t->staging, 1); /* every host core */
        rows = t->staging;
    }
    CUDA_CHECK(cudaMemcpy(t->d_rows, rows, selected_bytes(t), cudaMemcpyHostToDevice));
    row_sums(t, t->d_rows, NULL);
}

static void release(void *data)
{
    struct table *t = (struct table *)data;
    if (t->idx)
        CUDA_CHECK(cudaFreeHost(t->staging));
    CUDA_CHECK(cudaFree(t->d_rows));
    report_zero_copy(t);
}
// [read]

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
