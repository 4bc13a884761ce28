/* The checker: planted failures of every kind must be caught, and results
 * just inside a tolerance must pass. */
#include "../../common/check.h"
#include "unit.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define N 1000

static float got[N], ref32[N];
static double ref64[N], bound[N];

static void fresh(void)
{
    for (int i = 0; i < N; i++) {
        ref32[i] = (float)(i * 0.37 - 100.0);
        ref64[i] = ref32[i];
        got[i] = ref32[i];
        bound[i] = 1e-3;
    }
}

static float poisoned(void)
{
    uint32_t u = 0xFFFFFFFFu; /* what poison_device writes */
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The same report, field by field. */
static int same_report(const struct check_report *a, const struct check_report *b)
{
    if (a->mode != b->mode || a->n != b->n || a->bad != b->bad || a->worst != b->worst ||
        a->nfirst != b->nfirst || a->passed != b->passed ||
        memcmp(&a->max_abs, &b->max_abs, sizeof a->max_abs) != 0 ||
        memcmp(&a->max_ulp, &b->max_ulp, sizeof a->max_ulp) != 0 ||
        memcmp(&a->rel_l2, &b->rel_l2, sizeof a->rel_l2) != 0)
        return 0;
    for (int k = 0; k < a->nfirst; k++)
        if (a->first_index[k] != b->first_index[k] ||
            memcmp(&a->first_got[k], &b->first_got[k], sizeof(double)) != 0)
            return 0;
    return 1;
}

/* A check spread over threads in chunks: one thread and seven give the same report, bit for
 * bit, with failures planted in several chunks (the first, the worst, a NaN, the last). */
static void test_threads(void)
{
    const size_t n = 1000003;
    float *g = malloc(n * sizeof *g), *e = malloc(n * sizeof *e);
    double *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        e[i] = (float)((double)(i % 9973) * 0.001 - 3.0);
        g[i] = nextafterf(e[i], 10.0f); /* one ulp off everywhere: the L2 sum is not zero */
        b[i] = 1e-3;
    }
    g[70000] += 0.5f;
    g[300001] = NAN;
    g[650000] += 2.0f;
    g[n - 1] += 0.25f;
    struct tolerance tols[] = {{CHECK_ULP, 2, 0, 0, 0}, {CHECK_ABS_REL, 0, 1e-6, 1e-5, 0},
                               {CHECK_REL_L2, 0, 0, 0, 1e-3}, {CHECK_BOUND, 0, 0, 0, 0}};
    for (int k = 0; k < 4; k++) {
        struct check_report one, many;
        omp_set_num_threads(1);
        check_f32(g, e, NULL, n, &tols[k], b, &one);
        omp_set_num_threads(7);
        check_f32(g, e, NULL, n, &tols[k], b, &many);
        EXPECT(same_report(&one, &many));
        EXPECT(!one.passed);
        if (tols[k].mode != CHECK_REL_L2)
            EXPECT(one.bad == 4 && one.first_index[0] == 70000 && one.first_index[3] == n - 1);
        EXPECT(one.worst == 300001); /* the NaN's error is infinite */
    }
    /* Integers: a difference in the last chunk alone, found with one thread and with many. */
    int32_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        x[i] = y[i] = (int32_t)(i * 2654435761u);
    y[n - 2] ^= 1;
    struct check_report one, many;
    omp_set_num_threads(1);
    check_bytes(x, y, n, sizeof *x, &one);
    omp_set_num_threads(7);
    check_bytes(x, y, n, sizeof *x, &many);
    EXPECT(same_report(&one, &many));
    EXPECT(one.bad == 1 && one.first_index[0] == n - 2 && one.worst == n - 2);
    free(g); free(e); free(b); free(x); free(y);
}

/* The definition: for |x| = m 2^e with m in [0.5, 1), the spacing of floats is 2^(e-24), and
 * 2^-149 below the smallest normal float. ulp_f32_at reads it from the bits; it must agree
 * with frexp and ldexp on every binade a double has, at both ends of each and in between. */
