/* Chapter 23, the problem: rotate an n x n image of floats about its centre,
 * sampling the source with bilinear filtering and clamping at the edges. The
 * check compares every pixel with an exact bilinear blend in double, at the
 * very coordinates the kernels computed, and holds each program to the error
 * bound of the way it blends (see pixel_bound). */
#include "problem.h"
#include "cuda_check.h"
#include "evidence.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KNOB_ANGLE };

/* One float rounding: u = 2^-24 of the value. */
#define UNIT_ROUNDOFF 0x1.0p-24
/* The texture unit keeps each filter weight in a 9-bit fixed-point format
 * with 8 fractional bits (the guide's appendix on texture fetching, linear
 * filtering). It does not say how the weight is rounded, so the check allows
 * one full step, 2^-8; rounding to nearest would err by at most 2^-9. */
#define WEIGHT_STEP 0x1.0p-8

static size_t pitch_guess(long n) { return ((size_t)n * sizeof(float) + 511) / 512 * 512; }

static size_t device_bytes(const struct config *c)
{
    return (size_t)c->size * pitch_guess(c->size) + (size_t)c->size * c->size * sizeof(float);
}

/* Source, downloaded output (4 bytes a pixel), reference and bound (8 each), and the map of
 * sampled texels (one byte a texel, while create() counts them). */
static size_t host_bytes(const struct config *c) { return (size_t)c->size * c->size * 25; }

static int clampi(long i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : (int)i; }

/* The source texels that some output pixel blends: the four taps around each pixel's (u, v),
 * clamped as the kernels clamp them. A rotated image samples only part of its source (at 30
 * degrees about 85%: its corners fall outside, where the clamped taps repeat the edge), and
 * that part is what a program must read from DRAM: bytes() counts it, not the whole image. */
static size_t sampled_texels(const struct warp *w)
{
    size_t n = (size_t)w->n, count = 0;
    unsigned char *hit = (unsigned char *)host_alloc(n * n);
    memset(hit, 0, n * n);
#pragma omp parallel for schedule(static)
    for (long y = 0; y < (long)n; y++)
        for (int x = 0; x < w->n; x++) {
            float u, v;
            source_of(&w->rot, x, (int)y, &u, &v);
            long fu = (long)floor((double)u), fv = (long)floor((double)v);
            int x0 = clampi(fu, w->n), x1 = clampi(fu + 1, w->n);
            int y0 = clampi(fv, w->n), y1 = clampi(fv + 1, w->n);
            /* Threads mark texels of other rows: byte-sized atomic writes of the same 1. */
#pragma omp atomic write
            hit[(size_t)y0 * n + x0] = 1;
#pragma omp atomic write
            hit[(size_t)y0 * n + x1] = 1;
#pragma omp atomic write
            hit[(size_t)y1 * n + x0] = 1;
#pragma omp atomic write
            hit[(size_t)y1 * n + x1] = 1;
        }
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (long i = 0; i < (long)(n * n); i++)
        count += hit[i];
    free(hit);
    return count;
}

static void *create(const struct config *c)
{
    if (c->check_rule != RULE_FLOAT_BLEND && c->check_rule != RULE_TEXTURE) {
        fprintf(stderr, "error: this program declares no check_rule (RULE_FLOAT_BLEND or "
                        "RULE_TEXTURE in its struct variant), so no error bound applies\n");
        exit(EXIT_USAGE);
    }
    struct warp *w = (struct warp *)calloc(1, sizeof *w);
    w->n = (int)c->size;
    w->angle = (int)c->knob[KNOB_ANGLE];
    w->texture = c->check_rule == RULE_TEXTURE;
    double rad = w->angle * M_PI / 180.0;
    w->rot.cs = (float)cos(rad);
    w->rot.sn = (float)sin(rad);
    w->rot.centre = (float)(w->n - 1) / 2.0f;
    size_t n = (size_t)w->n, row = n * sizeof(float);
    w->h_in = (float *)host_alloc(n * row);
    rng_fill_f32(w->h_in, n * n, 0.0f, 1.0f, c->seed, 0); /* noise: the largest neighbour steps */
    CUDA_CHECK(cudaMallocPitch((void **)&w->in, &w->pitch, row, n));
    w->out = (float *)device_alloc(n * row);
    CUDA_CHECK(cudaMemcpy2D(w->in, w->pitch, w->h_in, row, row, n, cudaMemcpyHostToDevice));
    w->sampled = sampled_texels(w);
    return w;
}

