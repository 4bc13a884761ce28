/* Chapter 11, optimized: the grid goes to the device once and stays there.
 * Each step runs the stencil and the norm on the device, and only the norm,
 * one double, comes back for the host's decision. The final grid comes back
 * once, at the end. */
#include "problem.h"
#include "cuda_check.h"

// [solve]
static void run(void *data, cudaStream_t s)
{
    struct stencil *g = (struct stencil *)data;
    size_t bytes = grid_bytes(g);
    (void)s; /* cudaMemcpy and the launches use the default stream */
    float *prev = g->d_a, *next = g->d_b;
    CUDA_CHECK(cudaMemcpy(prev, g->h_grid, bytes, cudaMemcpyHostToDevice));
    g->steps_done = 0;
    for (int k = 0; k < g->steps; k++) {
        stencil_step(next, prev, g->n);
        device_norm(g, next, prev);
        CUDA_CHECK(cudaMemcpy(&g->norm[k], g->d_norm, sizeof(double), cudaMemcpyDeviceToHost));
        g->steps_done = k + 1;
        float *t = prev;
        prev = next;
        next = t;
        if (g->norm[k] <= g->stop_norm) /* converged: the host decides */
            break;
    }
    CUDA_CHECK(cudaMemcpy(g->h_work[0], prev, bytes, cudaMemcpyDeviceToHost));
    g->result = g->h_work[0];
}
// [solve]

static void release(void *data) { report_steps((struct stencil *)data); }

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, NULL, release};
    return run_variant(argc, argv, &PROBLEM, &v);
}
