/* ncu_source.h — reader of Nsight Compute's Source page CSV export (one row
 * per SASS instruction: Address, Source, Instructions Executed, stall_*
 * samples, ...), the per-instruction view `smsim compare --source` diffs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_NCU_SOURCE_H
#define SMSIM_NCU_SOURCE_H

#include <stddef.h>
#include "ncu/ncu_csv.h"

/* Parse text[0..len) into t (one row per instruction, the header's names;
 * units all ""), the "Kernel Name" line's name into kernel ("" without one).
 * 0, or -1 with "path:line:col: message" in err: no "Address" header, a
 * row whose field count is not the header's, a second kernel, an unclosed
 * quote.  ncu's own "==PROF==" lines and blank lines are skipped. */
int ncu_source_parse(const char *text, size_t len, const char *path, struct ncu_table *t,
                     char kernel[256], char err[NCU_ERR_MAX]);
/* Read and parse a file; 0, or -1 with a one-line message. */
int ncu_source_load(const char *path, struct ncu_table *t, char kernel[256],
                    char err[NCU_ERR_MAX]);

#endif
