/* eng_sched.h — the warp scheduler's choice: which of an SMSP's eligible
 * warps issues (scheduler.policy).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_SCHED_H
#define SMSIM_ENG_SCHED_H

#include <stdint.h>

struct eng_warp;

/* What happened to each eligible warp of an SMSP in one cycle's issue. */
enum eng_pick_mark {
    ENG_PICK_FREE = 0,     /* not picked (yet)                                  */
    ENG_PICK_TAKEN,        /* picked, being issued                              */
    ENG_PICK_LOST,         /* picked for a second issue slot, but its pipe or
                              queue was taken by the first: not selected        */
    ENG_PICK_ISSUED        /* issued                                            */
};

/* The index in elig[0..n) of the warp to issue next, or -1 when every one
 * is marked.  elig: eligible local slots of SMSP s, ascending; w: the SM's
 * warps (slot = local slot * sub + s); last: local slot of the last issued
 * warp (-1 none); last_idx: its index in elig, -1 when it is not eligible.
 * SCHED_GTO: the last issued warp if eligible, else the oldest (launch
 * order).  SCHED_GTY: the last issued warp if eligible, else the youngest
 * (shared/reference/modern-sm-core.md §2, Huerta et al. MICRO 2025 "CGGTY").
 * SCHED_LRR: the first eligible slot after the last issued one, wrapping.
 * SCHED_GYB: the last issued warp if eligible, else the youngest block's
 * first eligible slot after the last issued one (docs/model.md).
 * SCHED_GOB: the same with the oldest block.  SCHED_GRR: the last issued
 * warp if eligible, else as SCHED_LRR (every warp takes its turn, whatever
 * its block). */
int eng_sched_pick(int policy, const struct eng_warp *w, int sub, int s, int last,
                   const int *elig, const uint8_t *mark, int n, int last_idx);

#endif
