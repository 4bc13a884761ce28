/* Command line parsing for every chapter program. Unknown options and bad
 * values are errors with one clear sentence; the caller exits with 2. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain digits only: strtol alone would also take " 100" and "+100" (yet refuse "100 "). */
static int plain_digits(const char *text)
{
    return *text >= '0' && *text <= '9';
}

static int parse_long(const char *text, long *out)
{
    char *end;
    if (!plain_digits(text[0] == '-' ? text + 1 : text))
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

long cli_small_size(const struct cli_spec *s)
{
    long odd = s->small_size | 1;
    return odd <= s->max_size ? odd : s->small_size;
}

int cli_parse_size(const char *text, const struct cli_spec *s, long *out)
{
    if (strcmp(text, "default") == 0) { *out = s->default_size; return 0; }
    if (strcmp(text, "small") == 0) { *out = cli_small_size(s); return 0; }
    if (strcmp(text, "odd") == 0) { *out = s->odd_size; return 0; }
    if (strcmp(text, "passes") == 0) { *out = SIZE_PASSES; return 0; }
    if (strcmp(text, "min") == 0) { *out = s->min_size; return 0; }

    char *end;
    if (!plain_digits(text))
        return -1;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || v < 0)
        return -1;
    long long scale = 1;
    if (*end == 'K' || *end == 'k') { scale = 1LL << 10; end++; }
    else if (*end == 'M' || *end == 'm') { scale = 1LL << 20; end++; }
    else if (*end == 'G' || *end == 'g') { scale = 1LL << 30; end++; }
    if (*end != '\0' || v > (long long)(LONG_MAX / scale))
        return -1;
    *out = (long)(v * scale);
    return 0;
}

static int is_power_of_two(long v) { return v > 0 && (v & (v - 1)) == 0; }

void knob_rule_text(const struct knob *k, char *out, size_t len)
{
    int n = snprintf(out, len, "%ld..%ld", k->min, k->max);
    if (k->power_of_two == KNOB_POWER_OF_TWO_OR_MULTIPLE) {
        if (n > 0 && (size_t)n < len)
            snprintf(out + n, len - (size_t)n, ", a power of two or a multiple of %ld",
                     k->multiple_of);
        return;
    }
    if (n > 0 && (size_t)n < len && k->multiple_of > 1)
        n += snprintf(out + n, len - (size_t)n, ", a multiple of %ld", k->multiple_of);
    if (n > 0 && (size_t)n < len && k->power_of_two)
        snprintf(out + n, len - (size_t)n, ", a power of two");
}

int knob_check(const struct knob *k, long v, char *err, size_t errlen)
{
    char rule[96], broken[64];
    knob_rule_text(k, rule, sizeof rule);
    if (v < k->min || v > k->max)
        snprintf(broken, sizeof broken, "is out of range");
    else if (k->power_of_two == KNOB_POWER_OF_TWO_OR_MULTIPLE) {
        if (is_power_of_two(v) || (k->multiple_of > 1 && v % k->multiple_of == 0))
            return 0;
        snprintf(broken, sizeof broken, "is neither a power of two nor a multiple of %ld",
                 k->multiple_of);
    } else if (k->multiple_of > 1 && v % k->multiple_of != 0)
        snprintf(broken, sizeof broken, "is not a multiple of %ld", k->multiple_of);
    else if (k->power_of_two && !is_power_of_two(v))
        snprintf(broken, sizeof broken, "is not a power of two");
    else
        return 0;
    snprintf(err, errlen, "--%s %ld %s: use %s", k->name, v, broken, rule);
    return -1;
}

