/* eng_disp.h — block residency: which block goes to which SM slot and
 * when it becomes resident (docs/model.md, "GPU and block dispatch").
 *
 * One GPU-wide dispatcher, a serial unit, hands out the grid's blocks in
 * order (scheduler.dispatch_launch cycles each, the first at
 * scheduler.launch_start) and takes finished blocks back
 * (scheduler.dispatch_retire cycles each).  Each SM starts its blocks one
 * at a time: scheduler.sm_block_cycles + scheduler.sm_warp_cycles x (warps
 * of the block) after one block's start the next may start, and warp i of
 * a block becomes resident i x sm_warp_cycles after the block's start.  The
 * first wave goes out in block order, block i to SM i % sm_count.  A warp
 * that retired from its SMSP at t holds its SM warp slot until t +
 * scheduler.warp_release (eng_sm.c counts it in the SM's warps_active and
 * cycles_active until then).  A slot whose block's last warp retired waits
 * in its SM's queue; once released, the dispatcher takes the block back,
 * one job at a time, round-robin over the SMs (of the SMs with a released
 * block, the first after the one it served last), and hands the slot the
 * next block, which reaches the SM scheduler.block_launch_latency cycles
 * (at least one) after the take-back.  Jobs are decided at epoch ends
 * (eng_par.c) up to the cycle before which every released slot is known.  An SM's first warp fetches the
 * kernel's code scheduler.icache_cold cycles after it starts; no warp of
 * the SM gets an instruction before that.  The kernel ends
 * scheduler.launch_drain cycles after the later of its last warp's
 * release and the last take-back (eng_run.c).  The dispatcher's and the
 * SMs' start times live in struct eng_run and are touched only here, in the
 * serial phase.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_DISP_H
#define SMSIM_ENG_DISP_H

#include <stdint.h>

struct eng_run;
struct eng_sm;

/* Hand the first blocks of the grid to every SM's slots, resident at 0. */
void eng_disp_first_wave(struct eng_run *r);

/* Make the pending blocks of SM smi that are due at t resident. */
void eng_disp_launch_due(struct eng_run *r, int smi, uint64_t t);

/* The earliest cycle a pending block of sm becomes resident (ENG_NEVER if
 * none is pending). */
uint64_t eng_disp_pending_min(const struct eng_run *r, const struct eng_sm *sm);

/* The block in slot b of SM smi retired its last warp at t: the slot is
 * free, noted for the epoch end. */
void eng_disp_retired(struct eng_run *r, int smi, int b, uint64_t t);

/* Epoch end (every slot freed before `end` is queued), one thread: the
 * dispatcher's jobs, in the order above; nfree: the slots in the SMs'
 * queues.  Returns the earliest cycle a block launches (the SMs that got one
 * have their next look lowered), ENG_NEVER if none; *wake is the cycle of
 * the next job it could not decide yet (ENG_NEVER if none). */
uint64_t eng_disp_refill(struct eng_run *r, uint64_t end, int nfree, uint64_t *wake);

#endif
