/* eng_sm.h — one SM at one cycle: launch due blocks, classify every
 * resident warp into exactly one warp state, let each SMSP's scheduler
 * issue, retire finished warps, and say when the SM next needs a look; and,
 * at an epoch end, apply the memory system's answers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_SM_H
#define SMSIM_ENG_SM_H

#include <stdint.h>

struct eng_run;

/* Step SM smi at cycle t (its sm->next); sets sm->next to its next look. */
void eng_sm_step(struct eng_run *r, int smi, uint64_t t);

/* Epoch end: the deferred requests of SM smi have their answers
 * (eng_req.ready); apply them and settle the evaluations that waited. */
void eng_sm_settle(struct eng_run *r, int smi);

#endif
