/* report.c — format names and the dispatch to the writers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>
#include "report/report.h"

int report_parse_format(const char *name)
{
    if (!strcmp(name, "text"))
        return REPORT_TEXT;
    if (!strcmp(name, "json"))
        return REPORT_JSON;
    if (!strcmp(name, "csv"))
        return REPORT_CSV;
    return -1;
}

int report_write_part(FILE *f, int format, const char *config, const struct arch *a,
                      const struct report_kernel *k, int n, int first, int parts,
                      const struct report_opts *o)
{
    switch (format) {
    case REPORT_TEXT: return report_text(f, config, a, k, n, first, parts, o);
    case REPORT_JSON: return report_json(f, config, a, k, n, first, parts, o);
    case REPORT_CSV: return report_csv(f, config, a, k, n, first, parts, o);
    default: return -1;
    }
}

int report_write(FILE *f, int format, const char *config, const struct arch *a,
                 const struct report_kernel *k, int n)
{
    return report_write_part(f, format, config, a, k, n, 0, REPORT_HEAD | REPORT_TAIL, NULL);
}
