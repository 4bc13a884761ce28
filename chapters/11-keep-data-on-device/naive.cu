/* Chapter 11, naive: the grid goes to the device once and the stencil runs
 * there, but the host computes the norm of each step's change. So every step
 * brings the whole new grid back over the link, and the host's cores (all of
 * them) read it and the previous grid, which the host already holds, to
 * produce one number. */
#include "problem.h"
#include "cuda_check.h"

// [solve]
static void run(void *data, cudaStream_t s)
{
    struct stencil *g = (struct stencil *)data;
    size_t bytes = grid_bytes(g), cells = (size_t)g->n * (size_t)g->n;
    (void)s; /* cudaMemcpy and the launches use the default stream */
    float *prev = g->d_a, *next = g->d_b;
    const float *h_prev = g->h_grid;
    CUDA_CHECK(cudaMemcpy(prev, g->h_grid, bytes, cudaMemcpyHostToDevice));
    g->steps_done = 0;
    for (int k = 0; k < g->steps; k++) {
        stencil_step(next, prev, g->n);
        float *h_next = g->h_work[k % 2];
        CUDA_CHECK(cudaMemcpy(h_next, next, bytes, cudaMemcpyDeviceToHost));
        g->norm[k] = host_norm(h_next, h_prev, cells);
        g->steps_done = k + 1;
        float *t = prev;
        prev = next;
        next = t;
        h_prev = h_next;
        if (g->norm[k] <= g->stop_norm) /* converged: the host decides */
            break;
    }
    g->result = (float *)h_prev; /* the host already holds the final grid */
}
// [solve]

static void release(void *data) { report_steps((struct stencil *)data); }

int main(int argc, char **argv)
{
    static const struct variant v = {"naive", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
