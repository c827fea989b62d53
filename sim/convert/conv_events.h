/* conv_events.h — rebuild every recorded warp's dynamic instruction stream
 * from a tracer event file (conv_smev.h) and the kernel's SASS listing
 * (conv_sass.h), and write it as an Accel-Sim trace directory
 * (docs/tracing.md "Reconstruction").
 *
 * Between two consecutive records of a warp the path is searched on the
 * function's control-flow graph: it may pass no unpredicated instrumented
 * instruction (one the tracer records whenever it executes) without a
 * record; a predicated one on the path is written with mask 0.  Choices
 * between several such paths follow per-PC counts when given, else the
 * fewest instructions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CONV_EVENTS_H
#define SMSIM_CONV_EVENTS_H

#include <stdint.h>
#include "trace/trace.h"

/* CONV_EVENTS_MAX_WARP_INSTS: the most instructions one warp's stream may
 * have (16 bytes each while the warp is written). */
enum { CONV_EVENTS_MAX_WARP_INSTS = 1 << 26 };

struct conv_events_opts {
    const char *events_path;  /* launch-K.smev                                    */
    const char *sass_path;    /* cuobjdump -sass listing of its module            */
    const char *counts_path;  /* ncu SourceCounters CSV or `pc,count` file, or NULL */
    const char *out_dir;      /* Accel-Sim trace directory (created if missing)   */
    int xz;                   /* 1: kernel-1.traceg.xz, xz-compressed             */
};

struct conv_events_stats {
    uint64_t blocks;          /* thread blocks written                            */
    uint64_t warps;           /* warps written                                    */
    uint64_t insts;           /* warp-instructions written                        */
    uint64_t records;         /* records read (every one is consumed)             */
    uint64_t ambiguous;       /* choices between several valid successors        */
    uint64_t by_counts;       /* ... of which the counts decided                  */
    uint64_t masked_off;      /* predicated instrumented instructions without a
                                 record, written with mask 0                      */
    uint64_t diverged;        /* segments that start on the other side of an
                                 earlier branch (a divergent warp)                */
    uint32_t grid[3];         /* the grid written (the sampled blocks)            */
};

/* Reconstruct and write o->out_dir/kernelslist.g + kernel-1.traceg[.xz].  0 with
 * *st filled, or -1 with one line in err (nothing is left in out_dir then). */
int conv_events_convert(const struct conv_events_opts *o, struct conv_events_stats *st,
                        char err[TRACE_ERR_MAX]);

/* The record kinds (bit k = kind k, conv_smev.h) that the tracer writes for
 * an opcode (with modifiers): 0 when the Sanitizer API does not instrument
 * it.  The one table of docs/tracing.md "Instrumented instructions". */
unsigned conv_events_kinds(const char *opcode);

#endif
