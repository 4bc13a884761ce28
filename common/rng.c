#include "rng.h"

/* splitmix64's state after i steps is start + i * gamma, so element i is computed
 * from its index alone: the fill splits across threads (OpenMP) and gives the same
 * bits whatever their number. */
#define RNG_GAMMA 0x9E3779B97F4A7C15ULL

static uint64_t start_state(uint64_t seed, uint64_t stream)
{
    uint64_t s = seed * 0xD1342543DE82EF95ULL + stream;
    (void)rng_next(&s);
    return s;
}

/* The value rng_next() returns on its (i + 1)-th call from state s. */
static uint64_t rng_at(uint64_t s, size_t i)
{
    uint64_t state = s + (uint64_t)i * RNG_GAMMA;
    return rng_next(&state);
}

void rng_fill_f32(float *out, size_t n, float lo, float hi, uint64_t seed, uint64_t stream)
{
    uint64_t s = start_state(seed, stream);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = lo + (hi - lo) * ((float)(rng_at(s, i) >> 40) * 0x1.0p-24f);
}

void rng_fill_i32(int32_t *out, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream)
{
    uint64_t s = start_state(seed, stream);
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = (int32_t)((int64_t)lo + (int64_t)(rng_at(s, i) % span));
}
