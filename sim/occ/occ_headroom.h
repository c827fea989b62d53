/* occ_headroom.h — how far each input of a launch may move before its
 * resident-block count changes, and what the next block needs: the
 * occupancy advisor's numbers, computed with occ_compute() only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_OCC_HEADROOM_H
#define SMSIM_OCC_HEADROOM_H

#include <stdio.h>
#include "occ/occ.h"

/* One input of the launch, changed alone (the others as given). */
struct occ_room {
    int used;       /* 1: reported (barriers: only where the arch limits them)   */
    int now;        /* its value in the launch                                   */
    int keep_max;   /* largest value keeping blocks_per_sm (-1: none, or 0 blocks) */
    int next_max;   /* largest value whose own limit allows blocks_per_sm + 1
                       (-1: no value does)                                       */
};

struct occ_headroom {
    int blocks;               /* the launch's blocks_per_sm                        */
    int next;                 /* blocks + 1                                        */
    double next_pct;          /* occupancy of `next` blocks at this block size     */
    unsigned binding;         /* the launch's binding limits (occ_result.binding)  */
    int max_blocks;           /* sm.max_blocks: no input lifts it                  */
    struct occ_room regs;     /* registers per thread                              */
    struct occ_room smem;     /* shared memory per block, static + dynamic, bytes
                                 (dynamic grows; the kernel opts in to it)         */
    struct occ_room threads;  /* threads per block (its limit: warps)              */
    struct occ_room barriers; /* named barriers per block                          */
};

/* Launch l with `total` bytes of shared memory per block (static +
 * dynamic): static keeps its size while it fits, dynamic takes the rest,
 * and a kernel maximum dynamic size below that grows to it (the kernel opts
 * in to what it uses).  The one rule of --vary smem and the headroom. */
struct occ_launch occ_launch_with_smem(const struct occ_launch *l, int total);

/* Fill *h for launch l.  0, or -1 when the launch's inputs are invalid
 * (occ_compute's "invalid launch"/"invalid architecture"). */
int occ_headroom(const struct arch *a, const struct occ_launch *l, struct occ_headroom *h);

/* The headroom in words, one line per input and one for the next step,
 * each starting with `indent`. */
void occ_headroom_text(const struct occ_headroom *h, const char *indent, FILE *f);

#endif
