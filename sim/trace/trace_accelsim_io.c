/* trace_accelsim_io.c — random-access text over a plain or xz file, and a
 * line reader over a byte range (see trace_accelsim_io.h).  xz is decoded
 * in-process with liblzma (no shell pipe) into an unlinked temporary file;
 * concatenated streams (xz -T0 output, `cat a.xz b.xz`) are accepted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE /* pread, mkstemp */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/trace_accelsim_io.h"

enum { CHUNK = 64 * 1024 };

struct as_src {
    int fd;                 /* the text: the file itself, or the decoded copy   */
    char *path;             /* for messages                                     */
    int xz;                 /* 1: decode with liblzma into fd                   */
    int zfd;                /* compressed input (xz only)                       */
    lzma_stream zs;         /* decoder state (xz only)                          */
    int zs_live;            /* zs initialised                                   */
    int zs_end;             /* all text decoded                                 */
    uint64_t avail;         /* decoded bytes in fd (xz only)                    */
    uint8_t *in, *out;      /* CHUNK-byte buffers (xz only)                     */
    char err[TRACE_ERR_MAX]; /* last error, "" if none                          */
};

static int fail(struct as_src *s, const char *msg)
{
    snprintf(s->err, sizeof s->err, "%s: %s", s->path, msg);
    return -1;
}

/* An unlinked temporary file in $TMPDIR (else /tmp): its space is freed
 * when it is closed, even if the process dies. */
static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *name = malloc(n);
    if (!name)
        return -1;
    snprintf(name, n, "%s/smsim-traceg-XXXXXX", dir);
    int fd = mkstemp(name);
    if (fd >= 0)
        unlink(name);
    free(name);
    return fd;
}

