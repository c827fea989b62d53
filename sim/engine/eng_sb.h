/* eng_sb.h — the per-warp register scoreboard: which registers have a
 * result (or a pending read by an in-flight memory instruction)
 * outstanding, and until when; and the dependency kinds that say which
 * stall reason a dependent warp reports.
 *
 * Instructions passed here are sealed (tr_inst_seal): the scoreboard works
 * from their distinct real registers (rd, rs) and masks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_SB_H
#define SMSIM_ENG_SB_H

#include <stdint.h>
#include "trace/trace.h"

/* Entry kinds.  The low bits say which stall reason a dependent warp
 * reports; ENG_SBK_READ marks a source operand that an in-flight memory
 * instruction has not read yet (it blocks writers only: WAR). */
enum {
    ENG_SBK_WAIT = 0,      /* fixed-latency result: stall_wait                  */
    ENG_SBK_SHORT = 1,     /* MIO result: short_scoreboard                      */
    ENG_SBK_LONG = 2,      /* L1TEX result: long_scoreboard                     */
    ENG_SBK_READ = 4       /* flag: a pending source read                       */
};

/* Pending-register table of one warp: a few entries searched linearly.
 * 32 entries hold eight outstanding LDG.128 (4 destinations each) plus their
 * address holds; a full table stalls the warp (see eng_sb_check). */
enum { ENG_SB_MAX = 32 };

struct eng_sb {
    uint64_t mask;          /* bit (reg % 64) of every entry that may be live: a
                               quick "no register in common" test              */
    uint64_t ready[ENG_SB_MAX]; /* cycle from which the register is usable (or
                               writable)                                         */
    uint16_t reg[ENG_SB_MAX]; /* register id in trace.h's flat space            */
    uint8_t kind[ENG_SB_MAX]; /* ENG_SBK_* of the entry                         */
    uint8_t n;              /* entries in use (some may have expired)            */
};

/* The trace's per-opcode dependency class (enum tr_dep, not TR_DEP_PIPE)
 * as an entry kind. */
static inline int eng_sb_dep_kind(int dep)
{
    return dep == TR_DEP_LONG ? ENG_SBK_LONG : dep == TR_DEP_SHORT ? ENG_SBK_SHORT : ENG_SBK_WAIT;
}

void eng_sb_reset(struct eng_sb *sb);

/* Entries the issue of in may add: its destinations, and for memory
 * instructions its sources too (held until the request leaves its queue). */
static inline int eng_sb_need(const struct tr_inst *in)
{
    int mem = in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC;
    return in->ndst + (mem ? in->nsrc : 0);
}

/* Is in blocked by pending registers at t?  Returns 0, or 1 with *until
 * (the cycle the blocking set clears) and *state (enum warp_state).  Only
 * call with a t no earlier than any earlier call's t since the last add
 * (it narrows sb->mask to the entries live at t). */
int eng_sb_check_scan(struct eng_sb *sb, const struct tr_inst *in, uint64_t t, uint64_t *until,
                      int *state);

/* An instruction none of whose registers has its bit in sb->mask matches no
 * entry, and with n + need entries at most the table cannot be full: the
 * common answer needs no scan (inlined into the eligibility check). */
static inline int eng_sb_check(struct eng_sb *sb, const struct tr_inst *in, uint64_t t,
                               uint64_t *until, int *state)
{
    if (!(sb->mask & (in->dmask | in->smask)) &&
        (sb->n + TR_MAX_DST + TR_MAX_SRC <= ENG_SB_MAX || sb->n + eng_sb_need(in) <= ENG_SB_MAX))
        return 0;
    return eng_sb_check_scan(sb, in, t, until, state);
}

/* At the issue at t of in, record its destinations as written at `ready`
 * with kind ENG_SBK_* (not ENG_SBK_READ).  Only valid because eng_sb_check
 * passed for it: no destination has a live entry of either class, so each
 * takes a free slot and none merges. */
void eng_sb_add_dst(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                    uint64_t t);
/* Record the sources of in as read at `ready` (kind ENG_SBK_* |
 * ENG_SBK_READ): a live read entry of the same register keeps the later
 * time. */
void eng_sb_add_src(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                    uint64_t t);

/* ---- Dependence counters (instructions with control bits) ----
 *
 * SB0..SB5 of one warp (shared/reference/modern-sm-core.md §1, Huerta et al.
 * MICRO 2025 §4): an issue with wbar/rbar = x increments SBx, and the
 * increment is undone at the result's write-back (wbar) or once the source
 * operands were read (rbar).  Each pending increment is kept as its release
 * cycle, so the counter's value at t is the number of releases later than
 * t: the wait mask asks for "no release later than t", DEPBAR.LE SBx, N for
 * "at most N".  The increment counts from the cycle after the issue (the
 * issuing warp cannot issue again in its own cycle, so that is from issue
 * on).  ENG_DC_MAX pending increments per counter are tracked exactly; past
 * that, the earliest is folded into the new one (the later release kept),
 * which can only make a DEPBAR.LE wait longer, never a wait mask. */
enum { ENG_DC_MAX = 8 };

struct eng_dc {
    uint64_t rel[TR_NSB][ENG_DC_MAX]; /* release cycles of pending increments    */
    uint8_t kind[TR_NSB][ENG_DC_MAX]; /* ENG_SBK_SHORT / ENG_SBK_LONG: the stall
                                         reason of a wait on it                  */
    uint8_t n[TR_NSB];                /* entries in use (some may have expired)  */
};

static inline void eng_dc_reset(struct eng_dc *dc)
{
    for (int i = 0; i < TR_NSB; i++)
        dc->n[i] = 0;
}

/* An increment of counter sb at t, released at rel with stall kind `kind`. */
void eng_dc_add(struct eng_dc *dc, int sb, uint64_t rel, int kind, uint64_t t);

/* Is in (with control bits) blocked at t by its wait mask or DEPBAR.LE?
 * 0, or 1 with *until (the cycle the wait ends; a placeholder >= ENG_PEND
 * while a memory answer is pending) and *state (long_scoreboard for L1TEX
 * producers, short_scoreboard for MIO ones). */
int eng_dc_check(const struct eng_dc *dc, const struct tr_inst *in, uint64_t t,
                 uint64_t *until, int *state);

/* Replace the placeholder ph by the answer (eng_sb_resolve's twin). */
void eng_dc_resolve(struct eng_dc *dc, uint64_t ph, uint64_t ready);

/* Replace the placeholder ready time ph (a deferred request's, eng_sm.c)
 * by the answer. */
static inline void eng_sb_resolve(struct eng_sb *sb, uint64_t ph, uint64_t ready)
{
    for (int j = 0; j < sb->n; j++)
        if (sb->ready[j] == ph)
            sb->ready[j] = ready;
}

#endif
