/* Command line shared by every chapter program (pure C, no CUDA). */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_KNOBS 4

/* An integer option a student can turn: `--NAME VALUE`. The parser holds a
 * value to the knob's rule, so a bad one is refused before the GPU is opened:
 * always the range min..max, and where the fields after it are set,
 *   {"threads", "...", 1024, 32, 1024, 32}                     a multiple of 32
 *   {"ilp", "...", 8, 1, 16, 0, KNOB_POWER_OF_TWO}              a power of two
 *   {"warps", "...", 64, 1, 64, 8, KNOB_POWER_OF_TWO_OR_MULTIPLE}  1, 2, 4, 8, 16, 24... */
struct knob {
    const char *name;
    const char *help;
    long def, min, max;
    long multiple_of;  /* 0 (or 1): any integer in range */
    int power_of_two;  /* KNOB_POWER_OF_TWO: 1, 2, 4, 8... only;
                          KNOB_POWER_OF_TWO_OR_MULTIPLE: either one of those
                          or a multiple of multiple_of */
};
enum { KNOB_POWER_OF_TWO = 1, KNOB_POWER_OF_TWO_OR_MULTIPLE = 2 };

/* 0 if v obeys k's rule; else -1 and one sentence in err:
 * "--ilp 3 is not a power of two: use 1..16, a power of two". */
int knob_check(const struct knob *k, long v, char *err, size_t errlen);

/* The rule in words for --help: "1..16, a power of two". */
void knob_rule_text(const struct knob *k, char *out, size_t len);

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
    int check_batch;  /* --check-batch: option sets from stdin, each checked (driver.cu) */
    const char *batch; /* --batch FILE: option sets from FILE ("-": stdin), each run as given */
    int warm_l2;      /* skip the L2 flush before each sample */
    int min_samples;  /* at least 20 */
    const char *append; /* results file to append one CSV row to, or NULL */
};

/* CLI_DESCRIBE: print the problem's facts as key=value lines for scripts. */
enum cli_status { CLI_OK = 0, CLI_HELP = 1, CLI_DESCRIBE = 2, CLI_ERROR = -1 };

/* Parse argv into o. Each option at most once; numbers are plain digits (no sign, no
 * space). On CLI_ERROR, err holds one sentence for the user. */
enum cli_status cli_parse(int argc, char **argv, const struct cli_spec *s,
                          struct options *o, char *err, size_t errlen);

/* --size passes: the driver resolves it (it needs the problem's device_bytes and the knobs)
 * to the largest odd size up to the default whose device memory is at most PASSES_MIB: far
 * more elements than a GPU's resident grid covers in one pass, so that a test reaches every
 * grid-stride loop's later passes, yet small enough to check in a second. */
#define SIZE_PASSES (-2L)
#define PASSES_MIB 256

/* --size small: the chapter's small size, or the odd number after it where that is even and
 * allowed. The sanitizers run at this size, so it must reach every tail and boundary path: an
 * even size (1000, a multiple of 4 and 8) leaves a float4 kernel's scalar tail unrun. */
long cli_small_size(const struct cli_spec *s);

/* Parse "123", "64M", "1G" (K, M, G are powers of 1024) or the words
 * default, small, odd, min (the smallest size the problem accepts), passes
 * (SIZE_PASSES). Returns 0 on success. */
int cli_parse_size(const char *text, const struct cli_spec *s, long *out);

void cli_usage(const struct cli_spec *s, void *file /* FILE* */);

#ifdef __cplusplus
}
#endif

#endif
