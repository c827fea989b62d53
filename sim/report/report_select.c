/* report_select.c — which metrics a report shows (report_opts.metrics:
 * `smsim --metrics REGEX`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <regex.h>
#include "report/report.h"

int report_metrics(const struct stats_kernel *s, const struct arch *a,
                   const struct report_opts *o, struct stats_metric m[STATS_METRICS_MAX])
{
    int nm = stats_metrics(s, a, m, STATS_METRICS_MAX);
    if (!o || !o->metrics)
        return nm;
    int kept = 0;
    for (int j = 0; j < nm; j++)
        if (!regexec(o->metrics, m[j].name, 0, NULL, 0))
            m[kept++] = m[j];
    return kept;
}
