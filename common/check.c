#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

const char *check_mode_name(enum check_mode m)
{
    switch (m) {
    case CHECK_EXACT: return "bit-exact";
    case CHECK_ULP: return "ulp";
    case CHECK_ABS_REL: return "abs+rel";
    case CHECK_REL_L2: return "relative L2";
    case CHECK_BOUND: return "per-element bound";
    }
    return "?";
}

/* Spacing of floats at |x|: 2^(e-24) for |x| in [2^(e-1), 2^e), 2^-149 below FLT_MIN. */
double ulp_f32_at(double x)
{
    x = fabs(x);
    if (x < 0x1.0p-126)
        return 0x1.0p-149;
    /* x in [2^(E-1023), 2^(E-1022)) for the biased exponent E, so the spacing is
     * 2^(E-1023-23): a double with biased exponent E-23 and no fraction. Read from the bits
     * rather than by frexp and ldexp because the checks ask for every element. */
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    uint64_t e = u >> 52;
    if (e == 0x7FF) { /* infinity or NaN: what frexp and ldexp make of it */
        int k = 0;
        frexp(x, &k);
        return ldexp(1.0, k - 1 - 23);
    }
    u = (e - 23) << 52;
    memcpy(&x, &u, sizeof x);
    return x;
}

double ulp_distance_f32(float got, double ref)
{
    return fabs((double)got - ref) / ulp_f32_at(ref);
}

double ulps_f32_bound(double v, double units)
{
    double w = (units + 0.5) * ulp_f32_at(v);
    return (units + 0.5) * ulp_f32_at(fabs(v) + w);
}

static void note_failure(struct check_report *r, size_t i, double got, double ref)
{
    if (r->nfirst < CHECK_FIRST) {
        r->first_index[r->nfirst] = i;
        r->first_got[r->nfirst] = got;
        r->first_ref[r->nfirst] = ref;
        r->nfirst++;
    }
    r->bad++;
}

static void report_init(struct check_report *r, enum check_mode mode, size_t n)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    r->n = n;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The comparison runs on all cores (OpenMP) in fixed chunks of CHECK_CHUNK elements, each
 * into its own partial report; the partials are merged in chunk order. The chunks do not
 * depend on the number of threads, so neither does any bit of the report (the L2 sums are
 * added in the same order every time). */
#define CHECK_CHUNK ((size_t)1 << 16)

struct partial {
    struct check_report r;
    double err2, ref2, worst_err;
};

static void check_f32_range(const float *got, const float *ref32, const double *ref64,
                            size_t lo, size_t hi, const struct tolerance *t,
                            const double *bound, struct partial *c)
{
    struct check_report *r = &c->r;
    for (size_t i = lo; i < hi; i++) {
        double g = got[i];
        double ref = ref64 ? ref64[i] : (double)ref32[i];
        int ok;
        double err = 0;
        if (isnan(ref) || isnan(g) || isinf(ref) || isinf(g)) {
            /* NaN only where NaN is expected; infinities must match. */
            ok = (isnan(ref) && isnan(g)) || (!isnan(ref) && g == ref);
            if (!ok)
                err = INFINITY;
        } else {
            err = fabs(g - ref);
            c->err2 += err * err;
            c->ref2 += ref * ref;
            double ulps = ulp_distance_f32(got[i], ref);
            if (ulps > r->max_ulp)
                r->max_ulp = ulps;
            switch (t->mode) {
            case CHECK_EXACT:
                ok = bits_of(got[i]) == bits_of(ref64 ? (float)ref : ref32[i]);
                break;
            case CHECK_ULP: ok = ulps <= t->ulp; break;
            case CHECK_ABS_REL: ok = err <= t->abs + t->rel * fabs(ref); break;
            case CHECK_BOUND: ok = err <= bound[i]; break;
            default: ok = 1; break; /* CHECK_REL_L2 is decided on the whole array */
            }
        }
        if (err > r->max_abs || (isinf(err) && !isinf(r->max_abs)))
            r->max_abs = err;
        if (err > c->worst_err) {
            c->worst_err = err;
            r->worst = i;
        }
        if (!ok)
            note_failure(r, i, g, ref);
    }
}

/* Fold chunk c (the next in index order) into the whole report. */
static void merge_partial(struct partial *all, const struct partial *c)
{
    struct check_report *r = &all->r;
    const struct check_report *p = &c->r;
    for (int k = 0; k < p->nfirst && r->nfirst < CHECK_FIRST; k++) {
        r->first_index[r->nfirst] = p->first_index[k];
        r->first_got[r->nfirst] = p->first_got[k];
        r->first_ref[r->nfirst] = p->first_ref[k];
        r->nfirst++;
    }
    r->bad += p->bad;
    if (p->max_abs > r->max_abs || (isinf(p->max_abs) && !isinf(r->max_abs)))
        r->max_abs = p->max_abs;
    if (p->max_ulp > r->max_ulp)
        r->max_ulp = p->max_ulp;
    if (c->worst_err > all->worst_err) {
        all->worst_err = c->worst_err;
        r->worst = p->worst;
    }
    all->err2 += c->err2;
    all->ref2 += c->ref2;
}

