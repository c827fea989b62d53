/* trace_native.h — the native text trace reader (docs/trace-format.md).
 * Used by trace_open(); tests include it for the statistics below.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_NATIVE_H
#define SMSIM_TRACE_NATIVE_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

/* TR_NATIVE_MAX_LINE: the longest line, in bytes (without its newline); a
 * longer one is an error, not a reason to grow a buffer without end. */
enum { TR_NATIVE_MAX_INCLUDE = 16, TR_NATIVE_MAX_NEST = 64, TR_NATIVE_MAX_LINE = 65535 };

/* Parse `path` (and its includes), appending its kernels to *out (which the
 * caller initialised; on error the kernels already appended stay in *out for
 * the caller to free).  Returns 0, or -1 with "file:line:col: message" in err. */
int trace_native_open(const char *path, struct trace_file *out, char err[TRACE_ERR_MAX]);
/* The same for text[0..len) held in memory (the fuzz harness): `path` names
 * it in messages and includes resolve next to it, as for a file there. */
int trace_native_open_mem(const char *path, const char *text, size_t len, struct trace_file *out,
                          char err[TRACE_ERR_MAX]);

/* Static size of a native kernel: what the reader keeps in memory. */
struct tr_native_stats {
    uint32_t insts;   /* static instructions                                  */
    uint32_t ops;     /* program entries (instructions + control)             */
    uint32_t exprs;   /* dynamic (block/warp-dependent) expressions           */
    int dynamic;      /* 1 if control flow depends on block or warp           */
    size_t bytes;     /* bytes of program storage (excluding slack)           */
};

/* Fill *st for a kernel opened by the native reader; -1 for other readers. */
int tr_native_stats(const struct trace_kernel *k, struct tr_native_stats *st);

#endif