static void poison(void *data)
{
    struct warp *w = (struct warp *)data;
    poison_device(w->out, (size_t)w->n * w->n * sizeof(float));
}

/* How far the texture unit's coordinate is from u: the kernel passes
 * fl(u + 0.5) and the unit subtracts the 0.5 again. Zero unless the sum
 * crosses into a coarser binade. */
static double offset_error(float u) { return fabs((double)(u + 0.5f) - ((double)u + 0.5)); }

/* Reference (exact bilinear blend, in double) and error bound of pixel (x, y).
 * With weights a, b (the fractional parts of u, v; exact for u, v >= 0, and
 * irrelevant below 0, where both taps clamp to the same pixel) and the four
 * clamped taps t00 t10 t01 t11, whose largest magnitude is M:
 *
 * float blend (naive.cu: top = fmaf(a, t10 - t00, t00), the same for bottom,
 * then fmaf(b, bottom - top, top)). Each lerp of exact inputs errs by at most
 * u |difference| + u |result| <= 3 u M (u = 2^-24); a lerp passes its inputs'
 * errors on with weights that sum to one, so the final lerp adds its own
 * 3 u M to at most 3 u M: 6 u M, and 7 u M covers the second-order terms.
 *
 * texture (optimized.cu): the unit blends with weights a', b' that differ from
 * a, b by at most one step of 8 fractional bits, plus the coordinate's own
 * offset error. The blend f(a, b) is linear in each weight, so
 *   f(a', b') - f(a, b) = (a' - a) f_a(b) + (b' - b) f_b(a'),
 * where |f_a| <= Dx = max(|t10 - t00|, |t11 - t01|) and |f_b| <= Dy (the same
 * down the columns) for any weights in [0, 1]. The unit's arithmetic after
 * the weights is allowed the float blend's 7 u M. */
static void pixel_reference(const struct warp *w, int x, int y, double *ref, double *bound,
                            double *diff)
{
    float u, v;
    source_of(&w->rot, x, y, &u, &v);
    double fu = floor((double)u), fv = floor((double)v);
    double a = (double)u - fu, b = (double)v - fv;
    int x0 = clampi((long)fu, w->n), x1 = clampi((long)fu + 1, w->n);
    int y0 = clampi((long)fv, w->n), y1 = clampi((long)fv + 1, w->n);
    const float *r0 = w->h_in + (size_t)y0 * w->n, *r1 = w->h_in + (size_t)y1 * w->n;
    double t00 = r0[x0], t10 = r0[x1], t01 = r1[x0], t11 = r1[x1];
    *ref = (1 - b) * ((1 - a) * t00 + a * t10) + b * ((1 - a) * t01 + a * t11);
    double m = fmax(fmax(fabs(t00), fabs(t10)), fmax(fabs(t01), fabs(t11)));
    double dx = fmax(fabs(t10 - t00), fabs(t11 - t01)), dy = fmax(fabs(t01 - t00), fabs(t11 - t10));
    double arith = 7 * UNIT_ROUNDOFF * m + 1e-12 * m; /* the reference's own rounding */
    *bound = w->texture ? (WEIGHT_STEP + offset_error(u)) * dx + (WEIGHT_STEP + offset_error(v)) * dy + arith
                        : arith;
    *diff = dx + dy;
}

/* *max = x if x is larger; a NaN, once there, sticks. */
static void keep_max(double *max, double x)
{
    if (!isnan(*max) && !(x <= *max))
        *max = x;
}

