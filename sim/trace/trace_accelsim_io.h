/* trace_accelsim_io.h — random-access text of an Accel-Sim trace file, and a
 * buffered line reader over a byte range of it.
 *
 * A plain file is read with pread().  An xz file (detected by its magic
 * bytes, not by its name) is decoded in-process with liblzma into an
 * unlinked temporary file in $TMPDIR (else /tmp), as far as it has been
 * asked for (as_src_ensure), and that file is then read with pread() like a
 * plain one: memory stays constant, the disk holds the decoded text until
 * the source is closed.  Positions are byte offsets in the decoded text.
 *
 * Thread safety: as_src_read() of a range already made available is a
 * pread() and may run on many threads at once; as_src_ensure() (which may
 * decode more xz) must be called by one thread at a time (the reader's
 * mutex).  A line reader belongs to one thread at a time.
 *
 * Memory: a plain source holds nothing; an xz source two 64 KiB buffers and
 * the decoder's dictionary (at most 64 MiB for xz -9; 1 MiB for the
 * tracer's `xz -1`).  A line reader holds its buffer (grown to the longest
 * line it met).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ACCELSIM_IO_H
#define SMSIM_TRACE_ACCELSIM_IO_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

enum {
    AS_IO_MAX_LINE = 1 << 20, /* longest accepted line, bytes                  */
    AS_LR_SLACK = 16          /* bytes after a line reader's buffer that may be
                                 loaded (not used) by word-at-a-time parsing    */
};

struct as_src;

/* Open `path` for reading.  NULL with "path: message" in err on failure. */
struct as_src *as_src_open(const char *path, char err[TRACE_ERR_MAX]);
void as_src_close(struct as_src *s);
/* Make the text up to offset `end` readable (decode xz that far; a no-op for
 * a plain file).  0, or -1 (as_src_error).  One thread at a time. */
int as_src_ensure(struct as_src *s, uint64_t end);
/* Copy up to n bytes at offset off into buf: the count, 0 at the end of the
 * text, -1 on an error (as_src_error; the message is written only when
 * `locked`, i.e. the caller holds the reader's mutex).  With `locked`, the
 * text is first decoded as far as needed. */
int64_t as_src_read(struct as_src *s, void *buf, size_t n, uint64_t off, int locked);
/* Message of the last error ("path: ..."), or NULL. */
const char *as_src_error(const struct as_src *s);
/* 1 if the file is xz-compressed. */
int as_src_is_xz(const struct as_src *s);

/* A line reader over [off, end) of a source. */
struct as_lr {
    char *buf;           /* text window (owned, malloc)                        */
    size_t cap;          /* its size                                           */
    size_t pos, len;     /* unread part of buf: [pos, len)                     */
    uint64_t boff;       /* source offset of buf[0]                            */
    uint64_t end;        /* stop reading here (UINT64_MAX: the end of text)    */
    uint64_t lineno;     /* number of the line last returned                   */
    uint64_t loff;       /* source offset of the line last returned            */
    int locked;          /* reads may decode (the caller holds the mutex)      */
    int failed;          /* the last NULL was an error, not the end            */
    size_t cut;          /* where the last line's terminator was written, or
                            SIZE_MAX (restored on the next call, so the text
                            can be read again: as_lr_rewind)                  */
    char cutc;           /* the byte it replaced                               */
    char err[96];        /* what failed, when not the source (a long line)     */
};

/* Start reading at offset `off`, which begins line `lineno` + 1.  The
 * buffer is kept (or allocated with `cap` bytes); 0 or -1 (out of memory). */
int as_lr_init(struct as_lr *r, size_t cap, uint64_t off, uint64_t end, uint64_t lineno,
               int locked);
void as_lr_free(struct as_lr *r);
/* Next line, NUL-terminated without its '\n' (and a trailing '\r'), valid
 * until the next call; *len gets its length.  NULL at the end of the range
 * or on an error (r->failed; message in r->err or as_src_error). */
char *as_lr_next(struct as_lr *r, struct as_src *s, size_t *len);
/* Read again from offset `off` (beginning line `lineno` + 1), keeping the
 * text already in the buffer when it is there. */
void as_lr_rewind(struct as_lr *r, uint64_t off, uint64_t lineno);
/* Offset of the next line's first byte. */
static inline uint64_t as_lr_tell(const struct as_lr *r) { return r->boff + r->pos; }

#endif
