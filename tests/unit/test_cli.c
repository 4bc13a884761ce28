/* The command line: defaults, every option, every kind of bad input. */
#include "../../common/cli.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static const struct knob knobs[] = {{"streams", "number of streams", 4, 1, 64},
                                     {"threads", "threads per block", 256, 32, 1024, 32},
                                     {"ilp", "loads in flight", 8, 1, 16, 0, KNOB_POWER_OF_TWO}};
static const struct cli_spec spec = {"00-test/naive", "test", "elements", 1000, 33, 999, 1, 1L << 30,
                                     knobs, 3};
static char err[256]; /* the last error sentence */

static enum cli_status parse_with(const struct cli_spec *s, struct options *o, const char *a,
                                  const char *b, const char *c)
{
    char *argv[] = {(char *)"prog", (char *)a, (char *)b, (char *)c, NULL};
    int argc = 1 + (a != NULL) + (b != NULL) + (c != NULL);
    err[0] = '\0';
    return cli_parse(argc, argv, s, o, err, sizeof err);
}

static enum cli_status parse(struct options *o, const char *a, const char *b, const char *c)
{
    return parse_with(&spec, o, a, b, c);
}

/* The knob rules: range, multiple of, power of two, each refused with a sentence that names
 * the option, the value and the rule. */
static void test_knob_rules(void)
{
    struct options o;
    EXPECT(parse(&o, "--threads", "512", NULL) == CLI_OK && o.knob[1] == 512);
    EXPECT(parse(&o, "--threads", "32", NULL) == CLI_OK && o.knob[1] == 32);
    EXPECT(parse(&o, "--threads", "33", NULL) == CLI_ERROR);
    EXPECT(strcmp(err, "--threads 33 is not a multiple of 32: use 32..1024, a multiple of 32") == 0);
    EXPECT(parse(&o, "--threads", "1056", NULL) == CLI_ERROR && strstr(err, "out of range"));
    for (long v = 1; v <= 16; v++) {
        char text[8];
        snprintf(text, sizeof text, "%ld", v);
        int pow2 = v == 1 || v == 2 || v == 4 || v == 8 || v == 16;
        EXPECT((parse(&o, "--ilp", text, NULL) == CLI_OK) == pow2);
    }
    EXPECT(parse(&o, "--ilp", "3", NULL) == CLI_ERROR);
    EXPECT(strcmp(err, "--ilp 3 is not a power of two: use 1..16, a power of two") == 0);
    EXPECT(parse(&o, "--ilp", "32", NULL) == CLI_ERROR && strstr(err, "out of range"));
    EXPECT(parse(&o, "--ilp", "0", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "65", NULL) == CLI_ERROR);
    EXPECT(strcmp(err, "--streams 65 is out of range: use 1..64") == 0);

    char rule[96];
    knob_rule_text(&knobs[1], rule, sizeof rule);
    EXPECT(strcmp(rule, "32..1024, a multiple of 32") == 0);
    knob_rule_text(&knobs[0], rule, sizeof rule);
    EXPECT(strcmp(rule, "1..64") == 0);

    /* Either rule: a power of two, or a multiple of 8 (chapter 06's warps per SM). */
    static const struct knob either[] = {
        {"warps", "warps per SM", 64, 1, 64, 8, KNOB_POWER_OF_TWO_OR_MULTIPLE}};
    struct cli_spec e = spec;
    e.knobs = either;
    e.nknobs = 1;
    for (long v = 1; v <= 64; v++) {
        char text[8];
        snprintf(text, sizeof text, "%ld", v);
        int ok = (v & (v - 1)) == 0 || v % 8 == 0;
        EXPECT((parse_with(&e, &o, "--warps", text, NULL) == CLI_OK) == ok);
    }
    EXPECT(parse_with(&e, &o, "--warps", "12", NULL) == CLI_ERROR);
    EXPECT(strcmp(err, "--warps 12 is neither a power of two nor a multiple of 8: "
                       "use 1..64, a power of two or a multiple of 8") == 0);

    /* A chapter whose default breaks its own rule fails every run, --help included. */
    static const struct knob broken[] = {{"threads", "threads per block", 100, 32, 1024, 32}};
    struct cli_spec s = spec;
    s.knobs = broken;
    s.nknobs = 1;
    EXPECT(parse_with(&s, &o, "--help", NULL, NULL) == CLI_ERROR && strstr(err, "default"));
}

