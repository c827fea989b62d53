/* eng_pipe.h — the execution pipes of an SMSP: when each accepts an
 * instruction, and what an issue occupies.  One definition for the
 * engine's scheduler and for study's one-warp walk (study_sat.c), so the
 * two cannot disagree.
 *
 * FMA datapath arbitration (pipes.fmaheavy.issue_interval > 0 splits the
 * fma pipe into FMA-lite, timed by pipes.fma, and FMA-heavy): FP32 takes the
 * lite datapath when it is free, else heavy; IMAD/IMUL/IDP (TR_FMA_HEAVY)
 * only heavy, IMAD.WIDE (TR_FMA_WIDE) heavy for two issue intervals; FP16x2
 * (TR_FMA_BOTH) both at once.  With pipes.fmaheavy.shares_alu the ALU pipe
 * and FMA-heavy are one datapath: whatever occupies one occupies the other
 * (free[PIPE_ALU] and heavy_free move together).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_PIPE_H
#define SMSIM_ENG_PIPE_H

#include <stdint.h>
#include "arch/arch.h"
#include "trace/trace.h"

/* The pipes of one SMSP. */
struct eng_pipes {
    uint64_t free[PIPE_COUNT]; /* first cycle each pipe accepts an instruction
                                  (free[PIPE_FMA]: FMA-lite when the fma pipe
                                  is split)                                   */
    uint64_t heavy_free;       /* first cycle FMA-heavy accepts one           */
};

/* The pipe an instruction issues to (an unknown one counts as ALU). */
static inline int eng_pipe_of(const struct tr_inst *in)
{
    return in->pipe < PIPE_COUNT ? in->pipe : PIPE_ALU;
}

/* Does the arch split the fma pipe into FMA-lite and FMA-heavy? */
static inline int eng_pipe_fma_split(const struct arch *a)
{
    return a->fmaheavy.issue_interval > 0;
}

/* First cycle `pipe` accepts an instruction of fma_path (tr_inst.fma_path). */
static inline uint64_t eng_pipe_ready(const struct eng_pipes *p, int fma_split, int pipe,
                                      int fma_path)
{
    if (pipe != PIPE_FMA || !fma_split)
        return p->free[pipe];
    uint64_t lite = p->free[PIPE_FMA], heavy = p->heavy_free;
    switch (fma_path) {
    case TR_FMA_HEAVY:
    case TR_FMA_WIDE:
        return heavy;
    case TR_FMA_BOTH:
        return lite > heavy ? lite : heavy;
    default:
        return lite < heavy ? lite : heavy;
    }
}

/* The split fma pipe's part of eng_pipe_issue (below). */
static inline const struct arch_pipe_cfg *eng_pipe_fma_take(const struct arch *a,
                                                            struct eng_pipes *p, int fma_path,
                                                            uint64_t t)
{
    const struct arch_pipe_cfg *pc = &a->pipe[PIPE_FMA];
    int li = pc->issue_interval;
    uint64_t lite_next = t + (uint64_t)(li > 0 ? li : 0);
    uint64_t heavy_next = t + (uint64_t)a->fmaheavy.issue_interval;
    switch (fma_path) {
    case TR_FMA_HEAVY:
        p->heavy_free = heavy_next;
        return &a->fmaheavy;
    case TR_FMA_WIDE:
        p->heavy_free = heavy_next + (uint64_t)a->fmaheavy.issue_interval;
        return &a->fmaheavy;
    case TR_FMA_BOTH:
        p->free[PIPE_FMA] = lite_next;
        p->heavy_free = heavy_next;
        return pc;
    default: /* the lite datapath when free, so FMA-heavy stays for IMAD */
        if (p->free[PIPE_FMA] <= t)
            p->free[PIPE_FMA] = lite_next;
        else
            p->heavy_free = heavy_next;
        return pc;
    }
}

/* Occupy the pipe (datapaths) an instruction issued at t uses.  Returns the
 * pipe configuration whose latency applies: pipes.fmaheavy for an
 * instruction that went to FMA-heavy alone, else the pipe's own. */
static inline const struct arch_pipe_cfg *eng_pipe_issue(const struct arch *a,
                                                         struct eng_pipes *p, int fma_split,
                                                         int pipe, int fma_path, uint64_t t)
{
    const struct arch_pipe_cfg *pc = &a->pipe[pipe];
    if (pipe != PIPE_FMA || !fma_split) {
        if (pc->issue_interval > 0)
            p->free[pipe] = t + (uint64_t)pc->issue_interval;
        if (pipe == PIPE_ALU && fma_split && a->alu_on_heavy)
            p->heavy_free = p->free[PIPE_ALU];
        return pc;
    }
    const struct arch_pipe_cfg *r = eng_pipe_fma_take(a, p, fma_path, t);
    if (a->alu_on_heavy)
        p->free[PIPE_ALU] = p->heavy_free;
    return r;
}

/* Cycles until an ALU instruction's result is usable: the trace's own
 * latency where it gives one, else the pipe's (pc: eng_pipe_issue's). */
static inline int eng_pipe_latency(const struct tr_inst *in, const struct arch_pipe_cfg *pc)
{
    return in->latency >= 0 ? in->latency : pc->latency;
}

#endif
