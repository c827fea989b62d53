/* conv_accelsim.h — write any trace (usually a native one) as an Accel-Sim
 * kernel list and tracer-version-4 .traceg files (docs/accelsim.md); the
 * reader of that format is trace/trace_accelsim.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CONV_ACCELSIM_H
#define SMSIM_CONV_ACCELSIM_H

#include <stdint.h>
#include <stdio.h>
#include "trace/trace.h"

/* Exporter options. */
struct conv_accelsim_opts {
    int binary_version;       /* written as -binary version (e.g. 90)            */
    uint64_t seed;            /* seeds the synthesized random-pattern addresses  */
    int xz;                   /* 1: kernel-N.traceg.xz, xz-compressed (conv_xz.c) */
    int use_pc;               /* 1: an instruction's PC is tr_inst.pc where it has
                                 one (has_pc); 0: 16 * its trace line           */
    const char *nvbit_version; /* -nvbit version text, NULL: "smsim-export"      */
};

/* xz-compress the rest of `in` onto `out` (conv_xz.c); 0, or -1 with errno. */
int conv_xz_copy(FILE *in, FILE *out);

/* Write every kernel of t into directory `dir` (created if missing) as
 * kernel-<i+1>.traceg (tracer version 4 lines; .traceg.xz with o->xz) and a
 * kernelslist.g naming them.  Addresses are synthesized deterministically from each native
 * instruction's pattern (docs/accelsim.md).  0, or -1 with a one-line
 * message in err. */
int conv_accelsim_export(struct trace_file *t, const char *dir,
                         const struct conv_accelsim_opts *o, char err[TRACE_ERR_MAX]);

#endif
