#include "results.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char HEADER[] =
    "chapter,slug,variant,gpu,cc,sms,sm_clock_mhz,driver,cuda,size,knobs,seed,method,samples,"
    "median_us,min_us,q1_us,q3_us,noise_pct,rate,rate_unit,roof_name,roof,pct_roof,check,max_err,"
    "source_hash,commit,date,host,host_copy_gbs,host_copy_all_gbs";

const char *results_header(void) { return HEADER; }

struct out {
    char *buf;
    size_t len, used;
    int overflow;
};

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->used < o->len ? o->len - o->used : 0;
    int n = vsnprintf(o->buf + (o->used < o->len ? o->used : o->len), room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room)
        o->overflow = 1;
    else
        o->used += (size_t)n;
}

/* Text fields: quoted when they hold a comma, quote or newline. */
static void put_text(struct out *o, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\n")) {
        put(o, "%s,", s);
        return;
    }
    put(o, "\"");
    for (; *s; s++)
        put(o, *s == '"' ? "\"\"" : "%c", *s);
    put(o, "\",");
}

/* Numbers that do not apply are written as empty fields. */
static void put_num(struct out *o, double v, const char *fmt)
{
    if (v < 0)
        put(o, ",");
    else {
        put(o, fmt, v);
        put(o, ",");
    }
}

int results_format(char *buf, size_t len, const struct result_row *r)
{
    struct out o = {buf, len, 0, 0};
    if (len)
        buf[0] = '\0';
    put(&o, "%d,", r->chapter);
    put_text(&o, r->slug);
    put_text(&o, r->variant);
    put_text(&o, r->gpu);
    put(&o, "%d.%d,%d,", r->cc_major, r->cc_minor, r->sms);
    put_num(&o, r->sm_clock_mhz, "%.0f");
    put_text(&o, r->driver);
    put_text(&o, r->cuda);
    put(&o, "%ld,", r->size);
    put_text(&o, r->knobs);
    put(&o, "%llu,", r->seed);
    put_text(&o, r->method);
    put(&o, "%d,", r->samples);
    put_num(&o, r->median_us, "%.3f");
    put_num(&o, r->min_us, "%.3f");
    put_num(&o, r->q1_us, "%.3f");
    put_num(&o, r->q3_us, "%.3f");
    put_num(&o, r->noise_pct, "%.2f");
    put_num(&o, r->rate, "%.1f");
    put_text(&o, r->rate >= 0 ? r->rate_unit : "");
    put_text(&o, r->roof_name);
    put_num(&o, r->roof, "%.1f");
    put_num(&o, r->pct_roof, "%.1f");
    put(&o, "%s,", r->check_passed ? "pass" : "fail");
    put(&o, "%.3g,", r->max_err);
    put_text(&o, r->source_hash);
    put_text(&o, r->commit);
    put_text(&o, r->date);
    put_text(&o, r->host);
    put_num(&o, r->host_copy_gbs, "%.2f");
    if (r->host_copy_all_gbs >= 0)
        put(&o, "%.2f", r->host_copy_all_gbs);
    return o.overflow ? -1 : (int)o.used;
}

int results_append(const char *path, const struct result_row *r)
{
    char line[2048];
    if (results_format(line, sizeof line, r) < 0)
        return -1;
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    int fresh = ftell(f) == 0;
    if (fseek(f, 0, SEEK_END) == 0)
        fresh = ftell(f) == 0;
    int ok = (!fresh || fprintf(f, "%s\n", HEADER) > 0) && fprintf(f, "%s\n", line) > 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}
