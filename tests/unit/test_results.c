/* The results row: column count, empty fields for figures that do not
 * apply, quoting, and the header written once. */
#include "../../common/results.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int count_fields(const char *line)
{
    int n = 1, quoted = 0;
    for (; *line; line++) {
        if (*line == '"')
            quoted = !quoted;
        else if (*line == ',' && !quoted)
            n++;
    }
    return n;
}

int main(void)
{
    struct result_row r = {0};
    r.chapter = 20;
    r.slug = "matrix-transpose";
    r.variant = "naive";
    r.gpu = "NVIDIA H100 80GB HBM3";
    r.cc_major = 9;
    r.sms = 132;
    r.sm_clock_mhz = 1980;
    r.driver = r.cuda = "13.0";
    r.size = 16384;
    r.knobs = "";
    r.seed = 1;
    r.method = "CUDA events, L2 flushed";
    r.samples = 20;
    r.median_us = 2000;
    r.min_us = r.q1_us = r.q3_us = 1990;
    r.noise_pct = 0.5;
    r.rate = 1073.7;
    r.rate_unit = "GB/s";
    r.roof_name = "copy";
    r.roof = 3000;
    r.pct_roof = 35.8;
    r.check_passed = 1;
    r.source_hash = "abcdef123456";
    r.commit = "1234567";
    r.date = "2026-11-22T00:00:00Z";
    r.host = "Intel Xeon Platinum 8480+, 16 cores";
    r.host_copy_gbs = 11.7;
    r.host_copy_all_gbs = 90.05;

    char line[2048];
    EXPECT(results_format(line, sizeof line, &r) > 0);
    EXPECT(count_fields(line) == count_fields(results_header()));
    EXPECT(strstr(line, ",1073.7,GB/s,copy,") != NULL);
    /* The host last: its model quoted (it holds a comma), then the two copy rates. */
    size_t used = strlen(line), tail = strlen(",\"Intel Xeon Platinum 8480+, 16 cores\",11.70,90.05");
    EXPECT(used > tail && strcmp(line + used - tail, ",\"Intel Xeon Platinum 8480+, 16 cores\",11.70,90.05") == 0);
    r.host_copy_gbs = r.host_copy_all_gbs = -1; /* a kernel-timed row: no host figures */
    EXPECT(results_format(line, sizeof line, &r) > 0);
    used = strlen(line);
    EXPECT(strcmp(line + used - 3, "\",,") == 0);
    EXPECT(count_fields(line) == count_fields(results_header()));

    r.rate = -1; /* a time-only chapter: rate and unit both empty */
    EXPECT(results_format(line, sizeof line, &r) > 0);
    EXPECT(strstr(line, ",0.50,,,copy,") != NULL);
    r.rate = 1073.7;
    EXPECT(strstr(line, ",pass,") != NULL);

    r.method = "graph, 10 runs, \"warm\"";
    EXPECT(results_format(line, sizeof line, &r) > 0);
    EXPECT(strstr(line, "\"graph, 10 runs, \"\"warm\"\"\"") != NULL);
    EXPECT(count_fields(line) == count_fields(results_header()));

    char small[16];
    EXPECT(results_format(small, sizeof small, &r) == -1);

    char path[] = "/tmp/results-test-XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    close(fd);
    r.check_passed = 0;
    EXPECT(results_append(path, &r) == 0);
    EXPECT(results_append(path, &r) == 0);
    FILE *f = fopen(path, "r");
    char buf[2048];
    int lines = 0, headers = 0, fails = 0;
    while (f && fgets(buf, sizeof buf, f)) {
        lines++;
        headers += strncmp(buf, "chapter,slug,", 13) == 0;
        fails += strstr(buf, ",fail,") != NULL;
    }
    if (f)
        fclose(f);
    EXPECT(lines == 3 && headers == 1 && fails == 2);
    unlink(path);
    EXPECT(results_append("/nonexistent-dir/x.csv", &r) == -1);
    return UNIT_REPORT();
}
