/* eng_fetch.h — a warp's front end: its next instruction, and when that
 * instruction is in the warp's buffer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_FETCH_H
#define SMSIM_ENG_FETCH_H

#include <stdint.h>
#include "arch/arch.h"
#include "mem/mem_cache.h"
#include "trace/trace.h"

struct eng_run;
struct eng_sm;
struct eng_smsp;
struct eng_warp;

/* Bytes per instruction-cache line (the fill unit; docs/model.md "Front
 * end": the calibration's code sizes are whole lines of 8 instructions). */
enum { ENG_ILINE_SHIFT = 7 };

/* An SM's instruction caches (scheduler.icache_*), all zero while the model
 * is off (icache_l0_bytes 0).  Tags are line + 1, 0 = empty. */
struct eng_icache {
    uint32_t *l0;          /* [warp slots * n0]: each warp slot's direct-mapped L0  */
    uint64_t *r0;          /* [warp slots * n0]: cycle each L0 line is (or will be) in */
    struct mem_cache l1;   /* the SM's L1 (LRU, ENG_FE_WAYS); a way's fill is the
                              cycle its line is (or will be) in the L1           */
    uint8_t *seen;         /* [nseen]: 1 for every line the SM fetched in the kernel */
    uint32_t n0;           /* lines of each L0 (>= 2: a line and the next)          */
    uint32_t nseen;        /* entries of seen                                       */
    int warm;              /* 1: the kernel's code fits the L1 (trace_kernel.code_bytes
                              <= icache_l1_bytes): it starts there             */
};

/* Lines of the constant caches (docs/model.md "Front end": the
 * calibration's constant strides show 64-byte lines in the first level and
 * 256-byte ones in the second). */
enum { ENG_CLINE0_SHIFT = 6, ENG_CLINE1_SHIFT = 8 };

/* Ways of the SM-level caches (L1 instruction, both constant levels): the
 * kit's loops either fit or exceed a level, which any LRU shape of the
 * measured size reproduces; 4 ways keep lines of different constant banks
 * at one offset apart. */
enum { ENG_FE_WAYS = 4 };

/* An SM's constant caches (scheduler.const_*), zero while off.  A line is
 * bank << 16 | offset, shifted; each way's fill is the cycle its line is
 * (or will be) in. */
struct eng_ccache {
    struct mem_cache l0;   /* immediate constant cache, 64-byte lines              */
    struct mem_cache l1;   /* second level, 256-byte lines                         */
    uint8_t *seen;         /* bit per second-level line the SM read in the kernel   */
    int on;                /* 1: the model is on (scheduler.const_l0_bytes > 0)      */
};

/* Does `in` read its constant through the constant caches?  An immediate
 * c[bank][offset] operand of any instruction but a load: LDC goes through
 * the memory path (sim/mem/), not the immediate constant cache. */
static inline int eng_fetch_reads_const(const struct tr_inst *in)
{
    return in->has_c && in->kind != TR_K_LOAD;
}

/* Allocate / free the constant caches (nothing when the model is off). */
int eng_fetch_cc_init(const struct arch *a, struct eng_ccache *cc);
void eng_fetch_cc_free(struct eng_ccache *cc);

/* w's next instruction w->ni reads c[bank][offset] (has_c; the caller
 * checks cc.on and that it is no load): look its line up at w->fetch_ready,
 * the cycle it is in the buffer, and set w->cmiss_until to the cycle its
 * constant is in (ncu 'imc_miss' until then). */
void eng_fetch_cc_read(const struct arch *a, struct eng_sm *sm, struct eng_warp *w);

/* w issued the first instruction of its line (w->fnew) at t: the line after
 * it is asked for into w's L0 (one line of sequential prefetch, in issue
 * order so that the SMSP's fill port serves requests as they come).  -1:
 * out of memory. */
int eng_fetch_ic_next(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, uint64_t t);

/* Allocate sm's instruction caches for `slots` warp slots (nothing when
 * the model is off); -1 when out of memory.  Freed by eng_fetch_ic_free. */
int eng_fetch_ic_init(const struct arch *a, struct eng_icache *ic, int slots, uint64_t code_bytes);
void eng_fetch_ic_free(struct eng_icache *ic);

/* A warp started in `slot` (on SMSP sp) and fetched its first instruction:
 * its L0 is emptied and then holds that instruction's line, which the
 * warp's start (fetch_latency, icache_cold) brought (the SM's L1 has it
 * too).  -1: out of memory. */
int eng_fetch_ic_start(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                       struct eng_warp *w, int slot);

/* w's next instruction (w->ni, fetch_ready set as without caches) is on
 * `line`, another line than its last one (w->fline): if the warp's L0
 * lacks it (or has it in flight) fetch_ready moves to the fill's end
 * (docs/model.md "Front end"); the caller checks ic.l0 and has_pc.  -1
 * when out of memory. */
int eng_fetch_ic_line(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, uint32_t line);

/* The warp's next instruction into w->ni (NULL at the end of its stream),
 * with its pipe and queue; `room` (the slot's entry of eng_sm.copies)
 * takes a sealed copy of an instruction the reader left unsealed. */
void eng_fetch_next(struct eng_run *r, struct eng_warp *w, struct tr_inst *room);

/* The cycle a branch issued at t is resolved: scheduler.branch_latency
 * after the cycle its successor would have been in the buffer
 * (branch_resolving until then). */
static inline uint64_t eng_fetch_resolved(const struct arch *a, uint64_t t)
{
    return t + 1 + (a->branch_latency > 0 ? (uint64_t)a->branch_latency : 0);
}

/* The first cycle the instruction after one issued at t is in the buffer:
 * one instruction per cycle reaches it; after a branch, once it is
 * resolved, fetching the target takes scheduler.branch_fetch more cycles
 * (no_instruction).  (Also study's one-warp walk.) */
static inline uint64_t eng_fetch_after(const struct arch *a, uint64_t t, int branch)
{
    if (!branch)
        return t + 1;
    return eng_fetch_resolved(a, t) + (a->branch_fetch > 0 ? (uint64_t)a->branch_fetch : 0);
}

/* The first cycle a warp that became resident at t has its first
 * instruction. */
static inline uint64_t eng_fetch_first(const struct arch *a, uint64_t t)
{
    return t + (uint64_t)(a->fetch_latency > 0 ? a->fetch_latency : 0);
}

#endif
