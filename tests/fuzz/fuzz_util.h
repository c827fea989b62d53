/* fuzz_util.h — helpers shared by the fuzz harnesses (tests/fuzz/README.md).
 *
 * Each harness defines LLVMFuzzerTestOneInput().  Built with -DSMSIM_FUZZ=ON
 * and clang, it links libFuzzer; in every build it also links fuzz_replay.c,
 * whose main() feeds files (the seed corpus, tests/data/crashers/) through
 * the same function, so each crasher stays a regression test under ctest.
 * A harness calls abort() when a parser breaks its contract: an error that is
 * not exactly one non-empty line, or a stream that disagrees with itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_FUZZ_UTIL_H
#define SMSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The per-process scratch directory <tmpdir>/smsim-fuzz-<pid> (TMPDIR or
 * /tmp), created on the first call and removed with its contents at exit.
 * Aborts if it cannot be created. */
const char *fz_dir(void);

/* Write data to <fz_dir()>/<name> (created or truncated: one open, one
 * write, one close, no fsync) and return its path, formatted into the
 * caller's buffer `path` of cap bytes.  Aborts if the file cannot be
 * written (an environment problem, not a bug). */
const char *fz_write_file(const char *name, const uint8_t *data, size_t size,
                          char *path, size_t cap);

/* Abort unless err is one non-empty line containing ": " (the contract of
 * every user-facing error: "file:line:col: message" or "file: message"). */
void fz_check_error(const char *err);

/* Walk a bounded sample of every kernel's warps (first, second, middle and
 * last block; first four and last warp) for at most `budget` instructions in
 * all, checking each instruction's fields and, where the reader can count a
 * warp cheaply, that the count matches the walk.  Aborts on a violation. */
void fz_walk(struct trace_file *t, uint64_t budget);

#endif
