/* Seeded pseudo-random inputs (pure C): the same seed gives the same data on
 * every machine, and a different seed gives fresh data. */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: small, fast, and good enough for test data. */
static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 random bits: exactly representable as a float. */
static inline float rng_unit_f32(uint64_t *state)
{
    return (float)(rng_next(state) >> 40) * 0x1.0p-24f;
}

/* Uniform floats in [lo, hi); never all zeros. `stream` separates the
 * inputs of one problem that share a seed. */
void rng_fill_f32(float *out, size_t n, float lo, float hi, uint64_t seed, uint64_t stream);

/* Uniform 32-bit integers in [lo, hi]. */
void rng_fill_i32(int32_t *out, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif
