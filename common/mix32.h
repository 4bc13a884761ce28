/* A well-mixed 32-bit hash (Wellons' lowbias32), for device code: consecutive inputs land on
 * unrelated values, so random gathers need no index array to read. */
#ifndef COMMON_MIX32_H
#define COMMON_MIX32_H

__device__ static inline unsigned mix32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

#endif
