/* The evidence line format that scripts/measure.sh reads. */
#include "../../common/evidence.h"
#include "unit.h"

#include <math.h>
#include <string.h>

static int formats(const char *name, double value, const char *unit, const char *want)
{
    char line[256];
    const char *why = NULL;
    return evidence_format(line, sizeof line, name, value, unit, &why) == 0 && why == NULL &&
           strcmp(line, want) == 0;
}

static int refused(const char *name, double value, const char *unit)
{
    char line[256];
    const char *why = NULL;
    return evidence_format(line, sizeof line, name, value, unit, &why) == -1 && why != NULL;
}

int main(void)
{
    EXPECT(formats("overlap_pct", 41.25, "%", "evidence: overlap_pct = 41.25 %"));
    EXPECT(formats("host_memcpy_gbs", 9.87654321, "GB/s", "evidence: host_memcpy_gbs = 9.87654 GB/s"));
    EXPECT(formats("h2d_ms", 19512.0, "ms", "evidence: h2d_ms = 19512 ms"));
    EXPECT(formats("x2", 1.5e-9, "s", "evidence: x2 = 1.5e-09 s"));
    EXPECT(refused("Overlap", 1, "ms"));   /* upper case */
    EXPECT(refused("2d", 1, "ms"));        /* starts with a digit */
    EXPECT(refused("h2d-ms", 1, "ms"));    /* a dash */
    EXPECT(refused("", 1, "ms"));
    EXPECT(refused(NULL, 1, "ms"));
    EXPECT(refused("ok", NAN, "ms"));
    EXPECT(refused("ok", INFINITY, "ms"));
    EXPECT(refused("ok", 1, ""));
    EXPECT(refused("ok", 1, "GB / s"));    /* the unit is the last word */
    EXPECT(refused("ok", 1, NULL));
    char tiny[16];
    EXPECT(evidence_format(tiny, sizeof tiny, "overlap_pct", 41.25, "%", NULL) == -1);
    return UNIT_REPORT();
}