void check_f32(const float *got, const float *ref32, const double *ref64, size_t n,
               const struct tolerance *t, const double *bound, struct check_report *r)
{
    size_t chunks = (n + CHECK_CHUNK - 1) / CHECK_CHUNK;
    struct partial *part = (struct partial *)calloc(chunks ? chunks : 1, sizeof *part);
    if (!part) {
        fprintf(stderr, "error: out of host memory for the check\n");
        exit(1);
    }
#pragma omp parallel for schedule(dynamic)
    for (size_t k = 0; k < chunks; k++) {
        size_t lo = k * CHECK_CHUNK, hi = lo + CHECK_CHUNK < n ? lo + CHECK_CHUNK : n;
        report_init(&part[k].r, t->mode, hi - lo);
        part[k].worst_err = -1;
        check_f32_range(got, ref32, ref64, lo, hi, t, bound, &part[k]);
    }
    struct partial all;
    memset(&all, 0, sizeof all);
    report_init(&all.r, t->mode, n);
    all.worst_err = -1;
    for (size_t k = 0; k < chunks; k++)
        merge_partial(&all, &part[k]);
    free(part);
    *r = all.r;
    r->rel_l2 = all.ref2 > 0 ? sqrt(all.err2) / sqrt(all.ref2) : sqrt(all.err2);
    r->passed = r->bad == 0 && n > 0;
    if (t->mode == CHECK_REL_L2 && !(r->rel_l2 <= t->rel_l2))
        r->passed = 0;
}

/* A signed integer of 1, 2, 4 or 8 bytes, for the report (other sizes: 0). */
static double as_integer(const unsigned char *p, size_t size)
{
    int8_t a; int16_t b; int32_t c; int64_t d;
    switch (size) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    case 8: memcpy(&d, p, 8); return (double)d;
    }
    return 0;
}

void check_bytes(const void *got, const void *ref, size_t n, size_t elem_size,
                 struct check_report *r)
{
    report_init(r, CHECK_EXACT, n);
    const unsigned char *g = got, *e = ref;
    /* Whole chunks are compared on all cores; only a chunk that differs is walked element
     * by element (in order, so the report is the same whatever the number of threads). */
    size_t chunks = (n + CHECK_CHUNK - 1) / CHECK_CHUNK;
    unsigned char *differs = (unsigned char *)calloc(chunks ? chunks : 1, 1);
    if (!differs) {
        fprintf(stderr, "error: out of host memory for the check\n");
        exit(1);
    }
#pragma omp parallel for schedule(dynamic)
    for (size_t k = 0; k < chunks; k++) {
        size_t lo = k * CHECK_CHUNK, hi = lo + CHECK_CHUNK < n ? lo + CHECK_CHUNK : n;
        differs[k] = memcmp(g + lo * elem_size, e + lo * elem_size, (hi - lo) * elem_size) != 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!differs[i / CHECK_CHUNK]) {
            i = (i / CHECK_CHUNK + 1) * CHECK_CHUNK - 1; /* the chunk is equal: skip it */
            continue;
        }
        if (memcmp(g + i * elem_size, e + i * elem_size, elem_size) != 0) {
            if (r->bad == 0)
                r->worst = i;
            note_failure(r, i, as_integer(g + i * elem_size, elem_size),
                         as_integer(e + i * elem_size, elem_size));
        }
    }
    free(differs);
    r->max_abs = r->bad ? 1 : 0;
    r->passed = r->bad == 0 && n > 0;
}

void check_print(const struct check_report *r, FILE *f)
{
    fprintf(f, "check: %s, %zu elements, %zu wrong: %s\n", check_mode_name(r->mode), r->n, r->bad,
            r->passed ? "PASS" : "FAIL");
    if (r->mode != CHECK_EXACT)
        fprintf(f, "check: max abs error %.3g, max %.3g ulp, relative L2 %.3g (worst at %zu)\n",
                r->max_abs, r->max_ulp, r->rel_l2, r->worst);
    for (int i = 0; i < r->nfirst; i++)
        fprintf(f, "check: element %zu is %.9g, expected %.9g\n", r->first_index[i],
                r->first_got[i], r->first_ref[i]);
    if (r->n == 0)
        fprintf(f, "check: no elements were compared\n");
}

double check_pooled_f32(const float *got, size_t n, int width, const int32_t *pick,
                        const double *pref, const double *pbound, struct check_report *r)
{
    size_t m = n * (size_t)width;
    double *ref = (double *)calloc(m ? m : 1, sizeof(double));
    double *bound = (double *)calloc(m ? m : 1, sizeof(double));
    if (!ref || !bound) {
        fprintf(stderr, "error: out of host memory for the check's %zu references\n", m);
        exit(1);
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < m; i++) {
        size_t at = (size_t)pick[i / (size_t)width] * (size_t)width + i % (size_t)width;
        ref[i] = pref[at];
        bound[i] = pbound[at];
    }
    struct tolerance tol = {CHECK_BOUND, 0, 0, 0, 0};
    check_f32(got, NULL, ref, m, &tol, bound, r);
    /* A NaN quotient (a NaN result) sticks: nothing compares greater than it. */
    double worst = 0;
    for (size_t i = 0; i < m; i++) {
        double q = fabs((double)got[i] - ref[i]) / bound[i];
        if (q > worst || q != q)
            worst = q;
    }
    free(ref);
    free(bound);
    return worst;
}
