/* Chapter 21: what naive.cu and optimized.cu share. Both kernels are chapter
 * 20's tiled transpose, on its problem (common/transpose.h): a block of
 * TILE x rows threads moves one TILE x TILE tile through shared memory, each
 * thread TILE / rows elements. They differ only in the width of the shared
 * array. */
#ifndef BANKS_PROBLEM_H
#define BANKS_PROBLEM_H

#include "chapter.h"
#include "transpose.h"

extern const struct problem PROBLEM;

#endif
