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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "trace/trace.h"
#include "trace/trace_accelsim.h"
#include "trace/trace_native.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* First non-blank line of text[0..len) (at most cap-1 bytes of it), or "".
 * A NUL byte counts as text: a file of NUL lines must not look blank (the
 * search would never end on /dev/zero). */
static void first_line_of(const char *text, size_t len, char *buf, size_t cap)
{
    size_t i = 0, n = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    while (i < len && n + 1 < cap && text[i] != '\n')
        buf[n++] = text[i++];
    buf[n] = '\0';
}

/* First non-blank line of a regular file: blank lines before it are finite,
 * but it reads at most PROBE_MAX bytes. */
enum { PROBE_MAX = 1 << 16 };
static void first_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char *text = malloc(PROBE_MAX);
    if (text) {
        size_t n = fread(text, 1, PROBE_MAX, fp);
        first_line_of(text, n, buf, cap);
        free(text);
    }
    fclose(fp);
}

/* All of a pipe, FIFO or device (fd) in memory, for a reader that must not
 * lose what the format probe read: such input can be read only once.
 * Reading stops after a NUL byte (the reader then names its line: /dev/zero
 * would never end) and fails past TRACE_PIPE_MAX bytes.  0 or -1 with err. */
static int slurp(int fd, const char *name, char **text, size_t *len, char err[TRACE_ERR_MAX])
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", name);
        return -1;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= (size_t)TRACE_PIPE_MAX) {
                snprintf(err, TRACE_ERR_MAX,
                         "%s: more than %d MiB from a pipe or device (save the trace to a file)",
                         name, TRACE_PIPE_MAX >> 20);
                free(buf);
                return -1;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                snprintf(err, TRACE_ERR_MAX, "%s: out of memory", name);
                free(buf);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, TRACE_ERR_MAX, "%s: read error: %s", name, strerror(errno));
            free(buf);
            return -1;
        }
        if (r == 0)
            break;
        char *z = memchr(buf + n, '\0', (size_t)r);
        if (z) {
            n = (size_t)(z - buf) + 1;
            break;
        }
        n += (size_t)r;
    }
    *text = buf;
    *len = n;
    return 0;
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

/* A trace that is not a regular file ("-" for standard input, a pipe, a
 * FIFO, <(zcat ...), a device): read it once into memory, probe that, and
 * give the same bytes to the reader.  Only the native reader can take
 * text in memory; the Accel-Sim reader reads its files by offset. */
static int open_unseekable(const char *path, const char *name, int fd, struct trace_file *t,
                           char err[TRACE_ERR_MAX])
{
    char *text;
    size_t len;
    if (slurp(fd, name, &text, &len, err))
        return -1;
    char first[256];
    first_line_of(text, len, first, sizeof first);
    int rc;
    if (is_accelsim(path, first)) {
        snprintf(err, TRACE_ERR_MAX,
                 "%s: an Accel-Sim trace must be a regular file (it is read by offset), "
                 "not a pipe or device",
                 name);
        rc = -1;
    } else {
        rc = trace_native_open_mem(name, text, len, t, err);
    }
    free(text);
    return rc;
}

struct trace_file *trace_open(const char *path, char err[TRACE_ERR_MAX])
{
    struct trace_file *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return NULL;
    }
    int std_in = !strcmp(path, "-");
    int fd = std_in ? STDIN_FILENO : open(path, O_RDONLY);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && (std_in || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))) {
        int rc = open_unseekable(path, std_in ? "<stdin>" : path, fd, t, err);
        if (!std_in)
            close(fd);
        if (rc) {
            arch_msg_escape(err, TRACE_ERR_MAX);
            trace_close(t);
            return NULL;
        }
        return t;
    }
    if (fd >= 0 && !std_in)
        close(fd);
    /* a regular file (or one that cannot be opened: the reader says why) */
    char first[256];
    first_line(path, first, sizeof first);
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        if (readers[i].detect && !readers[i].detect(path, first))
            continue;
        if (readers[i].open(path, t, err)) {
            arch_msg_escape(err, TRACE_ERR_MAX);
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
