/* report_csv.c — the report shaped like `ncu --csv --page raw`: row 1 the
 * column names ("Kernel Name", "Block Size", "Grid Size", then one column per
 * metric), row 2 the units (left out with report_opts.no_units, so that a
 * table reader sees numbers only), then one row per kernel.  Every field is quoted,
 * as ncu does; numbers carry no thousands separators.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>
#include "report/report.h"

void report_csv_string(FILE *f, const char *s, int always)
{
    if (!always && !strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);      /* RFC 4180: a quote is doubled */
        fputc(*s, f);
    }
    fputc('"', f);
}

static void field(FILE *f, int first, const char *s)
{
    if (!first)
        fputc(',', f);
    report_csv_string(f, s, 1);
}

static void dims_field(FILE *f, const uint32_t d[3])
{
    char buf[64];
    snprintf(buf, sizeof buf, "(%u, %u, %u)", d[0], d[1], d[2]);
    field(f, 0, buf);
}

int report_csv(FILE *f, const char *config, const struct arch *a,
               const struct report_kernel *k, int n, int first, int parts,
               const struct report_opts *o)
{
    struct stats_metric m[STATS_METRICS_MAX];
    int nm = 0;
    (void)first;
    if (parts & REPORT_HEAD) {
        if (n > 0)
            nm = report_metrics(k[0].s, a, o, m);
        else {
            /* No kernel: still print the two header rows from empty counters. */
            struct stats_kernel z = {0};
            nm = report_metrics(&z, a, o, m);
        }
        field(f, 1, "Kernel Name");
        field(f, 0, "Block Size");
        field(f, 0, "Grid Size");
        for (int j = 0; j < nm; j++)
            field(f, 0, m[j].name);
        fputc('\n', f);
        if (!o || !o->no_units) {
            field(f, 1, "");
            field(f, 0, "");
            field(f, 0, "");
            for (int j = 0; j < nm; j++)
                field(f, 0, m[j].unit);
            fputc('\n', f);
        }
    }
    for (int i = 0; i < n; i++) {
        const struct stats_kernel *s = k[i].s;
        nm = report_metrics(s, a, o, m);
        field(f, 1, s->launch.name);
        dims_field(f, s->launch.block);
        dims_field(f, s->launch.grid);
        for (int j = 0; j < nm; j++) {
            /* Same number text as the JSON report; "unlimited" is empty. */
            char buf[REPORT_NUM_MAX] = "";
            if (isfinite(m[j].value))
                report_format_number(buf, m[j].value);
            field(f, 0, buf);
        }
        fputc('\n', f);
    }
    (void)config;
    return ferror(f) ? -1 : 0;
}
