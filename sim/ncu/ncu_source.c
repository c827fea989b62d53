/* ncu_source.c — reader of Nsight Compute's Source page export
 * (`ncu -i R --page source --csv --print-source sass`, the SourceCounters
 * section): a line "Kernel Name","NAME", then a header row ("Address",
 * "Source", "Instructions Executed", the stall_* sample columns, ...), then
 * one row per SASS instruction.  Read into an ncu_table (one row per
 * instruction, every cell as written) so the callers look columns up by
 * name; smsim's own --source-csv has the same shape and reads back here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncu/ncu_source.h"

/* The fields of one CSV record from text[*pos..len) (RFC 4180 quotes; a
 * record ends at a newline outside quotes), each malloc'd into *f (grown as
 * needed), their columns into *fc; returns the count, -1 when out of memory,
 * -2 for a quote left open. */
static int record(const char *text, size_t len, size_t *pos, char ***f, int **fc, int *cap,
                  int *col0)
{
    int n = 0;
    size_t p = *pos, line_start = *pos;
    (void)col0;
    for (;;) {
        if (n == *cap) {
            int c = *cap ? 2 * *cap : 64;
            char **nf = realloc(*f, (size_t)c * sizeof *nf);
            if (!nf)
                return -1;
            *f = nf;
            int *nc = realloc(*fc, (size_t)c * sizeof *nc);
            if (!nc)
                return -1;
            *fc = nc;
            *cap = c;
        }
        size_t start = p, cap2 = 16, k = 0;
        char *v = malloc(cap2);
        if (!v)
            return -1;
        (*fc)[n] = (int)(start - line_start) + 1;
        if (p < len && text[p] == '"') {
            p++;
            for (;;) {
                if (p >= len) {
                    free(v);
                    return -2;
                }
                if (text[p] == '"') {
                    if (p + 1 < len && text[p + 1] == '"') {
                        p += 2;
                        v[k++] = '"';
                    } else {
                        p++;
                        break;
                    }
                } else {
                    v[k++] = text[p++];
                }
                if (k + 1 >= cap2) {
                    char *nv = realloc(v, cap2 *= 2);
                    if (!nv) {
                        free(v);
                        return -1;
                    }
                    v = nv;
                }
            }
        }
        while (p < len && text[p] != ',' && text[p] != '\n') {
            if (text[p] != '\r')
                v[k++] = text[p];
            p++;
            if (k + 1 >= cap2) {
                char *nv = realloc(v, cap2 *= 2);
                if (!nv) {
                    free(v);
                    return -1;
                }
                v = nv;
            }
        }
        v[k] = '\0';
        (*f)[n++] = v;
        if (p < len && text[p] == ',') {
            p++;
            continue;
        }
        if (p < len)
            p++; /* the newline */
        *pos = p;
        return n;
    }
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++)
        free(f[i]);
}

/* Cell `at` of t holds a copy of s in the table's one text block (the
 * layout ncu_cell reads, ncu_csv.h). */
static int put_text(struct ncu_table *t, size_t at, const char *s)
{
    size_t n = strlen(s) + 1;
    if (t->ntext + n > t->captext) {
        size_t cap = t->captext ? t->captext : 1 << 12;
        while (cap < t->ntext + n)
            cap *= 2;
        char *x = realloc(t->text, cap);
        if (!x)
            return -1;
        t->text = x;
        t->captext = cap;
    }
    memcpy(t->text + t->ntext, s, n);
    t->cells[at] = t->ntext + 1;
    t->ntext += n;
    return 0;
}

