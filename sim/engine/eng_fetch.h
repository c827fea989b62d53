/* eng_fetch.h — a warp's front end: its next instruction, and when that
 * instruction is in the warp's buffer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_FETCH_H
#define SMSIM_ENG_FETCH_H

#include <stdint.h>
#include "arch/arch.h"

struct eng_run;
struct eng_warp;
struct tr_inst;

/* The warp's next instruction into w->ni (NULL at the end of its stream),
 * with its pipe and queue; `room` (the slot's entry of eng_sm.copies)
 * takes a sealed copy of an instruction the reader left unsealed. */
void eng_fetch_next(struct eng_run *r, struct eng_warp *w, struct tr_inst *room);

/* The first cycle the instruction after one issued at t is in the buffer:
 * one instruction per cycle reaches it, and a branch redirects fetch for
 * scheduler.branch_latency more cycles.  (Also study's one-warp walk.) */
static inline uint64_t eng_fetch_after(const struct arch *a, uint64_t t, int branch)
{
    return t + 1 + (branch && a->branch_latency > 0 ? (uint64_t)a->branch_latency : 0);
}

/* The first cycle a warp that became resident at t has its first
 * instruction. */
static inline uint64_t eng_fetch_first(const struct arch *a, uint64_t t)
{
    return t + (uint64_t)(a->fetch_latency > 0 ? a->fetch_latency : 0);
}

#endif
