/* study_insts.c — the instruction limit every simulating subcommand
 * applies before it runs a kernel (docs/errors.md, --max-insts): one rule,
 * one message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include "study/study.h"

uint64_t study_insts_limit(int given, uint64_t value, uint64_t max_cycles)
{
    return given ? value : max_cycles ? 0 : STUDY_MAX_INSTS;
}

int study_insts_check(struct trace_kernel *k, uint64_t limit, char *err, size_t n)
{
    struct tr_total t;
    if (!tr_kernel_insts_total(k, limit, 0, &t))
        return 0;
    char total[48];
    if (t.n == UINT64_MAX)
        snprintf(total, sizeof total, "2^64 or more");
    else
        snprintf(total, sizeof total, "%s%llu", t.kind == TR_TOTAL_EXACT ? "" : "at least ",
                 (unsigned long long)t.n);
    snprintf(err, n,
             "kernel '%s' executes %s warp-instructions, more than %llu (give --max-insts N, "
             "0 for no limit, or --max-cycles N)",
             k->launch.name, total, (unsigned long long)limit);
    return -1;
}
