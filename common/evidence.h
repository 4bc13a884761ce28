/* Host figures a chapter's prose relies on, printed as data. A program
 * prints `evidence: NAME = VALUE UNIT` lines during its default-size run;
 * `make evidence` turns each into a row of results/evidence/<gpu>.csv (tool
 * `host`), where the chapter's claims and the README's inline values read it. */
#ifndef COMMON_EVIDENCE_H
#define COMMON_EVIDENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write the line (no newline) into out. NAME: lowercase letters, digits and
 * underscores, starting with a letter; VALUE: finite; UNIT: printable, no
 * spaces ("ms", "GB/s", "%"). Returns 0, or -1 with why set to the reason. */
int evidence_format(char *out, size_t len, const char *name, double value, const char *unit,
                    const char **why);

/* Print the line on stdout. A bad name, value or unit is a bug in the
 * chapter, so it prints a warning on stderr instead: the claim that needs
 * the figure then reads "not recorded" and `make test` says so. */
void evidence_print(const char *name, double value, const char *unit);

/* While on, evidence_print validates but prints nothing: the check's second
 * run in one process (driver.cu) would print every figure twice. */
void evidence_mute(int on);

#ifdef __cplusplus
}
#endif

#endif
