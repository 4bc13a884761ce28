/* Command line shared by every chapter program (pure C, no CUDA). */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_KNOBS 4

/* An integer option a student can turn: `--NAME VALUE`. */
struct knob {
    const char *name;
    const char *help;
    long def, min, max;
};

/* What the parser needs to know about the program. */
struct cli_spec {
    const char *program;    /* "20-matrix-transpose/naive" */
    const char *title;
    const char *size_help;
    long default_size, small_size, odd_size, min_size, max_size;
    const struct knob *knobs;
    int nknobs;
};

struct options {
    long size;
    long knob[MAX_KNOBS];
    unsigned long long seed;
    int check_only;   /* verify once, no timing */
    int warm_l2;      /* skip the L2 flush before each sample */
    int min_samples;  /* at least 20 */
    const char *append; /* results file to append one CSV row to, or NULL */
};

/* CLI_DESCRIBE: print the problem's facts as key=value lines for scripts. */
enum cli_status { CLI_OK = 0, CLI_HELP = 1, CLI_DESCRIBE = 2, CLI_ERROR = -1 };

/* Parse argv into o. On CLI_ERROR, err holds one sentence for the user. */
enum cli_status cli_parse(int argc, char **argv, const struct cli_spec *s,
                          struct options *o, char *err, size_t errlen);

/* Parse "123", "64M", "1G" (K, M, G are powers of 1024) or the words
 * default, small, odd. Returns 0 on success. */
int cli_parse_size(const char *text, const struct cli_spec *s, long *out);

void cli_usage(const struct cli_spec *s, void *file /* FILE* */);

#ifdef __cplusplus
}
#endif

#endif
