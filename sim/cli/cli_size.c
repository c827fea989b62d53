/* cli_size.c — byte counts on the command line: the trace format's number
 * syntax (tr_parse_number: decimal or 0x hex, '_' separators, a K/M/G
 * suffix of 1024, 1024^2, 1024^3), so "--smem-dynamic 24K" means what
 * "smem_dynamic 24K" means in a trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include "cli/cli.h"
#include "trace/trace_expr.h"

int cli_parse_size(const char *opt, const char *s, long lo, long hi, int *v)
{
    size_t pos = 0;
    uint64_t x = 0;
    if (tr_parse_number(s, &pos, &x) || s[pos] != '\0' || x < (uint64_t)lo ||
        x > (uint64_t)hi) {
        fprintf(stderr, "smsim: %s '%s': expected an integer in %ld..%ld\n", opt, s, lo, hi);
        return -1;
    }
    *v = (int)x;
    return 0;
}
