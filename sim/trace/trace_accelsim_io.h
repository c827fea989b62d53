/* trace_accelsim_io.h — line reader for Accel-Sim trace files: plain text or
 * xz-compressed (liblzma, detected by the xz magic bytes, not by the name).
 *
 * Positions are byte offsets in the *uncompressed* text, so the same index
 * works for both.  A plain file seeks with fseeko; an xz stream can only be
 * decoded forward: a seek ahead decodes and discards, a seek back restarts
 * the decoder from the beginning of the file (counted in `restarts`).
 * Memory: two 64 KiB buffers, the longest line, and the xz decoder's
 * dictionary (at most 64 MiB for xz -9; 1 MiB for the tracer's `xz -1`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ACCELSIM_IO_H
#define SMSIM_TRACE_ACCELSIM_IO_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

enum { AS_IO_MAX_LINE = 1 << 20 }; /* longest accepted line, bytes */

struct as_io;

/* Open `path` for reading.  NULL with "path: message" in err on failure. */
struct as_io *as_io_open(const char *path, char err[TRACE_ERR_MAX]);
void as_io_close(struct as_io *f);

/* Next line without its '\n' (and a trailing '\r'), NUL-terminated, valid
 * until the next call; *len gets its length.  NULL at the end of the file or
 * on an error (then as_io_error() is non-NULL). */
const char *as_io_line(struct as_io *f, size_t *len);
/* Line number (1-based) of the line last returned. */
uint64_t as_io_lineno(const struct as_io *f);
/* Offset of the next line's first byte in the uncompressed text. */
uint64_t as_io_tell(const struct as_io *f);
/* Continue reading at uncompressed offset `off`, which is the start of line
 * `lineno` (both from as_io_tell/as_io_lineno).  0 or -1 (as_io_error). */
int as_io_seek(struct as_io *f, uint64_t off, uint64_t lineno);
/* Message of the last error ("path: ..."), or NULL. */
const char *as_io_error(const struct as_io *f);
/* 1 if the file is xz-compressed. */
int as_io_is_xz(const struct as_io *f);
/* Times an xz stream was restarted from the beginning for a backward seek. */
uint64_t as_io_restarts(const struct as_io *f);

#endif
