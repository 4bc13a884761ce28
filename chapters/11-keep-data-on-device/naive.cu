/* Chapter 11, naive: the host owns the grid. Each step sends it to the
 * device, runs the stencil, brings the new grid back, and computes the norm
 * of the change on the host, which already holds the old grid. Two full
 * copies of the grid cross the link every step, and one CPU core reads both
 * grids to produce one number. */
#include "problem.h"
#include "cuda_check.h"

// [solve]
static void run(void *data, cudaStream_t s)
{
    struct stencil *g = (struct stencil *)data;
    size_t bytes = grid_bytes(g), cells = (size_t)g->n * (size_t)g->n;
    (void)s; /* cudaMemcpy and the launches use the default stream */
    const float *prev = g->h_grid;
    g->steps_done = 0;
    for (int k = 0; k < g->steps; k++) {
        float *next = g->h_work[k % 2];
        CUDA_CHECK(cudaMemcpy(g->d_a, prev, bytes, cudaMemcpyHostToDevice));
        stencil_step(g->d_b, g->d_a, g->n);
        CUDA_CHECK(cudaMemcpy(next, g->d_b, bytes, cudaMemcpyDeviceToHost));
        g->norm[k] = host_norm(next, prev, cells);
        g->steps_done = k + 1;
        prev = next;
        if (g->norm[k] <= g->stop_norm) /* converged: the host decides */
            break;
    }
    g->result = (float *)prev;
}
// [solve]

static void release(void *data) { report_steps((struct stencil *)data); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
