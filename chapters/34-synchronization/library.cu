/* Chapter 34, library bar: CUB's cub::DeviceReduce::Sum (header-only, part of
 * the CUDA Toolkit) over the same input, added as unsigned ints so that it
 * wraps modulo 2^32 exactly as the pair does. Its temporary storage is sized
 * and allocated once, before the timing. */
#include "problem.h"
#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

static void prepare(void *data)
{
    struct reduction *r = (struct reduction *)data;
    /* With no storage given, CUB only says how much it needs. */
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, r->temp_bytes, (const unsigned *)r->in,
                                      (unsigned *)r->out, r->n));
    r->temp = device_alloc(r->temp_bytes > 0 ? r->temp_bytes : 1);
}

static void run(void *data, cudaStream_t s)
{
    struct reduction *r = (struct reduction *)data;
    CUDA_CHECK(cub::DeviceReduce::Sum(r->temp, r->temp_bytes, (const unsigned *)r->in,
                                      (unsigned *)r->out, r->n, s));
}

static void release(void *data)
{
    struct reduction *r = (struct reduction *)data;
    CUDA_CHECK(cudaFree(r->temp));
}

int main(int argc, char **argv)
{
    static const struct variant v = {"library", run, prepare, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