int ncu_source_parse(const char *text, size_t len, const char *path, struct ncu_table *t,
                     char kernel[256], char err[NCU_ERR_MAX])
{
    memset(t, 0, sizeof *t);
    kernel[0] = '\0';
    char **f = NULL;
    int *fc = NULL, cap = 0, line = 0, rc = -1, hdr = 0, rowcap = 0;
    size_t pos = 0;
    t->path = strdup(path);
    if (!t->path)
        goto oom;
    while (pos < len) {
        line++;
        int n = record(text, len, &pos, &f, &fc, &cap, NULL);
        if (n == -1)
            goto oom;
        if (n == -2) {
            snprintf(err, NCU_ERR_MAX, "%s:%d:1: a quoted field is not closed", path, line);
            goto out;
        }
        if (n == 1 && !f[0][0]) { /* a blank line */
            free_fields(f, n);
            continue;
        }
        if (!strncmp(f[0], "==", 2)) { /* ncu's own lines: ==PROF==, ==WARNING== */
            free_fields(f, n);
            continue;
        }
        if (!hdr && f[0][0] == '#') { /* smsim's provenance lines ("# key: value") */
            free_fields(f, n);
            continue;
        }
        if (!hdr && !strcmp(f[0], "Kernel Name")) {
            snprintf(kernel, 256, "%s", n > 1 ? f[1] : "");
            free_fields(f, n);
            continue;
        }
        if (!hdr) {
            if (strcmp(f[0], "Address")) {
                snprintf(err, NCU_ERR_MAX,
                         "%s:%d:1: expected the header of ncu's Source page export (\"Address\","
                         "\"Source\",...; ncu -i R --page source --csv --print-source sass), "
                         "got '%.60s'", path, line, f[0]);
                free_fields(f, n);
                goto out;
            }
            t->ncols = n;
            t->names = calloc((size_t)n, sizeof *t->names);
            t->units = calloc((size_t)n, sizeof *t->units);
            if (!t->names || !t->units) {
                free_fields(f, n);
                goto oom;
            }
            for (int i = 0; i < n; i++) {
                t->names[i] = f[i];
                t->units[i] = strdup("");
                if (!t->units[i])
                    goto oom;
            }
            hdr = 1;
            continue;
        }
        if (!strcmp(f[0], "Kernel Name")) {
            snprintf(err, NCU_ERR_MAX, "%s:%d:1: a second kernel ('%.100s'): export one kernel "
                     "(ncu -i R --page source --csv --kernel-name NAME)", path, line,
                     n > 1 ? f[1] : "");
            free_fields(f, n);
            goto out;
        }
        if (n != t->ncols) {
            snprintf(err, NCU_ERR_MAX, "%s:%d:1: %d fields, the header has %d", path, line, n,
                     t->ncols);
            free_fields(f, n);
            goto out;
        }
        if (t->nrows == rowcap) {
            int c = rowcap ? 2 * rowcap : 256;
            size_t cells = (size_t)c * (size_t)t->ncols;
            size_t *nc = realloc(t->cells, cells * sizeof *nc);
            if (nc)
                t->cells = nc;
            int *nl = nc ? realloc(t->line, cells * sizeof *nl) : NULL;
            if (nl)
                t->line = nl;
            int *ncl = nl ? realloc(t->col, cells * sizeof *ncl) : NULL;
            if (!ncl) {
                free_fields(f, n);
                goto oom;
            }
            t->col = ncl;
            rowcap = c;
        }
        for (int i = 0; i < n; i++) {
            size_t at = (size_t)t->nrows * (size_t)t->ncols + (size_t)i;
            if (put_text(t, at, f[i])) {
                free_fields(f, n);
                goto oom;
            }
            t->line[at] = line;
            t->col[at] = fc[i];
        }
        free_fields(f, n);
        t->nrows++;
    }
    if (!hdr) {
        snprintf(err, NCU_ERR_MAX, "%s:1:1: no \"Address\" header (expected ncu's Source page "
                 "export: ncu -i R --page source --csv --print-source sass)", path);
        goto out;
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, NCU_ERR_MAX, "%s: out of memory", path);
out:
    free(f);
    free(fc);
    if (rc)
        ncu_table_free(t);
    return rc;
}

int ncu_source_load(const char *path, struct ncu_table *t, char kernel[256],
                    char err[NCU_ERR_MAX])
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, NCU_ERR_MAX, "smsim: cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 65536 > cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 20);
            if (!nb) {
                free(buf);
                fclose(fp);
                snprintf(err, NCU_ERR_MAX, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, fp);
        len += got;
    } while (got > 0);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        snprintf(err, NCU_ERR_MAX, "smsim: cannot read '%s': read error", path);
        return -1;
    }
    int rc = ncu_source_parse(buf ? buf : "", len, path, t, kernel, err);
    free(buf);
    return rc;
}
