/* The command line: defaults, every option, every kind of bad input. */
#include "../../common/cli.h"
#include "unit.h"

#include <string.h>

static const struct knob knobs[] = {{"streams", "number of streams", 4, 1, 64}};
static const struct cli_spec spec = {"00-test/naive", "test", "elements", 1000, 33, 999, 1, 1L << 30,
                                     knobs, 1};

static enum cli_status parse(struct options *o, const char *a, const char *b, const char *c)
{
    char *argv[] = {(char *)"prog", (char *)a, (char *)b, (char *)c, NULL};
    int argc = 1 + (a != NULL) + (b != NULL) + (c != NULL);
    char err[256];
    return cli_parse(argc, argv, &spec, o, err, sizeof err);
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
    EXPECT(parse(&o, "--size", "odd", NULL) == CLI_OK && o.size == 999);
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
    return UNIT_REPORT();
}