struct as_src *as_src_open(const char *path, char err[TRACE_ERR_MAX])
{
    struct as_src *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return NULL;
    }
    s->zfd = -1;
    s->fd = open(path, O_RDONLY);
    if (s->fd < 0) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        free(s->path);
        free(s);
        return NULL;
    }
    /* xz magic: FD 37 7A 58 5A 00 (xz file format 1.0.4, section 2.1.1.1) */
    unsigned char magic[6];
    ssize_t n = pread(s->fd, magic, sizeof magic, 0);
    s->xz = n == 6 && !memcmp(magic, "\xFD" "7zXZ\0", 6);
    if (!s->xz)
        return s;
    lzma_stream init = LZMA_STREAM_INIT;
    s->zs = init;
    s->zfd = s->fd;
    s->fd = temp_fd();
    s->in = malloc(CHUNK);
    s->out = malloc(CHUNK);
    if (s->fd < 0)
        fail(s, "cannot create a temporary file for the decoded text (TMPDIR)");
    else if (!s->in || !s->out)
        fail(s, "out of memory");
    else if (lzma_stream_decoder(&s->zs, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        fail(s, "cannot start the xz decoder");
    else
        s->zs_live = 1;
    if (!s->zs_live) {
        snprintf(err, TRACE_ERR_MAX, "%s", s->err);
        as_src_close(s);
        return NULL;
    }
    return s;
}

void as_src_close(struct as_src *s)
{
    if (!s)
        return;
    if (s->zs_live)
        lzma_end(&s->zs);
    if (s->fd >= 0)
        close(s->fd);
    if (s->zfd >= 0)
        close(s->zfd);
    free(s->in);
    free(s->out);
    free(s->path);
    free(s);
}

/* Write all of buf to fd. */
static int write_all(int fd, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

int as_src_ensure(struct as_src *s, uint64_t end)
{
    if (!s->xz)
        return 0;
    if (s->err[0])
        return -1; /* a decoding error stays */
    while (s->avail < end && !s->zs_end) {
        s->zs.next_out = s->out;
        s->zs.avail_out = CHUNK;
        while (s->zs.avail_out == CHUNK && !s->zs_end) {
            lzma_action act = LZMA_RUN;
            if (s->zs.avail_in == 0) {
                ssize_t n = read(s->zfd, s->in, CHUNK);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0)
                    return fail(s, "read error");
                s->zs.next_in = s->in;
                s->zs.avail_in = (size_t)n;
                if (n == 0)
                    act = LZMA_FINISH;
            }
            lzma_ret r = lzma_code(&s->zs, act);
            if (r == LZMA_STREAM_END)
                s->zs_end = 1;
            else if (r == LZMA_BUF_ERROR && act == LZMA_FINISH)
                return fail(s, "truncated xz data (the compressed file ends early)");
            else if (r != LZMA_OK)
                return fail(s, r == LZMA_DATA_ERROR || r == LZMA_FORMAT_ERROR
                                   ? "corrupt xz data"
                                   : r == LZMA_MEM_ERROR ? "out of memory decoding xz"
                                                         : "xz decoder error");
        }
        size_t got = CHUNK - s->zs.avail_out;
        if (got > 0 && write_all(s->fd, s->out, got))
            return fail(s, "cannot write the decoded text to the temporary file (disk full?)");
        s->avail += got;
    }
    return 0;
}

int64_t as_src_read(struct as_src *s, void *buf, size_t n, uint64_t off, int locked)
{
    if (s->xz) {
        if (locked && as_src_ensure(s, off + n))
            return -1;
        if (off >= s->avail)
            return 0;
        if (n > s->avail - off)
            n = (size_t)(s->avail - off);
    }
    for (;;) {
        ssize_t r = pread(s->fd, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            if (locked)
                fail(s, "read error");
            return -1;
        }
        return r;
    }
}

const char *as_src_error(const struct as_src *s) { return s->err[0] ? s->err : NULL; }
int as_src_is_xz(const struct as_src *s) { return s->xz; }

/* ---- line reader ------------------------------------------------------- */

int as_lr_init(struct as_lr *r, size_t cap, uint64_t off, uint64_t end, uint64_t lineno,
               int locked)
{
    if (!r->buf) {
        r->buf = malloc(cap + AS_LR_SLACK);
        if (!r->buf)
            return -1;
        r->cap = cap;
    }
    r->pos = r->len = 0;
    r->boff = off;
    r->end = end;
    r->lineno = lineno;
    r->loff = off;
    r->locked = locked;
    r->failed = 0;
    r->err[0] = '\0';
    r->cut = SIZE_MAX;
    return 0;
}

void as_lr_rewind(struct as_lr *r, uint64_t off, uint64_t lineno)
{
    if (r->cut != SIZE_MAX)
        r->buf[r->cut] = r->cutc;
    r->cut = SIZE_MAX;
    if (off >= r->boff && off <= r->boff + r->len) {
        r->pos = (size_t)(off - r->boff);
    } else {
        r->pos = r->len = 0;
        r->boff = off;
    }
    r->lineno = lineno;
    r->loff = off;
    r->failed = 0;
}

void as_lr_free(struct as_lr *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

/* Read more text after buf[len].  >0: bytes added, 0: end, -1: error. */
static int64_t more(struct as_lr *r, struct as_src *s)
{
    if (r->pos > 0) { /* keep the partial line at the front */
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->boff += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->len + 1 >= r->cap) { /* one byte stays free for the NUL */
        if (r->cap > AS_IO_MAX_LINE) {
            snprintf(r->err, sizeof r->err, "line %llu is longer than %d bytes",
                     (unsigned long long)r->lineno + 1, AS_IO_MAX_LINE);
            return -1;
        }
        char *p = realloc(r->buf, r->cap * 2 + AS_LR_SLACK);
        if (!p) {
            snprintf(r->err, sizeof r->err, "out of memory");
            return -1;
        }
        r->buf = p;
        r->cap *= 2;
    }
    uint64_t at = r->boff + r->len;
    if (at >= r->end)
        return 0;
    size_t want = r->cap - 1 - r->len;
    if (want > r->end - at)
        want = (size_t)(r->end - at);
    return as_src_read(s, r->buf + r->len, want, at, r->locked);
}

/* End the line at buf[i] (restored by the next call). */
static inline void cut(struct as_lr *r, size_t i)
{
    r->cut = i;
    r->cutc = r->buf[i];
    r->buf[i] = '\0';
}

char *as_lr_next(struct as_lr *r, struct as_src *s, size_t *len)
{
    if (r->cut != SIZE_MAX) {
        r->buf[r->cut] = r->cutc;
        r->cut = SIZE_MAX;
    }
    size_t scan = r->pos; /* bytes before this were searched already */
    for (;;) {
        char *st = r->buf + r->pos;
        char *nl = memchr(r->buf + scan, '\n', r->len - scan);
        if (nl) {
            size_t n = (size_t)(nl - st);
            r->loff = r->boff + r->pos;
            r->pos += n + 1;
            if (n > 0 && st[n - 1] == '\r')
                n--;
            cut(r, (size_t)(st - r->buf) + n);
            r->lineno++;
            *len = n;
            return st;
        }
        scan = r->len - r->pos;
        int64_t got = more(r, s);
        scan = r->pos + scan;
        if (got < 0) {
            r->failed = 1;
            return NULL;
        }
        if (got == 0) {
            if (r->len == r->pos)
                return NULL; /* the end */
            /* the last line has no '\n' */
            size_t at = r->pos, n = r->len - r->pos;
            char *st2 = r->buf + at;
            r->loff = r->boff + at;
            r->pos = r->len;
            if (n > 0 && st2[n - 1] == '\r')
                n--;
            cut(r, at + n);
            r->lineno++;
            *len = n;
            return st2;
        }
        r->len += (size_t)got;
        /* word-at-a-time parsing may load up to 8 bytes past the text: make
         * them defined (the buffer has AS_LR_SLACK bytes of room) */
        memset(r->buf + r->len, 0, 8);
    }
}
