/* evidence: NAME = VALUE UNIT lines (see evidence.h). */
#include "evidence.h"

#include <math.h>
#include <stdio.h>

static int name_ok(const char *s)
{
    if (!s || !(*s >= 'a' && *s <= 'z'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* Printable ASCII without spaces, so that the unit is the line's last word. */
static int unit_ok(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return 0;
    return 1;
}

int evidence_format(char *out, size_t len, const char *name, double value, const char *unit,
                    const char **why)
{
    const char *bad = !name_ok(name)  ? "the name must be lowercase letters, digits and _"
                      : !isfinite(value) ? "the value is not a finite number"
                      : !unit_ok(unit)    ? "the unit must be printable, without spaces"
                                          : NULL;
    if (why)
        *why = bad;
    if (bad)
        return -1;
    /* %.6g: six significant digits, more than any timing here resolves. */
    int n = snprintf(out, len, "evidence: %s = %.6g %s", name, value, unit);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The driver's second check run (driver.cu, verify) mutes the lines: each
 * figure is printed once per configuration, as make evidence requires. */
static int muted;

void evidence_mute(int on) { muted = on; }

void evidence_print(const char *name, double value, const char *unit)
{
    char line[256];
    const char *why = "the line is too long";
    if (evidence_format(line, sizeof line, name, value, unit, &why) != 0) {
        fprintf(stderr, "warning: evidence '%s' not printed: %s\n", name ? name : "(null)", why);
        return;
    }
    if (!muted)
        printf("%s\n", line);
}