static int check(void *data, struct check_report *r)
{
    struct warp *w = (struct warp *)data;
    size_t n = (size_t)w->n, pixels = n * n;
    float *got = (float *)host_alloc(pixels * sizeof(float));
    double *ref = (double *)host_alloc(pixels * sizeof(double));
    double *bound = (double *)host_alloc(pixels * sizeof(double));
    CUDA_CHECK(cudaMemcpy(got, w->out, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    /* Besides the check: the largest error, the largest share of its own
     * bound, and the error per unit of neighbour difference (Dx + Dy) where
     * that difference is at least 1/64, so that float rounding (about 1e-7)
     * cannot pass for a weight error. For 8-bit weights that figure is the
     * weight's error: at most 2^-8, 2^-9 if the unit rounds to nearest. */
    double max_err = 0, worst_share = 0, weight_err = 0;
    /* The reference of 67M pixels in double: on every core (make results
     * runs this check once per program and configuration), each thread
     * keeping its own maxima, merged after its rows. */
#pragma omp parallel
    {
        double err = 0, share = 0, per_diff = 0;
#pragma omp for schedule(static)
        for (long y = 0; y < (long)n; y++)
            for (size_t x = 0; x < n; x++) {
                size_t i = (size_t)y * n + x;
                double d;
                pixel_reference(w, (int)x, (int)y, &ref[i], &bound[i], &d);
                double e = fabs((double)got[i] - ref[i]);
                keep_max(&err, e);
                keep_max(&share, e / bound[i]);
                if (d >= 1.0 / 64)
                    keep_max(&per_diff, e / d);
            }
#pragma omp critical
        {
            keep_max(&max_err, err);
            keep_max(&worst_share, share);
            keep_max(&weight_err, per_diff);
        }
    }
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, pixels, &tol, bound, r);
    printf("check: %s bound; worst pixel used %.1f%% of its bound\n",
           w->texture ? "8-bit filter weights" : "float blending", 100 * worst_share);
    evidence_print("max_abs_error", max_err, "abs");
    evidence_print("weight_error", weight_err, "per_diff");
    evidence_print("share_of_bound", worst_share, "ratio");
    evidence_print("sampled_texels", (double)w->sampled, "texels"); /* bytes() counts them */
    free(got);
    free(ref);
    free(bound);
    return r->passed;
}

/* The bytes that must move: the output written once, and the sampled texels read once
 * (sampled_texels; a filter reads each of them as a tap of about four output pixels, and the
 * caches absorb that). Counting the whole image instead would credit the programs with reads
 * no program makes (some 15% at 30 degrees), and a program at the DRAM's rate would then
 * show above the copy roof. */
static double bytes(const void *data)
{
    const struct warp *w = (const struct warp *)data;
    return sizeof(float) * ((double)w->n * w->n + (double)w->sampled);
}

static double flops(const void *data) { (void)data; return 0; }

static void destroy(void *data)
{
    struct warp *w = (struct warp *)data;
    CUDA_CHECK(cudaFree(w->in));
    CUDA_CHECK(cudaFree(w->out));
    free(w->h_in);
    free(w);
}

const struct problem PROBLEM = {
    .number = 23,
    .slug = "texture-memory",
    .title = "Texture memory: hardware bilinear filtering and clamping",
    .section = "5.3.2",
    .size_help = "image side n: an n x n float image is rotated (8192: 256 MiB each way)",
    .default_size = 8192,
    .small_size = 1000,
    .odd_size = 1531,
    .min_size = 1,
    .max_size = 16384,
    .knobs = {{"angle", "rotation in degrees, both programs", 30, 0, 360}},
    .nknobs = 1,
    .test_options = {"--angle 0", "--angle 45", "--angle 90"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    .ncu_metrics = "gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,"
                   "dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                   "sm__sass_inst_executed_op_texture.sum,"
                   "l1tex__t_sectors_pipe_tex_mem_texture.sum,"
                   /* What limits each path: the stall reasons per issued instruction
                    * (a full TEX queue, waiting on L1TEX results, a full LSU queue),
                    * and how busy the TEX pipe, the L1TEX unit, the schedulers and
                    * DRAM are. */
                   "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,"
                   "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,"
                   "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active,"
                   "l1tex__throughput.avg.pct_of_peak_sustained_active,"
                   /* The texture unit's filter stage, and the warps resident per SM (the
                    * threads whose fetches can be in flight at once). */
                   "l1tex__f_wavefronts.avg.pct_of_peak_sustained_elapsed,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active,"
                   "smsp__issue_active.avg.pct_of_peak_sustained_active,"
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    /* Nearly along the rows, and nearly down the columns, of the source. */
    .sweeps = {"--angle 5", "--angle 85"},
    .device_bytes = device_bytes,
    .host_bytes = host_bytes,
    .create = create,
    .poison = poison,
    .check = check,
    .bytes = bytes,
    .flops = flops,
    .destroy = destroy,
};