void cli_usage(const struct cli_spec *s, void *file)
{
    FILE *f = file;
    fprintf(f, "usage: %s [options]\n", s->program);
    fprintf(f, "%s\n\n", s->title);
    fprintf(f, "  --size N        %s\n", s->size_help);
    fprintf(f, "                  default %ld, range %ld..%ld; K, M, G suffixes (x1024);\n",
            s->default_size, s->min_size, s->max_size);
    fprintf(f, "                  or the words default, small (%ld), odd (%ld), min (%ld),\n"
               "                  passes (an odd size of about %d MiB of GPU memory: every\n"
               "                  grid-stride loop runs more than one pass)\n",
            cli_small_size(s), s->odd_size, s->min_size, PASSES_MIB);
    for (int i = 0; i < s->nknobs; i++) {
        const struct knob *k = &s->knobs[i];
        char rule[96];
        knob_rule_text(k, rule, sizeof rule);
        fprintf(f, "  --%-13s %s (default %ld; %s)\n", k->name, k->help, k->def, rule);
    }
    fprintf(f, "  --seed S        seed of the random inputs (default 1)\n");
    fprintf(f, "  --check-only    verify against the CPU reference once; no timing\n");
    fprintf(f, "  --check-batch   read one set of options per line of standard input and\n");
    fprintf(f, "                  check each in this one process (the test suite's way)\n");
    fprintf(f, "  --batch FILE    run each line of FILE ('-': standard input) as a set of\n");
    fprintf(f, "                  options, timed unless it says --check-only, in this one\n");
    fprintf(f, "                  process (make results' and make evidence's way)\n");
    fprintf(f, "  --samples N     timed samples, at least 20 (default 20; more are taken\n");
    fprintf(f, "                  until 0.5 s of samples)\n");
    fprintf(f, "  --warm-l2       do not flush the L2 cache before each sample\n");
    fprintf(f, "  --append FILE   append this run's result as one CSV row to FILE\n");
    fprintf(f, "  --describe      print the problem's facts as key=value lines (for scripts)\n");
    fprintf(f, "  --help          this message\n");
    fprintf(f, "\nexit status: 0 ok, 1 check failed, 2 usage, 3 no CUDA GPU, 4 too large\n"
               "for this GPU or host, 5 CUDA error\n");
}

