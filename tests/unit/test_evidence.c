/* The evidence line format that scripts/measure.sh reads. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2 */
#include "../../common/evidence.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* What evidence_print writes to stdout, captured through a temporary file. */
static void printed(const char *name, char *out, size_t len)
{
    fflush(stdout);
    int saved = dup(1);
    FILE *t = tmpfile();
    dup2(fileno(t), 1);
    evidence_print(name, 1.5, "ms");
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(t);
    size_t n = fread(out, 1, len - 1, t);
    out[n] = '\0';
    fclose(t);
}

int main(void)
{
    /* Muted (the check's second run in one process), nothing is printed: each figure appears
     * once per configuration, as make evidence requires. */
    char out[128];
    printed("first_run", out, sizeof out);
    EXPECT(strcmp(out, "evidence: first_run = 1.5 ms\n") == 0);
    evidence_mute(1);
    printed("second_run", out, sizeof out);
    EXPECT(out[0] == '\0');
    evidence_mute(0);
    printed("after", out, sizeof out);
    EXPECT(strcmp(out, "evidence: after = 1.5 ms\n") == 0);
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
