/* fuzz_native.c — fuzz target for the native trace reader.
 *
 * The input is written to a file (the reader reads files, and includes are
 * resolved next to it) and opened with trace_native_open().  After a
 * successful parse a bounded sample of warps is walked, which evaluates the
 * block- and warp-dependent expressions (loop trips, when conditions).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include "fuzz_util.h"
#include "trace/trace_native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fz_write_file("input.trace", data, size, path, sizeof path);
    struct trace_file *t = calloc(1, sizeof *t);
    if (!t)
        return 0;
    char err[TRACE_ERR_MAX];
    if (trace_native_open(path, t, err))
        fz_check_error(err);
    else
        fz_walk(t, 20000);
    trace_close(t);
    return 0;
}
