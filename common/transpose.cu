/* The transpose problem of chapters 20 and 21 (transpose.h). */
#include "transpose.h"
#include "cuda_check.h"
#include "rng.h"

#include <stdlib.h>

static size_t matrix_bytes(long n) { return (size_t)n * (size_t)n * sizeof(float); }

size_t transpose_device_bytes(const struct config *c) { return 2 * matrix_bytes(c->size); }

/* Input, the downloaded output and the reference. */
size_t transpose_host_bytes(const struct config *c) { return 3 * matrix_bytes(c->size); }

void *transpose_create(const struct config *c)
{
    struct transpose *t = (struct transpose *)calloc(1, sizeof *t);
    t->n = c->size;
    t->rows = (int)c->knob[0]; /* a power of two: the kernels are compiled for those */
    size_t bytes = matrix_bytes(t->n);
    t->h_in = (float *)host_alloc(bytes);
    rng_fill_f32(t->h_in, (size_t)t->n * t->n, -1.0f, 1.0f, c->seed, 0);
    t->in = (float *)device_alloc(bytes);
    t->out = (float *)device_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(t->in, t->h_in, bytes, cudaMemcpyHostToDevice));
    return t;
}

void transpose_poison(void *data)
{
    struct transpose *t = (struct transpose *)data;
    poison_device(t->out, matrix_bytes(t->n));
}

int transpose_check(void *data, struct check_report *r)
{
    struct transpose *t = (struct transpose *)data;
    size_t n = (size_t)t->n, bytes = matrix_bytes(t->n);
    float *got = (float *)host_alloc(bytes), *ref = (float *)host_alloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, t->out, bytes, cudaMemcpyDeviceToHost));
    /* Blocked so that the reference itself stays cache-friendly on the CPU; the tiles are
     * independent, so every core takes some (OpenMP). */
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t r0 = 0; r0 < n; r0 += 64)
        for (size_t c0 = 0; c0 < n; c0 += 64)
            for (size_t r1 = r0; r1 < r0 + 64 && r1 < n; r1++)
                for (size_t c1 = c0; c1 < c0 + 64 && c1 < n; c1++)
                    ref[c1 * n + r1] = t->h_in[r1 * n + c1];
    struct tolerance tol = {CHECK_EXACT, 0, 0, 0, 0};
    check_f32(got, ref, NULL, n * n, &tol, NULL, r);
    free(got);
    free(ref);
    return r->passed;
}

/* The fewest bytes a transpose must move: read every element, write it once. */
double transpose_bytes(const void *data)
{
    return 2.0 * matrix_bytes(((const struct transpose *)data)->n);
}

double transpose_flops(const void *data) { (void)data; return 0; }

void transpose_destroy(void *data)
{
    struct transpose *t = (struct transpose *)data;
    CUDA_CHECK(cudaFree(t->in));
    CUDA_CHECK(cudaFree(t->out));
    free(t->h_in);
    free(t);
}
