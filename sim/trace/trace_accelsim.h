/* trace_accelsim.h — Accel-Sim (NVBit tracer) traces: kernelslist.g and
 * .traceg / .traceg.xz kernel files, tracer versions 3, 4 and 5
 * (docs/accelsim.md).  The exporter that writes any trace in that format is
 * convert/conv_accelsim.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ACCELSIM_H
#define SMSIM_TRACE_ACCELSIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "trace/trace.h"

/* Open a kernel list (kernelslist.g) or a single kernel file (.traceg,
 * .traceg.xz), appending its kernels to *out.  Only the headers are read
 * here; thread blocks are read when the engine starts them, each warp
 * streaming its own lines (memory independent of the file's size; kernels
 * are mt_safe).  `warn` receives the warning lines (unknown opcodes, after
 * a kernel's last warp ended, in file order; untrusted headers, at open)
 * (NULL: stderr).  0, or -1 with "file:line:col: message" in err. */
int trace_accelsim_open(const char *path, FILE *warn, struct trace_file *out,
                        char err[TRACE_ERR_MAX]);

/* What the streaming reader holds and did, for tests and the benchmark. */
struct tr_accelsim_stats {
    int version;              /* tracer version of the file (3, 4, 5)           */
    int binary_version;       /* -binary version (SASS ISA, e.g. 90; 0 unknown) */
    uint32_t statics;         /* static instructions made (EXIT NOP twins too)  */
    uint32_t unknown_opcodes; /* distinct opcodes not in the SASS table          */
    uint64_t blocks_loaded;   /* thread-block sections skimmed to run them       */
    uint64_t blocks_live;     /* blocks held now (running, or the cached one)    */
    uint64_t sections_indexed;/* sections passed over and remembered, not yet run */
    uint64_t bytes_now;       /* bytes in block tables and warp windows now      */
    uint64_t bytes_peak;      /* most bytes they ever held                       */
    uint64_t restarts;        /* passes from the top for a block already dropped */
};

/* Fill *st for a kernel opened by this reader; -1 for other readers. */
int tr_accelsim_stats(const struct trace_kernel *k, struct tr_accelsim_stats *st);

#endif
