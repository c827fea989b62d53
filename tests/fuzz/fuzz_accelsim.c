/* fuzz_accelsim.c — fuzz target for the Accel-Sim .traceg kernel reader.
 *
 * The reader takes a path, so the input is written to <scratch dir>/
 * input.traceg (fuzz_util.h: one directory per process, one open + write +
 * close per input) and opened with trace_accelsim_open() (headers only);
 * thread blocks are parsed when a warp begins, so a bounded sample of warps
 * is walked afterwards.  Unknown-opcode warnings go to /dev/null, opened
 * once per process.  Only the public API of trace_accelsim.h is used.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "trace/trace_accelsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512];
    static FILE *warn;
    if (!warn) {
        warn = fopen("/dev/null", "w");
        if (!warn)
            abort();
    }
    fz_write_file("input.traceg", data, size, path, sizeof path);
    struct trace_file *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    char err[TRACE_ERR_MAX];
    if (trace_accelsim_open(path, warn, t, err))
        fz_check_error(err);
    else
        fz_walk(t, 20000);
    trace_close(t);
    return 0;
}