int main(void)
{
    struct options o;
    EXPECT(parse(&o, NULL, NULL, NULL) == CLI_OK);
    EXPECT(o.size == 1000 && o.seed == 1 && o.knob[0] == 4 && o.min_samples == 20);
    EXPECT(!o.check_only && !o.warm_l2 && o.append == NULL);

    EXPECT(parse(&o, "--size", "64M", NULL) == CLI_OK && o.size == 64L << 20);
    EXPECT(parse(&o, "--size", "1G", NULL) == CLI_OK && o.size == 1L << 30);
    EXPECT(parse(&o, "--size", "small", NULL) == CLI_OK && o.size == 33);
    /* An even small size becomes the odd number after it (the sanitizers run at it, and an
     * even size leaves a vector kernel's tail unrun), unless that is past the largest size. */
    struct cli_spec even = spec;
    even.small_size = 1000;
    EXPECT(parse_with(&even, &o, "--size", "small", NULL) == CLI_OK && o.size == 1001);
    even.small_size = even.max_size = 1024;
    EXPECT(parse_with(&even, &o, "--size", "small", NULL) == CLI_OK && o.size == 1024);
    EXPECT(parse(&o, "--size", "odd", NULL) == CLI_OK && o.size == 999);
    EXPECT(parse(&o, "--size", "passes", NULL) == CLI_OK && o.size == SIZE_PASSES);
    EXPECT(parse(&o, "--size", "min", NULL) == CLI_OK && o.size == spec.min_size);
    EXPECT(parse(&o, "--size", "minimum", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "pass", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "16", "--check-only") == CLI_OK && o.knob[0] == 16 && o.check_only);
    EXPECT(parse(&o, "--seed", "42", "--warm-l2") == CLI_OK && o.seed == 42 && o.warm_l2);
    EXPECT(parse(&o, "--append", "x.csv", NULL) == CLI_OK && strcmp(o.append, "x.csv") == 0);
    EXPECT(parse(&o, "--samples", "50", NULL) == CLI_OK && o.min_samples == 50);
    EXPECT(parse(&o, "--help", NULL, NULL) == CLI_HELP);
    EXPECT(parse(&o, "--describe", NULL, NULL) == CLI_DESCRIBE);

    /* Every bad input is an error, never a silent default. */
    EXPECT(parse(&o, "--bogus", NULL, NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", NULL, NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "0", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "-5", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "2G", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "12abc", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "99999999999999999999", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "9999999999999G", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "0", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "65", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "x", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--seed", "-1", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--samples", "5", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--append", "", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "size", "10", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--bogus", NULL, NULL) == CLI_ERROR && strcmp(err, "unknown option '--bogus'") == 0);
    /* Only plain digits (or the words): no sign, no space on either side. */
    EXPECT(parse(&o, "--size", " 100", NULL) == CLI_ERROR && strstr(err, "' 100' is not a size"));
    EXPECT(parse(&o, "--size", "+100", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "100 ", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--size", "100", NULL) == CLI_OK && o.size == 100);
    EXPECT(parse(&o, "--streams", " 8", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--streams", "+8", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--seed", "+1", NULL) == CLI_ERROR);

    /* An option given twice is refused, never "the last one wins". */
    {
        char *argv[] = {"prog", "--size", "100", "--size", "200", NULL};
        EXPECT(cli_parse(5, argv, &spec, &o, err, sizeof err) == CLI_ERROR);
        EXPECT(strcmp(err, "option --size is given twice") == 0);
        char *knob[] = {"prog", "--streams", "2", "--check-only", "--streams", "4", NULL};
        EXPECT(cli_parse(6, knob, &spec, &o, err, sizeof err) == CLI_ERROR);
        EXPECT(strcmp(err, "option --streams is given twice") == 0);
    }
    EXPECT(parse(&o, "--check-only", "--check-only", NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--warm-l2", "--check-only", NULL) == CLI_OK);
    /* --check-batch reads its option sets from standard input: alone on the command line. */
    EXPECT(parse(&o, "--check-batch", NULL, NULL) == CLI_OK && o.check_batch && !o.check_only);
    EXPECT(parse(&o, "--check-batch", "--check-only", NULL) == CLI_ERROR
           && strstr(err, "from standard input"));
    EXPECT(parse(&o, "--size", "100", "--check-batch") == CLI_ERROR);
    /* --batch FILE: a file of option sets ('-': standard input), alone on the command line. */
    EXPECT(parse(&o, "--batch", "sets.txt", NULL) == CLI_OK && o.batch && strcmp(o.batch, "sets.txt") == 0);
    EXPECT(parse(&o, "--batch", "-", NULL) == CLI_OK && strcmp(o.batch, "-") == 0);
    EXPECT(parse(&o, "--batch", NULL, NULL) == CLI_ERROR);
    EXPECT(parse(&o, "--batch", "--size", "100") == CLI_ERROR);
    EXPECT(parse(&o, "--size", "100", "--batch") == CLI_ERROR);
    test_knob_rules();
    return UNIT_REPORT();
}
