/* report_json.c — the report as one JSON object:
 *   {"config": NAME, "kernels": [{"index", "name", "grid", "block",
 *                                 "metrics": {"<ncu name>": value, ...}}]}
 * Metrics keep stats_metrics() order, so the output is deterministic.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include "report/report.h"

void report_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            /* Other control characters must be escaped (RFC 8259 s7);
             * bytes >= 0x80 pass through (UTF-8 from the trace). */
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void report_format_number(char buf[REPORT_NUM_MAX], double v)
{
    if (!isfinite(v)) {
        snprintf(buf, REPORT_NUM_MAX, "null");
        return;
    }
    /* Integral values below 2^53 print exactly without a fraction. */
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, REPORT_NUM_MAX, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    /* Otherwise the shortest %.Ng that reads back to the same double. */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, REPORT_NUM_MAX, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

void report_json_number(FILE *f, double v)
{
    char buf[REPORT_NUM_MAX];
    report_format_number(buf, v);
    fputs(buf, f);
}

static void dims(FILE *f, const uint32_t d[3])
{
    fprintf(f, "[%u, %u, %u]", d[0], d[1], d[2]);
}

int report_json(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts,
                const struct report_opts *o)
{
    if (parts & REPORT_HEAD) {
        fputs("{\n  \"config\": ", f);
        report_json_string(f, config);
        fputs(",\n  \"kernels\": [", f);
    }
    for (int i = 0; i < n; i++) {
        const struct stats_kernel *s = k[i].s;
        struct stats_metric m[STATS_METRICS_MAX];
        int nm = report_metrics(s, a, o, m);
        fputs(first + i ? ",\n    {\n" : "\n    {\n", f);
        fprintf(f, "      \"index\": %d,\n      \"name\": ", k[i].index);
        report_json_string(f, s->launch.name);
        fputs(",\n      \"grid\": ", f);
        dims(f, s->launch.grid);
        fputs(",\n      \"block\": ", f);
        dims(f, s->launch.block);
        fputs(",\n      \"metrics\": {", f);
        for (int j = 0; j < nm; j++) {
            fputs(j ? ",\n        " : "\n        ", f);
            report_json_string(f, m[j].name);
            fputs(": ", f);
            report_json_number(f, m[j].value);
        }
        fputs("\n      }\n    }", f);
    }
    if (parts & REPORT_TAIL)
        fputs(first + n ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
