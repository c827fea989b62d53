/* cli_select.c — `--metrics REGEX`: which metrics a report shows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <regex.h>
#include <stdio.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "stats/stats.h"

int cli_metrics_regex(const char *pattern, const struct arch *a, regex_t *re)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char why[256];
        regerror(rc, re, why, sizeof why);
        cli_error("smsim: --metrics '%s': bad regular expression: %s", pattern, why);
        return -1;
    }
    /* the names do not depend on the counters: empty ones list them all */
    struct stats_kernel z = { 0 };
    struct stats_metric m[STATS_METRICS_MAX];
    int nm = stats_metrics(&z, a, m, STATS_METRICS_MAX);
    for (int j = 0; j < nm; j++)
        if (!regexec(re, m[j].name, 0, NULL, 0))
            return 0;
    regfree(re);
    cli_error("smsim: --metrics '%s' matches no metric smsim reports (docs/metrics.md)", pattern);
    return -1;
}
