/* trace_open.c — format detection: trace_open() picks a file's reader,
 * trace_close() frees what it opened.  The helpers every reader shares are
 * in trace.c, which calls no reader.
 *
 * Formats are tried in the order of the readers table: each has a detector
 * (from the file name and its first non-blank line) and an open function.
 * The native format is the fallback, so a file that is not recognised as any
 * other format gets native syntax errors (the most useful message for a
 * hand-written trace).  The Accel-Sim reader (kernelslist.g / .traceg[.xz],
 * sim/trace/trace_accelsim.c) is tried first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "trace/trace.h"
#include "trace/trace_accelsim.h"
#include "trace/trace_native.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* First non-blank line of the file (at most cap-1 bytes of it), or "". */
static void first_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    while (fgets(buf, (int)cap, fp)) {
        size_t i = strspn(buf, " \t\r\n");
        if (buf[i]) {
            memmove(buf, buf + i, strlen(buf + i) + 1);
            break;
        }
        buf[0] = '\0';
    }
    fclose(fp);
}

/* Accel-Sim traces: a kernel list or a per-kernel .traceg (docs/accelsim.md).
 * By name (kernelslist.g, .traceg, .traceg.xz, .tracez) or by the first line:
 * a '-kernel name' header, or a list's first command (MemcpyHtoD, or a
 * "kernel-..." file name; a native trace's first keyword is "kernel " with a
 * space, never "kernel-"). */
static int is_accelsim(const char *path, const char *first)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strcmp(base, "kernelslist.g") || ends_with(path, ".traceg") ||
        ends_with(path, ".traceg.xz") || ends_with(path, ".tracez"))
        return 1;
    /* xz magic bytes: only Accel-Sim traces are read compressed */
    if (!strncmp(first, "\xFD" "7zXZ", 5))
        return 1;
    return !strncmp(first, "-kernel name", 12) || !strncmp(first, "MemcpyHtoD", 10) ||
           !strncmp(first, "kernel-", 7);
}

static int open_accelsim(const char *path, struct trace_file *out, char err[TRACE_ERR_MAX])
{
    return trace_accelsim_open(path, NULL, out, err);
}

struct reader {
    const char *name;                                   /* format name        */
    int (*detect)(const char *path, const char *first); /* NULL: always       */
    int (*open)(const char *path, struct trace_file *out, char err[TRACE_ERR_MAX]);
};

static const struct reader readers[] = {
    {"accelsim", is_accelsim, open_accelsim},
    {"native", NULL, trace_native_open},
};

struct trace_file *trace_open(const char *path, char err[TRACE_ERR_MAX])
{
    struct trace_file *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return NULL;
    }
    char first[256];
    first_line(path, first, sizeof first);
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        if (readers[i].detect && !readers[i].detect(path, first))
            continue;
        if (readers[i].open(path, t, err)) {
            trace_close(t);
            return NULL;
        }
        return t;
    }
    snprintf(err, TRACE_ERR_MAX, "%s: unknown trace format", path);
    trace_close(t);
    return NULL;
}

void trace_close(struct trace_file *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nkernels; i++)
        if (t->kernels[i] && t->kernels[i]->ops && t->kernels[i]->ops->destroy)
            t->kernels[i]->ops->destroy(t->kernels[i]);
    free(t->kernels);
    free(t);
}
