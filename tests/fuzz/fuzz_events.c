/* fuzz_events.c — fuzz target for the reconstruction from an event file
 * (sim/convert/conv_events.c, docs/tracing.md "Reconstruction").
 *
 * The input is an event file for the hand-written listing
 * tests/data/events/recon.sass (function _Z5reconPf; run from the
 * repository root, as ctest does): written to <scratch dir>/input.smev and
 * converted twice into <scratch dir>/out, without counts and with
 * tests/data/events/recon.counts, so arbitrary record sequences drive the
 * path search and both choice rules.  A conversion must end (no hang: the
 * search is bounded), fail with one line, or write a trace that smsim's
 * Accel-Sim reader reads back with the written number of warp-instructions;
 * a bounded sample of its warps is walked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "convert/conv_events.h"
#include "convert/conv_sass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512], out[600], list[700];
    fz_write_file("input.smev", data, size, path, sizeof path);
    snprintf(out, sizeof out, "%s/out", fz_dir());
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    for (int counts = 0; counts < 2; counts++) {
        struct conv_events_opts o = {
            .events_path = path, .sass_path = "tests/data/events/recon.sass",
            .counts_path = counts ? "tests/data/events/recon.counts" : NULL, .out_dir = out};
        struct conv_events_stats st;
        char err[TRACE_ERR_MAX];
        remove(list);
        if (conv_events_convert(&o, &st, err)) {
            fz_check_error(err);
            continue;
        }
        struct trace_file *t = trace_open(list, err);
        if (!t)
            abort(); /* what the exporter wrote must read back */
        uint64_t total = 0;
        for (int k = 0; k < t->nkernels; k++)
            total += conv_sass_kernel_insts(t->kernels[k]);
        if (total != st.insts)
            abort();
        fz_walk(t, 20000);
        trace_close(t);
    }
    return 0;
}
