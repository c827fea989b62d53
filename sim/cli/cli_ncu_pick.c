/* cli_ncu_pick.c — choose one launch (row) of an ncu report by ID and/or
 * kernel name, for the subcommands that read one (compare --ncu, sass2trace
 * --ncu).  A report of several launches is the normal case (ncu profiles
 * every launch it is not told to skip), so the message lists the launches.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "ncu/ncu_csv.h"

/* "void <unnamed>::f<float, 10>(T2 *, int)" -> "<unnamed>::f<float, 10>": the
 * name without return type and parameters, at most n-1 characters. */
static void short_name(const char *k, char *out, size_t n)
{
    if (!k) {
        snprintf(out, n, "?");
        return;
    }
    if (!strncmp(k, "void ", 5))
        k += 5;
    size_t l = 0;
    int depth = 0;
    for (; k[l]; l++) {
        if (k[l] == '<')
            depth++;
        else if (k[l] == '>' && depth)
            depth--;
        else if (k[l] == '(' && !depth)
            break;
    }
    if (l >= n)
        l = n - 1;
    memcpy(out, k, l);
    out[l] = 0;
}

int cli_ncu_pick(const struct ncu_table *t, const char *id, const char *kernel_re,
                 const char *id_opt, const char *kernel_opt, int *row)
{
    int idc = ncu_col(t, "ID"), kc = ncu_col(t, "Kernel Name");
    regex_t re;
    if (kernel_re) {
        int rc = regcomp(&re, kernel_re, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char m[128];
            regerror(rc, &re, m, sizeof m);
            fprintf(stderr, "smsim: %s '%s': bad regular expression: %s\n", kernel_opt,
                    kernel_re, m);
            return 1;
        }
    }
    int n = 0, first = -1;
    for (int r = 0; r < t->nrows; r++) {
        const char *i = ncu_cell(t, r, idc), *k = ncu_cell(t, r, kc);
        if (id && (!i || strcmp(i, id)))
            continue;
        if (kernel_re && (!k || regexec(&re, k, 0, NULL, 0)))
            continue;
        if (!n++)
            first = r;
    }
    if (n == 1) {
        if (kernel_re)
            regfree(&re);
        *row = first;
        return 0;
    }
    char sel[320] = "";
    if (id || kernel_re)
        snprintf(sel, sizeof sel, " with%s%s%s%s%s%s", id ? " ID " : "", id ? id : "",
                 id && kernel_re ? " and" : "", kernel_re ? " a Kernel Name matching '" : "",
                 kernel_re ? kernel_re : "", kernel_re ? "'" : "");
    if (n == 0) {
        fprintf(stderr, "smsim: %s: no launch%s (%d launch%s:", t->path, sel, t->nrows,
                t->nrows == 1 ? "" : "es");
    } else {
        fprintf(stderr, "smsim: %s: %d launches%s: choose one with %s ID or %s REGEX (the "
                "\"ID\" and \"Kernel Name\" columns):", t->path, n, sel, id_opt, kernel_opt);
    }
    /* the candidates (all rows when none matched), runs of consecutive rows
     * of one kernel as "IDs A-B" */
    int shown = 0, r = 0, more = 0;
    while (r < t->nrows) {
        const char *k = ncu_cell(t, r, kc);
        int ok = n == 0 || ((!id || (ncu_cell(t, r, idc) && !strcmp(ncu_cell(t, r, idc), id))) &&
                            (!kernel_re || (k && !regexec(&re, k, 0, NULL, 0))));
        if (!ok) {
            r++;
            continue;
        }
        if (shown == 12) {
            more = 1;
            break;
        }
        int e = r;
        while (e + 1 < t->nrows && (!id || n == 0)) {
            const char *k2 = ncu_cell(t, e + 1, kc);
            if (!k || !k2 || strcmp(k, k2) || (kernel_re && n && regexec(&re, k2, 0, NULL, 0)))
                break;
            e++;
        }
        char nm[96];
        short_name(k, nm, sizeof nm);
        const char *a = ncu_cell(t, r, idc), *b = ncu_cell(t, e, idc);
        if (e > r)
            fprintf(stderr, "%s IDs %s-%s '%s'", shown ? "," : "", a ? a : "?", b ? b : "?", nm);
        else
            fprintf(stderr, "%s ID %s '%s'", shown ? "," : "", a ? a : "?", nm);
        shown++;
        r = e + 1;
    }
    fprintf(stderr, "%s%s\n", more ? ", ..." : "", n == 0 ? ")" : "");
    if (kernel_re)
        regfree(&re);
    return 1;
}
