/* cli_common.c — helpers shared by the smsim subcommands.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Index of s in the NULL-terminated list, or -1. */
static int find_name(const char *const *list, const char *s)
{
    for (int k = 0; list && list[k]; k++)
        if (!strcmp(list[k], s))
            return k;
    return -1;
}

int cli_opt_next(struct cli_opts *st, const char **name, const char **val)
{
    *name = NULL;
    *val = NULL;
    if (st->i >= st->argc)
        return CLI_OPT_END;
    const char *arg = st->argv[st->i++];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
        return CLI_OPT_HELP;
    if (!st->no_args && (arg[0] != '-' || arg[1] == '\0')) {
        *val = arg;
        return CLI_OPT_ARG;
    }
    if (find_name(st->flags, arg) >= 0) {
        *name = arg;
        return CLI_OPT_FLAG;
    }
    /* Only long options may carry "=value"; "-o=x" stays one unknown word. */
    const char *eq = strchr(arg, '=');
    if (eq && !strncmp(arg, "--", 2) && (size_t)(eq - arg) < sizeof st->name) {
        memcpy(st->name, arg, (size_t)(eq - arg));
        st->name[eq - arg] = '\0';
        *val = eq + 1;
    } else {
        snprintf(st->name, sizeof st->name, "%s", arg);
    }
    st->k = find_name(st->known, st->name);
    if (st->k < 0) {
        fprintf(stderr, "smsim: %sunknown option '%s' (see %s)\n", st->tag, arg, st->help);
        return CLI_OPT_ERROR;
    }
    if (!*val) {
        if (st->i >= st->argc) {
            fprintf(stderr, "smsim: %soption %s needs a value\n", st->tag, st->name);
            return CLI_OPT_ERROR;
        }
        *val = st->argv[st->i++];
    }
    *name = st->name;
    return CLI_OPT_VALUE;
}
