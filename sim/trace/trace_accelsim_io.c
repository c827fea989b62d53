/* trace_accelsim_io.c — buffered line reader over a plain or xz file (see
 * trace_accelsim_io.h).  xz is decoded in-process with liblzma (no shell
 * pipe); concatenated streams (xz -T0 output, `cat a.xz b.xz`) are accepted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace_accelsim_io.h"

enum { CHUNK = 64 * 1024 };

struct as_io {
    FILE *fp;               /* the raw file                                     */
    char *path;             /* for messages                                     */
    int xz;                 /* 1: decode with liblzma                           */
    lzma_stream zs;         /* decoder state (xz only)                          */
    int zs_live;            /* zs initialised                                   */
    int zs_end;             /* decoder reported LZMA_STREAM_END                 */
    uint8_t in[CHUNK];      /* compressed input (xz only)                       */
    char buf[CHUNK];        /* decoded (or raw) text                            */
    size_t bpos, blen;      /* unread part of buf: [bpos, blen)                 */
    int eof;                /* no more text after buf                           */
    uint64_t off;           /* uncompressed offset of buf[bpos]                 */
    uint64_t lineno;        /* number of the line last returned                 */
    char *line;             /* assembled line                                   */
    size_t cap;             /* its capacity                                     */
    uint64_t restarts;      /* xz rewinds                                       */
    char err[TRACE_ERR_MAX]; /* last error, "" if none                          */
};

static int fail(struct as_io *f, const char *msg)
{
    snprintf(f->err, sizeof f->err, "%s: %s", f->path, msg);
    return -1;
}

static int zs_start(struct as_io *f)
{
    lzma_stream init = LZMA_STREAM_INIT;
    if (f->zs_live)
        lzma_end(&f->zs);
    f->zs = init;
    f->zs_live = 0;
    f->zs_end = 0;
    if (lzma_stream_decoder(&f->zs, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        return fail(f, "cannot start the xz decoder");
    f->zs_live = 1;
    return 0;
}

struct as_io *as_io_open(const char *path, char err[TRACE_ERR_MAX])
{
    struct as_io *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return NULL;
    }
    f->fp = fopen(path, "rb");
    if (!f->fp) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        free(f->path);
        free(f);
        return NULL;
    }
    /* xz magic: FD 37 7A 58 5A 00 (xz file format 1.0.4, section 2.1.1.1) */
    unsigned char magic[6];
    size_t n = fread(magic, 1, sizeof magic, f->fp);
    f->xz = n == 6 && !memcmp(magic, "\xFD" "7zXZ\0", 6);
    rewind(f->fp);
    if (f->xz && zs_start(f)) {
        snprintf(err, TRACE_ERR_MAX, "%s", f->err);
        as_io_close(f);
        return NULL;
    }
    return f;
}

void as_io_close(struct as_io *f)
{
    if (!f)
        return;
    if (f->zs_live)
        lzma_end(&f->zs);
    if (f->fp)
        fclose(f->fp);
    free(f->line);
    free(f->path);
    free(f);
}

/* Refill buf (which is fully consumed).  0, or -1 on error; sets eof. */
static int refill(struct as_io *f)
{
    f->bpos = f->blen = 0;
    if (f->eof)
        return 0;
    if (!f->xz) {
        size_t n = fread(f->buf, 1, sizeof f->buf, f->fp);
        if (n == 0) {
            if (ferror(f->fp))
                return fail(f, "read error");
            f->eof = 1;
        }
        f->blen = n;
        return 0;
    }
    f->zs.next_out = (uint8_t *)f->buf;
    f->zs.avail_out = sizeof f->buf;
    while (f->zs.avail_out == sizeof f->buf && !f->zs_end) {
        lzma_action act = LZMA_RUN;
        if (f->zs.avail_in == 0) {
            size_t n = fread(f->in, 1, sizeof f->in, f->fp);
            if (n == 0 && ferror(f->fp))
                return fail(f, "read error");
            f->zs.next_in = f->in;
            f->zs.avail_in = n;
            if (n == 0)
                act = LZMA_FINISH;
        }
        lzma_ret r = lzma_code(&f->zs, act);
        if (r == LZMA_STREAM_END) {
            f->zs_end = 1;
        } else if (r == LZMA_BUF_ERROR && act == LZMA_FINISH) {
            return fail(f, "truncated xz data (the compressed file ends early)");
        } else if (r != LZMA_OK) {
            return fail(f, r == LZMA_DATA_ERROR || r == LZMA_FORMAT_ERROR
                               ? "corrupt xz data"
                               : r == LZMA_MEM_ERROR ? "out of memory decoding xz"
                                                     : "xz decoder error");
        }
    }
    f->blen = sizeof f->buf - f->zs.avail_out;
    if (f->blen == 0)
        f->eof = 1;
    return 0;
}

