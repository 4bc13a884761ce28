#include "rng.h"

static uint64_t start_state(uint64_t seed, uint64_t stream)
{
    uint64_t s = seed * 0xD1342543DE82EF95ULL + stream;
    (void)rng_next(&s);
    return s;
}

void rng_fill_f32(float *out, size_t n, float lo, float hi, uint64_t seed, uint64_t stream)
{
    uint64_t s = start_state(seed, stream);
    for (size_t i = 0; i < n; i++)
        out[i] = lo + (hi - lo) * rng_unit_f32(&s);
}

void rng_fill_i32(int32_t *out, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream)
{
    uint64_t s = start_state(seed, stream);
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (int32_t)((int64_t)lo + (int64_t)(rng_next(&s) % span));
}
