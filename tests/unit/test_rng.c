/* The inputs: a seed gives the same numbers with one thread and with many (the fill is split
 * across OpenMP threads), and they are the numbers of splitmix64 drawn in order. */
#include "../../common/rng.h"
#include "unit.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define N 300007 /* several threads' worth, not a multiple of anything */

static float f1[N], fm[N], fseq[N];
static int32_t i1[N], im[N], iseq[N];

int main(void)
{
    /* The numbers in order, one call of rng_next after another (the definition). */
    uint64_t s = 42 * 0xD1342543DE82EF95ULL + 3;
    (void)rng_next(&s);
    uint64_t t = s;
    for (size_t i = 0; i < N; i++)
        fseq[i] = -2.0f + 4.0f * rng_unit_f32(&s);
    for (size_t i = 0; i < N; i++)
        iseq[i] = (int32_t)(-5 + (int64_t)(rng_next(&t) % 11));

    omp_set_num_threads(1);
    rng_fill_f32(f1, N, -2.0f, 2.0f, 42, 3);
    rng_fill_i32(i1, N, -5, 5, 42, 3);
    omp_set_num_threads(7);
    rng_fill_f32(fm, N, -2.0f, 2.0f, 42, 3);
    rng_fill_i32(im, N, -5, 5, 42, 3);

    EXPECT(memcmp(f1, fm, sizeof f1) == 0);
    EXPECT(memcmp(i1, im, sizeof i1) == 0);
    EXPECT(memcmp(f1, fseq, sizeof f1) == 0);
    EXPECT(memcmp(i1, iseq, sizeof i1) == 0);

    /* Another seed or stream gives other numbers; values stay in range. */
    rng_fill_f32(fm, N, -2.0f, 2.0f, 43, 3);
    EXPECT(memcmp(f1, fm, sizeof f1) != 0);
    rng_fill_f32(fm, N, -2.0f, 2.0f, 42, 4);
    EXPECT(memcmp(f1, fm, sizeof f1) != 0);
    int in_range = 1;
    for (size_t i = 0; i < N; i++)
        in_range &= f1[i] >= -2.0f && f1[i] < 2.0f && i1[i] >= -5 && i1[i] <= 5;
    EXPECT(in_range);
    return UNIT_REPORT();
}