const char *as_io_line(struct as_io *f, size_t *len)
{
    size_t n = 0;
    for (;;) {
        if (f->bpos == f->blen) {
            if (refill(f))
                return NULL;
            if (f->blen == 0) {
                if (n == 0)
                    return NULL; /* end of file */
                break;           /* last line without '\n' */
            }
        }
        char *s = f->buf + f->bpos;
        size_t avail = f->blen - f->bpos;
        char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail;
        if (n + take + 1 > f->cap) {
            if (n + take + 1 > AS_IO_MAX_LINE) {
                char m[96];
                snprintf(m, sizeof m, "line %llu is longer than %d bytes",
                         (unsigned long long)f->lineno + 1, AS_IO_MAX_LINE);
                fail(f, m);
                return NULL;
            }
            size_t c = f->cap ? f->cap : 256;
            while (c < n + take + 1)
                c *= 2;
            char *p = realloc(f->line, c);
            if (!p) {
                fail(f, "out of memory");
                return NULL;
            }
            f->line = p;
            f->cap = c;
        }
        memcpy(f->line + n, s, take);
        n += take;
        f->bpos += take + (nl != NULL);
        f->off += take + (nl != NULL);
        if (nl)
            break;
    }
    if (n > 0 && f->line[n - 1] == '\r')
        n--;
    f->line[n] = '\0';
    f->lineno++;
    *len = n;
    return f->line;
}

uint64_t as_io_lineno(const struct as_io *f) { return f->lineno; }
uint64_t as_io_tell(const struct as_io *f) { return f->off; }
const char *as_io_error(const struct as_io *f) { return f->err[0] ? f->err : NULL; }
int as_io_is_xz(const struct as_io *f) { return f->xz; }
uint64_t as_io_restarts(const struct as_io *f) { return f->restarts; }

int as_io_seek(struct as_io *f, uint64_t off, uint64_t lineno)
{
    f->err[0] = '\0';
    if (!f->xz) {
        /* Inside the current buffer: just move. */
        uint64_t start = f->off - f->bpos;
        if (off >= start && off <= start + f->blen) {
            f->bpos = (size_t)(off - start);
            f->off = off;
        } else {
            if (fseeko(f->fp, (off_t)off, SEEK_SET))
                return fail(f, "cannot seek");
            f->bpos = f->blen = 0;
            f->eof = 0;
            f->off = off;
        }
        f->lineno = lineno - 1;
        return 0;
    }
    if (off < f->off) {
        /* xz streams decode forward only: start again from the beginning. */
        rewind(f->fp);
        if (zs_start(f))
            return -1;
        f->bpos = f->blen = 0;
        f->eof = 0;
        f->off = 0;
        f->restarts++;
    }
    while (f->off < off) {
        if (f->bpos == f->blen) {
            if (refill(f))
                return -1;
            if (f->blen == 0)
                return fail(f, "seek past the end of the decompressed text");
        }
        size_t avail = f->blen - f->bpos;
        size_t step = off - f->off < avail ? (size_t)(off - f->off) : avail;
        f->bpos += step;
        f->off += step;
    }
    f->lineno = lineno - 1;
    return 0;
}
