/* cli_common.c — helpers shared by the smsim subcommands.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "arch/arch.h"
#include "cli/cli.h"

/* Append one override.  Its syntax and value are checked by arch_load(),
 * which reports errors as "--set:N:C: ..." with the override's position, so
 * every --set message has one format whichever subcommand received it. */
int cli_add_override(struct arch_override **ov, int *n, const char *text)
{
    if (!text) {
        fprintf(stderr, "smsim: --set needs a value (section.key=value)\n");
        return -1;
    }
    struct arch_override *grown = realloc(*ov, (size_t)(*n + 1) * sizeof **ov);
    if (!grown) {
        fprintf(stderr, "smsim: out of memory\n");
        return -1;
    }
    grown[*n].text = text;
    *ov = grown;
    (*n)++;
    return 0;
}

int cli_parse_int(const char *opt, const char *s, long lo, long hi, int *v)
{
    char *end = NULL;
    long x = 0;
    int ok = (s[0] >= '0' && s[0] <= '9') ||
             (lo < 0 && s[0] == '-' && s[1] >= '0' && s[1] <= '9');
    if (ok) {
        errno = 0;
        x = strtol(s, &end, 10);
        ok = *end == '\0' && errno == 0 && x >= lo && x <= hi;
    }
    if (!ok) {
        fprintf(stderr, "smsim: %s '%s': expected an integer in %ld..%ld\n", opt, s, lo, hi);
        return -1;
    }
    *v = (int)x;
    return 0;
}

int cli_load_arch(const char *path, const struct arch_override *ov, int n, struct arch *a)
{
    char err[ARCH_ERR_MAX];
    if (arch_load(path, ov, n, a, err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}