static double ulp_by_frexp(double x)
{
    int e = 0;
    x = fabs(x);
    if (x < 0x1.0p-126)
        return 0x1.0p-149;
    frexp(x, &e);
    return ldexp(1.0, e - 24);
}

static void test_ulp_definition(void)
{
    int wrong = 0;
    uint64_t s = 12345;
    for (int e = -1074; e <= 1023; e++) {
        double lo = ldexp(1.0, e), hi = nextafter(ldexp(1.0, e + 1), 0);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double mid = lo * (1.0 + (double)(s >> 11) * 0x1.0p-53);
        double xs[6] = {lo, hi, mid, -lo, -hi, -mid};
        for (int k = 0; k < 6; k++)
            wrong += ulp_f32_at(xs[k]) != ulp_by_frexp(xs[k]);
    }
    wrong += ulp_f32_at(0.0) != 0x1.0p-149 || ulp_f32_at(INFINITY) != ulp_by_frexp(INFINITY);
    EXPECT(wrong == 0);
}

int main(void)
{
    struct check_report r;
    struct tolerance exact = {CHECK_EXACT, 0, 0, 0, 0};
    struct tolerance ulp2 = {CHECK_ULP, 2, 0, 0, 0};
    struct tolerance absrel = {CHECK_ABS_REL, 0, 1e-6, 1e-5, 0};
    struct tolerance l2 = {CHECK_REL_L2, 0, 0, 0, 1e-6};
    struct tolerance per = {CHECK_BOUND, 0, 0, 0, 0};

    fresh();
    check_f32(got, ref32, NULL, N, &exact, NULL, &r);
    EXPECT(r.passed && r.bad == 0 && r.max_abs == 0);

    /* A planted wrong element is found, with its index. */
    got[123] = nextafterf(got[123], INFINITY);
    check_f32(got, ref32, NULL, N, &exact, NULL, &r);
    EXPECT(!r.passed && r.bad == 1 && r.nfirst == 1 && r.first_index[0] == 123);
    /* ...and is within 2 ulp. */
    check_f32(got, ref32, NULL, N, &ulp2, NULL, &r);
    EXPECT(r.passed && r.max_ulp == 1);

    /* Just inside and just outside an ulp tolerance. */
    fresh();
    got[500] = nextafterf(nextafterf(ref32[500], INFINITY), INFINITY); /* 2 ulp */
    check_f32(got, ref32, NULL, N, &ulp2, NULL, &r);
    EXPECT(r.passed && r.max_ulp == 2);
    got[500] = nextafterf(got[500], INFINITY); /* 3 ulp */
    check_f32(got, ref32, NULL, N, &ulp2, NULL, &r);
    EXPECT(!r.passed && r.bad == 1 && r.worst == 500);

    /* An unwritten (poisoned) element fails every mode. */
    fresh();
    got[0] = poisoned();
    EXPECT(isnan(got[0]));
    check_f32(got, ref32, NULL, N, &exact, NULL, &r);
    EXPECT(!r.passed && r.bad == 1);
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(!r.passed);
    check_f32(got, NULL, ref64, N, &l2, NULL, &r);
    EXPECT(!r.passed);

    /* NaN passes only where the reference is NaN. */
    fresh();
    got[9] = NAN;
    ref32[9] = NAN;
    ref64[9] = NAN;
    check_f32(got, ref32, NULL, N, &exact, NULL, &r);
    EXPECT(r.passed);
    check_f32(got, NULL, ref64, N, &ulp2, NULL, &r);
    EXPECT(r.passed);
    got[9] = 1.0f; /* a number where NaN was expected */
    check_f32(got, NULL, ref64, N, &ulp2, NULL, &r);
    EXPECT(!r.passed);

    /* Infinities must match, sign included. */
    fresh();
    got[3] = INFINITY;
    ref64[3] = INFINITY;
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(r.passed);
    got[3] = -INFINITY;
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(!r.passed);
    got[3] = 3.4e38f; /* finite where infinity was expected */
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(!r.passed);

    /* abs + rel: the edge of the tolerance. */
    fresh();
    ref64[10] = 1000.0;
    got[10] = (float)(1000.0 + 0.5 * (1e-6 + 1e-5 * 1000.0));
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(r.passed);
    got[10] = (float)(1000.0 + 2.0 * (1e-6 + 1e-5 * 1000.0));
    check_f32(got, NULL, ref64, N, &absrel, NULL, &r);
    EXPECT(!r.passed && r.first_index[0] == 10);

    /* Relative L2: one large error in a long vector. */
    fresh();
    check_f32(got, NULL, ref64, N, &l2, NULL, &r);
    EXPECT(r.passed && r.rel_l2 == 0);
    got[77] += 1.0f;
    check_f32(got, NULL, ref64, N, &l2, NULL, &r);
    EXPECT(!r.passed && r.rel_l2 > 1e-6);

    /* Per-element bounds. */
    fresh();
    got[5] = (float)(ref64[5] + 0.5e-3);
    check_f32(got, NULL, ref64, N, &per, bound, &r);
    EXPECT(r.passed);
    bound[5] = 1e-4;
    check_f32(got, NULL, ref64, N, &per, bound, &r);
    EXPECT(!r.passed && r.bad == 1);

    /* Integers, bit for bit; an empty comparison never passes. */
    int32_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
    check_bytes(a, b, 4, sizeof a[0], &r);
    EXPECT(r.passed);
    a[2] = -1;
    check_bytes(a, b, 4, sizeof a[0], &r);
    EXPECT(!r.passed && r.bad == 1 && r.first_index[0] == 2 && r.first_got[0] == -1);
    check_bytes(a, b, 0, sizeof a[0], &r);
    EXPECT(!r.passed);

    /* ulp distance against a double reference. */
    EXPECT(ulp_distance_f32(1.0f, 1.0) == 0);
    EXPECT(ulp_distance_f32(nextafterf(1.0f, 2.0f), 1.0) == 1);
    EXPECT(ulp_distance_f32(0x1p-149f, 0.0) == 1); /* smallest subnormal */

    /* One ulp: 2^-23 in [1, 2), 2^-24 in [0.5, 1). A bound of k ulps is
     * k + 1/2 of them, in the ulp of the far end when it crosses 2^e. */
    EXPECT(ulp_f32_at(1.0) == 0x1p-23 && ulp_f32_at(0.75) == 0x1p-24);
    EXPECT(ulp_f32_at(-1.5) == 0x1p-23 && ulp_f32_at(0x1p-130) == 0x1p-149);
    EXPECT(ulps_f32_bound(1.5, 2) == 2.5 * 0x1p-23);
    EXPECT(ulps_f32_bound(2.0 - 0x1p-23, 2) == 2.5 * 0x1p-22);
    test_ulp_definition();

    /* Pooled references: 3 elements of width 2 drawn from a pool of 2. */
    {
        const int32_t pick[3] = {1, 0, 1};
        const double pref[4] = {10, 20, 30, 40}, pbound[4] = {1, 1, 2, 4};
        float pg[6] = {30, 40, 10, 20, 31, 42};
        double w = check_pooled_f32(pg, 3, 2, pick, pref, pbound, &r);
        EXPECT(r.passed && r.n == 6 && w == 0.5);  /* 31 is half of 2 from 30 */
        pg[3] = 22; /* element 1's second float holds pool 0's 20, bound 1 */
        w = check_pooled_f32(pg, 3, 2, pick, pref, pbound, &r);
        EXPECT(!r.passed && r.bad == 1 && r.first_index[0] == 3 && w == 2);
        pg[3] = 20;
        pg[2] = 30; /* a value right for pool 1 is wrong where pick says 0 */
        w = check_pooled_f32(pg, 3, 2, pick, pref, pbound, &r);
        EXPECT(!r.passed && r.first_index[0] == 2);
        pg[2] = NAN;
        w = check_pooled_f32(pg, 3, 2, pick, pref, pbound, &r);
        EXPECT(!r.passed && w != w);
    }
    test_threads();
    return UNIT_REPORT();
}
