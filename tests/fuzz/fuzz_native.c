/* fuzz_native.c — fuzz target for the native trace reader.
 *
 * The input is parsed in memory with trace_native_open_mem() under the name
 * <scratch dir>/input.trace (fuzz_util.h: fz_dir()), so includes resolve in
 * that directory, where a few fixed files are written once per process: a
 * good and a bad kernel in sub/, two files that include each other, and an
 * input.trace that includes itself (what `include "input.trace"` met when
 * the input was written to that name).  After a successful parse a bounded
 * sample of warps is walked, which evaluates the block- and warp-dependent
 * expressions (loop trips, when conditions).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz_util.h"
#include "trace/trace_native.h"

/* Files an include of the input can reach (names as in the seeds). */
static const char *const fixtures[][2] = {
    {"sub/good.trace", "kernel sub_good grid=(2,1,1) block=(64,1,1) regs=8 {\n"
                       "  loop block + 1 {\n    FFMA R0, R1, R2, R3\n  }\n"
                       "  when warp == 1 {\n    LDG.E R4, desc[UR4][R2.64]\n  }\n  EXIT\n}\n"},
    {"sub/bad.trace", "kernel k grid=1 block=32 regs=8 {\n  FOO R0\n  EXIT\n}\n"},
    {"cycle_a.trace", "include \"cycle_b.trace\"\n"},
    {"cycle_b.trace", "kernel kb grid=1 block=32 regs=8 {\n  EXIT\n}\ninclude \"cycle_a.trace\"\n"},
    {"input.trace", "include \"input.trace\"\n"},
};

static const char *setup(void)
{
    static char path[512];
    if (!path[0]) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s/sub", fz_dir());
        if (mkdir(sub, 0700) && errno != EEXIST) {
            perror(sub);
            abort();
        }
        for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
            char p[512];
            fz_write_file(fixtures[i][0], (const uint8_t *)fixtures[i][1],
                          strlen(fixtures[i][1]), p, sizeof p);
        }
        snprintf(path, sizeof path, "%s/input.trace", fz_dir());
    }
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = setup();
    struct trace_file *t = calloc(1, sizeof *t);
    if (!t)
        return 0;
    char err[TRACE_ERR_MAX];
    if (trace_native_open_mem(path, (const char *)data, size, t, err))
        fz_check_error(err);
    else
        fz_walk(t, 20000);
    trace_close(t);
    return 0;
}