static const char *value_of(int argc, char **argv, int *i, char *err, size_t errlen)
{
    if (*i + 1 >= argc) {
        snprintf(err, errlen, "option %s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* Each option at most once: a repeated one is refused rather than the last one winning
 * silently (`--size 100 --size 200`). bit: the option's place in `seen`. */
static int once(unsigned *seen, int bit, const char *a, char *err, size_t errlen)
{
    if (*seen & (1u << bit)) {
        snprintf(err, errlen, "option %s is given twice", a);
        return -1;
    }
    *seen |= 1u << bit;
    return 0;
}

enum { SEEN_BATCH, SEEN_CHECK_BATCH, SEEN_CHECK_ONLY, SEEN_WARM_L2, SEEN_SIZE, SEEN_SEED, SEEN_SAMPLES, SEEN_APPEND, SEEN_KNOB };

enum cli_status cli_parse(int argc, char **argv, const struct cli_spec *s,
                          struct options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->size = s->default_size;
    o->seed = 1;
    o->min_samples = 20;
    /* A default that breaks its own rule is the chapter's bug: say so on every run. */
    for (int k = 0; k < s->nknobs; k++) {
        o->knob[k] = s->knobs[k].def;
        if (knob_check(&s->knobs[k], o->knob[k], err, errlen) != 0) {
            size_t used = strlen(err);
            snprintf(err + used, errlen - used, " (the chapter's default breaks its rule)");
            return CLI_ERROR;
        }
    }

    unsigned seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return CLI_HELP;
        if (strcmp(a, "--describe") == 0)
            return CLI_DESCRIBE;
        int bit = strcmp(a, "--batch") == 0       ? SEEN_BATCH
                : strcmp(a, "--check-batch") == 0 ? SEEN_CHECK_BATCH
                : strcmp(a, "--check-only") == 0 ? SEEN_CHECK_ONLY
                : strcmp(a, "--warm-l2") == 0    ? SEEN_WARM_L2
                : strcmp(a, "--size") == 0       ? SEEN_SIZE
                : strcmp(a, "--seed") == 0       ? SEEN_SEED
                : strcmp(a, "--samples") == 0    ? SEEN_SAMPLES
                : strcmp(a, "--append") == 0     ? SEEN_APPEND : -1;
        for (int k = 0; k < s->nknobs && bit < 0; k++)
            if (strncmp(a, "--", 2) == 0 && strcmp(a + 2, s->knobs[k].name) == 0)
                bit = SEEN_KNOB + k;
        if (bit >= 0 && once(&seen, bit, a, err, errlen) != 0)
            return CLI_ERROR;
        if (strcmp(a, "--check-only") == 0) { o->check_only = 1; continue; }
        if (strcmp(a, "--check-batch") == 0) {
            /* Its options come from standard input; one on the command line would be ignored. */
            if (argc != 2) {
                snprintf(err, errlen, "--check-batch takes its options from standard input, "
                                      "one set per line, and no other option");
                return CLI_ERROR;
            }
            o->check_batch = 1;
            continue;
        }
        if (strcmp(a, "--batch") == 0) {
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            if (argc != 3 || *v == '\0' || (v[0] == '-' && v[1] == '-')) {
                snprintf(err, errlen, "--batch takes one file of options (or '-' for standard "
                                      "input), one set per line, and no other option");
                return CLI_ERROR;
            }
            o->batch = v;
            continue;
        }
        if (strcmp(a, "--warm-l2") == 0) { o->warm_l2 = 1; continue; }
        if (strcmp(a, "--size") == 0) {
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            if (cli_parse_size(v, s, &o->size) != 0) {
                snprintf(err, errlen, "--size: '%s' is not a size", v);
                return CLI_ERROR;
            }
            if (o->size != SIZE_PASSES && (o->size < s->min_size || o->size > s->max_size)) {
                snprintf(err, errlen, "--size %ld is out of range %ld..%ld", o->size,
                         s->min_size, s->max_size);
                return CLI_ERROR;
            }
            continue;
        }
        if (strcmp(a, "--seed") == 0) {
            long seed;
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            if (parse_long(v, &seed) != 0 || seed < 0) {
                snprintf(err, errlen, "--seed: '%s' is not a non-negative integer", v);
                return CLI_ERROR;
            }
            o->seed = (unsigned long long)seed;
            continue;
        }
        if (strcmp(a, "--samples") == 0) {
            long n;
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            if (parse_long(v, &n) != 0 || n < 20 || n > 100000) {
                snprintf(err, errlen, "--samples: '%s' is not an integer in 20..100000", v);
                return CLI_ERROR;
            }
            o->min_samples = (int)n;
            continue;
        }
        if (strcmp(a, "--append") == 0) {
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            if (*v == '\0') {
                snprintf(err, errlen, "--append needs a file name");
                return CLI_ERROR;
            }
            o->append = v;
            continue;
        }
        int matched = 0;
        for (int k = 0; k < s->nknobs && !matched; k++) {
            const struct knob *kn = &s->knobs[k];
            if (strncmp(a, "--", 2) != 0 || strcmp(a + 2, kn->name) != 0)
                continue;
            matched = 1;
            if (!(v = value_of(argc, argv, &i, err, errlen)))
                return CLI_ERROR;
            long n;
            if (parse_long(v, &n) != 0) {
                snprintf(err, errlen, "--%s: '%s' is not an integer", kn->name, v);
                return CLI_ERROR;
            }
            if (knob_check(kn, n, err, errlen) != 0)
                return CLI_ERROR;
            o->knob[k] = n;
        }
        if (!matched) {
            snprintf(err, errlen, "unknown option '%s'", a);
            return CLI_ERROR;
        }
    }
    return CLI_OK;
}
