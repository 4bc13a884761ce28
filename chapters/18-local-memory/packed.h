/* Chapter 18, exercise 2's answer: four 8-bit counters per register. Not part
 * of the lesson's pair: optimized.cu includes it so that `--packed 1` runs it
 * (the sweep and the exercise), while the diff of naive.cu and optimized.cu
 * stays the guideline. */
#ifndef LOCALMEM_PACKED_H
#define LOCALMEM_PACKED_H

#include "problem.h"

// [packed]
/* --packed 1: a count never exceeds 64, so four counters fit in one 32-bit
 * register, a byte each. A symbol adds 1 << 8 * (bin % 4) to register
 * bin / 4: a quarter of the compares and adds. */
template <int BINS>
__global__ void packed_kernel(uint8_t *out, const uint32_t *in, long n)
{
    long r = blockIdx.x * (long)BLOCK + threadIdx.x;
    if (r >= n)
        return;
    uint32_t hist4[BINS / 4];
#pragma unroll
    for (int g = 0; g < BINS / 4; g++)
        hist4[g] = 0;
    for (int k = 0; k < RECORD_WORDS; k++) {
        uint32_t w = in[k * n + r];
        for (int s = 0; s < 4; s++) {
            uint32_t bin = ((w >> (8 * s)) & 255u) / (256 / BINS);
            uint32_t one = 1u << (8 * (bin % 4));
#pragma unroll
            for (int g = 0; g < BINS / 4; g++)
                hist4[g] += bin / 4 == (uint32_t)g ? one : 0u;
        }
    }
#pragma unroll
    for (int b = 0; b < BINS; b++)
        out[b * n + r] = (uint8_t)(hist4[b / 4] >> (8 * (b % 4)));
}
// [packed]

static histogram_fn packed_for(int bins)
{
    switch (bins) { /* the knob admits only these */
    case 4: return packed_kernel<4>;
    case 8: return packed_kernel<8>;
    case 32: return packed_kernel<32>;
    case 64: return packed_kernel<64>;
    default: return packed_kernel<DEFAULT_BINS>;
    }
}

#endif
