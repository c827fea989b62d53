/* fuzz_accelsim.c — fuzz target for the Accel-Sim .traceg kernel reader.
 *
 * The input is written to a file named input.traceg and opened with
 * trace_accelsim_open() (headers only); thread blocks are parsed when a warp
 * begins, so a bounded sample of warps is walked afterwards.  Unknown-opcode
 * warnings go to /dev/null.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "trace/trace_accelsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fz_write_file("input.traceg", data, size, path, sizeof path);
    struct trace_file *t = calloc(1, sizeof *t);
    FILE *warn = fopen("/dev/null", "w");
    if (!t || !warn)
        abort();
    char err[TRACE_ERR_MAX];
    if (trace_accelsim_open(path, warn, t, err))
        fz_check_error(err);
    else
        fz_walk(t, 20000);
    trace_close(t);
    fclose(warn);
    return 0;
}
