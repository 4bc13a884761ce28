/* Pool-and-pick inputs: picks stay in the pool, cover it, repeat with the
 * seed; spread copies the picked values; the check computes every pool
 * value's reference once and holds each element to its own value's bound. */
/* needs: rng check */
#include "../../common/pool.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 100003

static int calls[1000];

/* Reference of value v: 10 v and 10 v + 1 (width 2), bound 0.5. */
static void ref_of(const void *ctx, long v, double *ref, double *bound)
{
    (void)ctx;
    calls[v]++;
    ref[0] = 10.0 * v, ref[1] = 10.0 * v + 1;
    bound[0] = bound[1] = 0.5;
}

int main(void)
{
    struct pool p, q;
    pool_init(&p, N, 1000, 7, 1);
    EXPECT(p.n == N && p.size == 1000);
    int seen[1000] = {0}, inside = 1;
    for (long i = 0; i < N; i++) {
        inside &= p.pick[i] >= 0 && p.pick[i] < 1000;
        if (p.pick[i] >= 0 && p.pick[i] < 1000)
            seen[p.pick[i]] = 1;
    }
    EXPECT(inside);
    int all = 1;
    for (int v = 0; v < 1000; v++)
        all &= seen[v];
    EXPECT(all); /* 100 picks per value on average: every value is used */
    pool_init(&q, N, 1000, 7, 1);
    EXPECT(memcmp(p.pick, q.pick, N * sizeof(int32_t)) == 0);
    pool_free(&q);
    pool_init(&q, N, 1000, 8, 1);
    EXPECT(memcmp(p.pick, q.pick, N * sizeof(int32_t)) != 0);
    pool_free(&q);
    pool_init(&q, 10, 1000, 7, 1); /* fewer elements than the limit */
    EXPECT(q.size == 10);
    pool_free(&q);

    /* spread: element i holds value pick[i], for any element size */
    double values[1000][2];
    for (int v = 0; v < 1000; v++)
        values[v][0] = v, values[v][1] = -v;
    double(*spread)[2] = malloc(sizeof(double[2]) * N);
    pool_spread(&p, spread, values, sizeof values[0]);
    int right = 1;
    for (long i = 0; i < N; i++)
        right &= spread[i][0] == p.pick[i] && spread[i][1] == -p.pick[i];
    EXPECT(right);

    /* check: correct results pass; each reference computed exactly once */
    float *got = malloc(sizeof(float) * 2 * N);
    for (long i = 0; i < N; i++)
        got[2 * i] = 10.0f * p.pick[i] + 0.25f, got[2 * i + 1] = 10.0f * p.pick[i] + 1;
    struct check_report r;
    double worst = pool_check(&p, got, 2, ref_of, NULL, &r);
    EXPECT(r.passed && r.bad == 0);
    EXPECT_NEAR(worst, 0.5, 1e-12);
    int once = 1;
    for (int v = 0; v < 1000; v++)
        once &= calls[v] == 1;
    EXPECT(once);
    /* One element off by more than its bound, in the second column: caught there. */
    got[2 * 777 + 1] += 0.75f;
    pool_check(&p, got, 2, ref_of, NULL, &r);
    EXPECT(!r.passed && r.bad == 1 && r.worst == 2 * 777 + 1);
    /* A wrong element that another value's reference would pass: still caught. */
    got[2 * 777 + 1] -= 0.75f;
    int other = p.pick[5] == 999 ? 998 : p.pick[5] + 1;
    got[2 * 5] = 10.0f * other;
    pool_check(&p, got, 2, ref_of, NULL, &r);
    EXPECT(!r.passed && r.bad == 1);
    free(got);
    free(spread);
    pool_free(&p);
    EXPECT(p.pick == NULL);
    return UNIT_REPORT();
}
