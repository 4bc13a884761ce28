/* A minimal test framework: EXPECT counts, the runner prints the totals. */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define EXPECT(cond)                                                                  \
    do {                                                                              \
        if (cond) {                                                                   \
            unit_passed++;                                                            \
        } else {                                                                      \
            unit_failed++;                                                            \
            printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #cond);                 \
        }                                                                             \
    } while (0)

#define EXPECT_NEAR(a, b, eps) EXPECT(((a) - (b)) <= (eps) && ((b) - (a)) <= (eps))

/* Last line of every test program, read by tests/unit.sh. */
#define UNIT_REPORT()                                                                 \
    (printf("%d passed, %d failed\n", unit_passed, unit_failed), unit_failed != 0)

#endif
