/* Chapter 20: what naive.cu, optimized.cu and library.cu share: the
 * transpose problem of common/transpose.h (TILE, BLOCK_ROWS, struct
 * transpose, transpose_grid). */
#ifndef TRANSPOSE_PROBLEM_H
#define TRANSPOSE_PROBLEM_H

#include "chapter.h"
#include "transpose.h"

extern const struct problem PROBLEM;

#endif
