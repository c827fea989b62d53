/* eng_sm.c — one SM at one cycle (eng_sm.h).
 *
 * Exact skipping: a warp's state is a function of its own timestamps and its
 * SMSP's pipe/queue timestamps, and eval() returns, with the state, the
 * first cycle (`until`) at which that state can change without any issue
 * happening.  Only an issue changes those timestamps; after an issue the
 * other warps of the SMSP that were eligible are due on the next cycle, and
 * the issuing warp's own next state is settled at once (look-ahead, in
 * eng_sm_step).  So when nothing issues the SM may jump to the minimum
 * `until`; state intervals are accounted lazily ([since, now) added when the
 * state changes), so the skipped cycles land in the right counters with no
 * per-cycle work.  Cached states are likewise reused while t < until.
 *
 * Speed (docs/performance.md): the until[] of an SMSP's warps is one small
 * array, so a step touches only the warps that are due; a warp that passed
 * the barrier, fetch and dependency checks for its next instruction keeps
 * that verdict (eng_warp.cond_ok) until it issues, because those conditions
 * only relax as time passes — an eligible warp that lost the issue slot is
 * then re-checked against its pipe and queue only.
 *
 * Memory answers from the globally ordered stage (L2, DRAM) are not known
 * until the epoch ends (eng_par.c): the request goes to the SM's outbox and
 * its scoreboard entries hold a placeholder (>= ENG_PEND, later than any
 * cycle of the epoch, which the true answer is too).  That decision is made
 * in one place, issue_mem().  An evaluation whose result depends on a
 * placeholder leaves the warp's state alone and records the cycle (unres,
 * eval_t); eng_sm_settle() repeats it with the answer, which gives the state
 * the warp had from that cycle on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/eng_disp.h"
#include "engine/eng_fetch.h"
#include "engine/eng_run.h"
#include "engine/eng_sched.h"
#include "engine/eng_sm.h"
#include "engine/eng_util.h"

/* Stall reason when the instruction's pipe is still busy: LSU instructions
 * back up into their queue (MIO or LG), math pipes report math_pipe_throttle. */
static int pipe_busy_state(const struct eng_warp *w)
{
    if (w->pipe == PIPE_LSU)
        return w->queue == MEM_Q_LG ? WS_LG_THROTTLE : WS_MIO_THROTTLE;
    return WS_MATH_PIPE_THROTTLE;
}

/* Conditions 1-3 (drain / barrier, fetch, dependencies) and MEMBAR for w's
 * next instruction: WS_SELECTED when they hold, else the stall state with
 * *until.  They only relax as t grows while ni stays the same, so once they
 * hold the caller remembers it in w->cond_ok until the next issue. */
static int eval_cond(struct eng_warp *w, const struct eng_dc *dc, uint64_t t, uint64_t *until)
{
    if (w->finished) {
        *until = w->npend_drain ? ENG_PEND : w->drain_done;
        return WS_DRAIN;
    }
    if (t < w->bar_until) {
        *until = w->bar_until;
        return WS_BARRIER;
    }
    if (t < w->stall_until) {
        /* the stall count of the warp's last instruction: ncu's "wait" */
        *until = w->stall_until;
        return WS_WAIT;
    }
    if (t < w->fetch_ready) {
        if (t < w->bres_until) {
            *until = w->bres_until;
            return WS_BRANCH_RESOLVING;
        }
        *until = w->fetch_ready;
        return WS_NO_INSTRUCTION;
    }
    if (t < w->cmiss_until) {
        /* its constant operand is not in the constant cache yet */
        *until = w->cmiss_until;
        return WS_IMC_MISS;
    }
    const struct tr_inst *in = w->ni;
    int st;
    if (in->ctl) {
        /* Control bits replace the register scoreboard: fixed latencies are
         * covered by the producers' stall counts, variable ones by the wait
         * mask and DEPBAR.LE on the dependence counters. */
        if ((in->wait || in->depbar_sb < TR_NSB) && dc && eng_dc_check(dc, in, t, until, &st))
            return st;
        if (in->depbar_sb < TR_NSB)
            return WS_SELECTED; /* DEPBAR.LE waits for its counter only */
    } else if (eng_sb_check(&w->sb, in, t, until, &st)) {
        return st;
    }
    if (in->kind == TR_K_MEMBAR) {
        uint64_t md = w->npend ? ENG_PEND : w->mem_done;
        if (t < md) {
            *until = md;
            return WS_MEMBAR;
        }
    }
    return WS_SELECTED;
}

/* The four eligibility conditions in priority order (docs/model.md):
 * 1 drain / barrier, 2 instruction fetched, 3 dependencies, 4 execution
 * resource.  Returns WS_SELECTED for "eligible".  Inlined: the common call
 * is a warp whose conditions 1-3 already hold (w->cond_ok) re-checked against its
 * pipe and queue, a few compares. */
static inline __attribute__((always_inline)) int
eval(int fma_split, const struct eng_smsp *sp, struct eng_warp *w, const struct eng_dc *dc,
     uint64_t t, uint64_t *until)
{
    if (!w->cond_ok) {
        int st = eval_cond(w, dc, t, until);
        if (st != WS_SELECTED)
            return st;
        w->cond_ok = 1;
    }
    uint64_t pf = eng_pipe_ready(&sp->pipes, fma_split, w->pipe, w->ni->fma_path);
    if (t < pf) {
        *until = pf;
        return pipe_busy_state(w);
    }
    if (w->queue != MEM_Q_NONE &&
        mem_queue_busy(w->queue == MEM_Q_LG ? &sp->lg : &sp->mio, t, until))
        return w->queue == MEM_Q_LG ? WS_LG_THROTTLE : WS_MIO_THROTTLE;
    if (t < sp->rf_free) {
        /* the control stage holds an instruction the allocate stage
         * cannot take yet (register ports): ncu's "dispatch_stall" */
        *until = sp->rf_free;
        return WS_DISPATCH_STALL;
    }
    *until = t + 1;
    return WS_SELECTED;
}

/* Cycles from issue until a fixed-latency instruction has read its source
 * registers (releases its read counter) when nothing holds it: Huerta et al.
 * MICRO 2025 §5 measure three cycles of operand read
 * (shared/reference/modern-sm-core.md §4). */
enum { ENG_RF_READ = 3 };

/* The pipeline from issue to the register file (Huerta et al. MICRO 2025
 * §5.1.1, §5.3), for a fixed-latency instruction issued at t: a control
 * stage (t + 1), then an allocate stage that holds the instruction until
 * the read ports are free (it leaves at t + 2 when nothing holds it, its
 * reads follow).  Per SMSP two banks (register number mod 2), one read
 * port each: an instruction reading k registers of one bank keeps the
 * ports k cycles, and the next one leaves the allocate stage no earlier.
 * No port is needed by a register an earlier slot of the same instruction
 * reads, nor by a register-file cache hit: one entry per bank and operand
 * slot, a read whose slot and bank hold the same register of the same warp;
 * the slot's reuse bit keeps its register there, any other read of that
 * slot and bank evicts it.  While the allocate stage holds one instruction
 * the control stage keeps the next, and the scheduler issues nothing
 * (rf_free: dispatch_stall); in those cycles every warp's stall counter
 * stands still (*frozen: the cycles from t + 1 the issue is blocked for).
 * Returns the delay of this instruction's reads beyond the unheld case.
 * Calibration (validate/calib_regbank.py, kit3 regbank, 108 launches):
 * FFMA R6, R0, R6, R3 issues every 2 cycles from 4 warps per SMSP with 4.9
 * cycles of wait and 0.9 of dispatch_stall per issue (the frozen counters);
 * FFMA R11, R11, R11, R11 and FMUL R11, R11, R11 issue every cycle; with one
 * warp a held instruction costs nothing when its warp's next one is not
 * ready anyway (FFMA pairs at ILP 2).  Reads placed in fixed cycles per
 * operand slot fit these too but not FMULs alternating banks, and hold
 * SGEMM's FFMAs twice as often as the H200 does (docs/calibration.md). */
static uint64_t rf_alloc(struct eng_smsp *sp, int slot, const struct tr_inst *in, uint64_t t,
                         uint64_t *frozen)
{
    int reads[2] = {0, 0};
    uint16_t owner = (uint16_t)(slot + 1);
    for (int k = 0; k < 3; k++) {
        int reg = in->opr[k];
        if (reg == TR_OPR_NONE)
            continue;
        int b = reg & 1;
        int hit = sp->rfc_slot[b][k] == owner && sp->rfc_reg[b][k] == reg;
        int dup = (k > 0 && in->opr[0] == reg) || (k > 1 && in->opr[1] == reg);
        reads[b] += !hit && !dup;
        if ((in->reuse >> k) & 1) {
            sp->rfc_slot[b][k] = owner;
            sp->rfc_reg[b][k] = (uint8_t)reg;
        } else {
            sp->rfc_slot[b][k] = 0;
        }
    }
    int most = reads[0] > reads[1] ? reads[0] : reads[1];
    /* enters the allocate stage at e, when the previous one has left it */
    uint64_t e = sp->rf_exit > t + 1 ? sp->rf_exit : t + 1;
    uint64_t x = sp->rf_next > e + 1 ? sp->rf_next : e + 1;
    sp->rf_exit = x;
    sp->rf_next = x + (uint64_t)(most > 1 ? most : 1);
    sp->rf_free = e;
    *frozen = e - (t + 1);
    return x - (t + 2);
}

/* The stall counters of the SMSP's warps stand still for n cycles from t + 1
 * (the issue is blocked, rf_alloc): a counter still running then ends n
 * cycles later.  A warp whose cached state is `wait` is re-evaluated at
 * its old end and finds the new one. */
static void freeze_stalls(const struct eng_run *r, struct eng_sm *sm, int s, uint64_t t, uint64_t n)
{
    const struct eng_smsp *sp = &sm->sp[s];
    for (int ls = 0; ls < sp->hi; ls++) {
        struct eng_warp *x = &sm->w[ls * r->sub + s];
        if (x->resident && x->stall_until > t + 1)
            x->stall_until += n;
    }
}

/* The control bits of w's instruction issued at t: the register-read stage
 * (a fixed-latency instruction's result and read release come later by
 * the cycles the allocate stage held it), the stall count (a yield keeps
 * the warp out of the next cycle too), the dependence counters it
 * increments (released at `res`, the result's write-back, and `rd`, when
 * its sources were read). */
static void ctl_issue(struct eng_run *r, int smi, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, const struct tr_inst *in, uint64_t t,
                      uint64_t res, uint64_t rd, int kind)
{
    uint64_t su = t + (in->stall ? in->stall : 1);
    if (in->yield && su < t + 2)
        su = t + 2;
    w->stall_until = su;
    if (in->kind == TR_K_ALU) {
        uint64_t frozen;
        uint64_t d = rf_alloc(sp, slot, in, t, &frozen);
        res += d;
        rd += d;
        if (frozen)
            freeze_stalls(r, sm, slot % r->sub, t, frozen);
    }
    if ((in->wbar < TR_NSB || in->rbar < TR_NSB) && !sm->dc) {
        /* the SM's first counter: the counters are allocated on first use,
         * so kernels without control bits do not carry them (speed) */
        sm->dc = eng_line_calloc((size_t)(r->bps * r->wpb), sizeof *sm->dc);
        if (!sm->dc) {
            eng_error(r, smi, t, "out of memory");
            return;
        }
    }
    struct eng_dc *dc = sm->dc ? &sm->dc[slot] : NULL;
    if (in->wbar < TR_NSB)
        eng_dc_add(dc, in->wbar, res, kind, t);
    if (in->rbar < TR_NSB)
        eng_dc_add(dc, in->rbar, rd, kind, t);
}

/* The observer's view of a closed state interval (timeline pictures). */
static void observe(const struct eng_run *r, int smi, int s, int ls, const struct eng_warp *w,
                    uint64_t t)
{
    const struct engine_observer *obs = r->obs;
    if (obs->warp_state && (obs->until == 0 || w->since < obs->until)) {
        uint64_t to = obs->until && t > obs->until ? obs->until : t;
        obs->warp_state(obs->ud, smi, s, ls, w->block, w->wib, w->since, to, w->state);
    }
    /* (ni is the instruction the interval waited for: an interval that ends
     * in an issue is closed before the issue moves ni on, eng_sm_step) */
    if (obs->inst_state && w->state != WS_SELECTED)
        obs->inst_state(obs->ud, w->ni, w->state, t - w->since);
}

/* Close the warp's current state interval at t. */
static inline void flush(const struct eng_run *r, struct stats_smsp *ss, int smi, int s,
                         int ls, struct eng_warp *w, uint64_t t)
{
    if (t <= w->since)
        return;
    ss->state[w->state] += t - w->since;
    if (__builtin_expect(r->obs != NULL, 0))
        observe(r, smi, s, ls, w, t);
}

static inline void set_state(const struct eng_run *r, struct stats_smsp *ss, int smi, int s,
                             int ls, struct eng_warp *w, int st, uint64_t t)
{
    if (w->state == st)
        return;
    flush(r, ss, smi, s, ls, w, t);
    w->state = (uint8_t)st;
    w->since = t;
}

static void bar_release(struct eng_run *r, struct eng_sm *sm, int b, uint64_t t)
{
    int sub = r->sub;
    for (int i = 0; i < r->wpb; i++) {
        int slot = b * r->wpb + i;
        struct eng_warp *x = &sm->w[slot];
        if (x->resident && x->bar_until == ENG_NEVER) {
            x->bar_until = t + 1;
            struct eng_smsp *sp = &sm->sp[slot % sub];
            uint64_t *u = &sp->until[slot / sub];
            if (*u > t + 1)
                *u = t + 1;
            eng_smsp_lower(sp, t + 1);
        }
    }
    sm->bs[b].arrived = 0;
}

/* EXIT issued at t (or the stream ended): the warp retires when its memory
 * instructions no longer need its resources ("drain: after EXIT, waiting
 * for all memory instructions to complete so that warp resources can be
 * freed", ncu's stall-reason table), at the earliest the next cycle: loads
 * and atomics when their registers are written back, stores when their
 * data has left the SM (the request left its queue, as for the WAR hold of
 * their sources), not when L2 acknowledges them.  Measured: calib_mufu's
 * mufu_chain<0,1> at one warp per SMSP ends with two STGs and EXIT and
 * shows under 0.005 drain cycles per issue over 4,896 issues, i.e. under
 * 25 cycles of drain per warp (validate/data/h200/kit3-2026-12-01/mufu/
 * mufu-ncu.raw.csv:3), where an acknowledged store takes an L2 round trip
 * (memory.l2_latency 280).  A warp may thus retire with store requests
 * still unanswered; eng_sm_settle answers them before its slot takes a new
 * warp (slots refill in a later epoch).  Its barriers: it no longer takes
 * part, which may release the others (exited warps count as arrived). */
static void finish(struct eng_run *r, struct eng_sm *sm, struct eng_warp *w, uint64_t t)
{
    struct eng_bslot *bs = &sm->bs[w->bslot];
    w->finished = 1;
    w->cond_ok = 0;
    if (w->drain_done < t + 1)
        w->drain_done = t + 1;
    bs->live--;
    if (bs->arrived > 0 && bs->arrived >= bs->live)
        bar_release(r, sm, w->bslot, t);
}

/* Room for one more deferred request of sm; NULL when out of memory. */
static struct eng_req *req_push(struct eng_sm *sm)
{
    if (sm->nreq == sm->capreq) {
        int cap = sm->capreq ? 2 * sm->capreq : 64;
        /* line-aligned like all per-SM data (eng_sm), so no other thread's
         * SM shares a line with the outbox */
        struct eng_req *n = eng_line_calloc((size_t)cap, sizeof *n);
        if (!n)
            return NULL;
        if (sm->nreq)
            memcpy(n, sm->req, (size_t)sm->nreq * sizeof *n);
        free(sm->req);
        sm->req = n;
        sm->capreq = cap;
    }
    return &sm->req[sm->nreq++];
}

/* A load, store or atomic issued at t: the memory system's SM-local stage
 * now; what needs L2/DRAM is deferred to the epoch end (the one place that
 * decides it), its registers held by a placeholder until then.  Then the
 * queue slot and the scoreboard: results as the instruction's dependency
 * class says (MIO: short scoreboard, LG: long, unless the opcode knows
 * better), sources held until the request leaves its queue (WAR). */
static void issue_mem(struct eng_run *r, int smi, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, uint64_t t)
{
    const struct tr_inst *in = w->ni;
    int is_store = in->kind == TR_K_STORE;
    int is_atom = in->kind == TR_K_ATOMIC;
    uint64_t wuid = (uint64_t)w->block * (uint64_t)r->wpb + w->wib;
    struct mem_local_res res;
    struct mem_req mr;
    if (mem_local(&r->mcfg, &sm->mem, &sm->acc.mem, in, &w->dyn, wuid, w->cur.seq, t,
                  (uint32_t)sm->nreq, &res, &mr) != 0) {
        eng_error(r, smi, t, "out of memory");
        res.global = 0;
        res.ready = res.sent = t + 1;
    }
    uint64_t ready = res.ready;
    if (res.global) {
        /* the answer is at least mem_min_latency() away, past the epoch */
        struct eng_req *q = req_push(sm);
        if (q) {
            q->s = mr;
            q->slot = slot;
            q->is_atom = (uint8_t)is_atom;
            q->ph = ENG_PEND + (uint64_t)sm->nreq;
            q->ready = 0;
            w->npend++;
            w->npend_drain += (uint16_t)!is_store;
            ready = q->ph;
        } else {
            /* the run fails at the epoch end */
            eng_error(r, smi, t, "out of memory");
            ready = t + 1;
        }
    }
    int mio = w->queue == MEM_Q_MIO;
    mem_queue_push(mio ? &sp->mio : &sp->lg, t, res.sent);
    int kind = in->dep != TR_DEP_PIPE ? eng_sb_dep_kind(in->dep)
               : mio ? ENG_SBK_SHORT : ENG_SBK_LONG;
    if (in->ctl) {
        /* counters: short scoreboard for MIO producers, long for L1TEX */
        ctl_issue(r, smi, sm, sp, w, slot, in, t, ready, res.sent,
                  kind == ENG_SBK_LONG ? kind : ENG_SBK_SHORT);
    } else {
        if (!is_store)
            eng_sb_add_dst(&w->sb, in, ready, kind, t);
        eng_sb_add_src(&w->sb, in, res.sent, kind | ENG_SBK_READ, t);
    }
    uint64_t drain = is_store ? res.sent : ready;
    if (drain < ENG_PEND && drain > w->drain_done)
        w->drain_done = drain;
    if (ready >= ENG_PEND)
        return; /* mem_done (and drain_done) take the answer in eng_sm_settle */
    if (ready > w->mem_done)
        w->mem_done = ready;
}

/* The dependence counters of SM warp slot `slot`, NULL while the SM has
 * none (no instruction with a counter issued on it yet: all are zero). */
static inline const struct eng_dc *dc_of(const struct eng_sm *sm, int slot)
{
    return sm->dc ? &sm->dc[slot] : NULL;
}

static inline int is_mem_kind(int kind)
{
    return kind == TR_K_LOAD || kind == TR_K_STORE || kind == TR_K_ATOMIC;
}

static void issue(struct eng_run *r, int smi, struct eng_sm *sm, struct eng_smsp *sp,
                  struct eng_warp *w, int slot, uint64_t t)
{
    const struct arch *a = r->a;
    const struct tr_inst *in = w->ni;
    const struct arch_pipe_cfg *pc =
        eng_pipe_issue(a, &sp->pipes, r->fma_split, w->pipe, in->fma_path, t);
    sm->acc.thread_inst += (uint64_t)tr_lanes(w->dyn.active_mask);
    if (__builtin_expect(w->fnew, 0) && eng_fetch_ic_next(a, sm, sp, w, slot, t) != 0)
        eng_error(r, smi, t, "out of memory");

    int branch = 0;
    switch (in->kind) {
    case TR_K_ALU: {
        int lat = eng_pipe_latency(in, pc);
        int kind = in->dep != TR_DEP_PIPE ? eng_sb_dep_kind(in->dep)
                   : pc->dep == DEP_SHORT ? ENG_SBK_SHORT : ENG_SBK_WAIT;
        uint64_t ready = t + (uint64_t)(lat > 0 ? lat : 0);
        if (in->ctl)
            /* a counter wait on a non-L1TEX producer is a short-scoreboard stall */
            ctl_issue(r, smi, sm, sp, w, slot, in, t, ready, t + ENG_RF_READ,
                      kind == ENG_SBK_LONG ? kind : ENG_SBK_SHORT);
        else
            eng_sb_add_dst(&w->sb, in, ready, kind, t);
        break;
    }
    case TR_K_LOAD:
    case TR_K_STORE:
    case TR_K_ATOMIC:
        issue_mem(r, smi, sm, sp, w, slot, t);
        break;
    case TR_K_BARRIER: {
        struct eng_bslot *bs = &sm->bs[w->bslot];
        w->bar_until = ENG_NEVER;
        bs->arrived++;
        if (bs->arrived >= bs->live)
            bar_release(r, sm, w->bslot, t);
        break;
    }
    case TR_K_BRANCH:
        branch = 1;
        break;
    case TR_K_EXIT:
        /* (an issue that fetches reports itself in eng_fetch_next) */
        if (__builtin_expect(r->obs != NULL, 0) && r->obs->inst_issue)
            r->obs->inst_issue(r->obs->ud, in, w->dyn.active_mask);
        finish(r, sm, w, t);
        return;
    default: /* NOP, MEMBAR (waited for before issue) */
        break;
    }
    if (in->ctl && in->kind != TR_K_ALU && !is_mem_kind(in->kind))
        ctl_issue(r, smi, sm, sp, w, slot, in, t, t + 1, t + 1, ENG_SBK_SHORT);
    eng_fetch_next(r, w, &sm->copies[slot]);
    if (!w->ni) {
        finish(r, sm, w, t);
        return;
    }
    w->fetch_ready = eng_fetch_after(a, t, branch);
    w->bres_until = branch ? eng_fetch_resolved(a, t) : 0;
    if (sm->ic.l0 && w->ni->has_pc && (w->ni->pc >> ENG_ILINE_SHIFT) + 1 != w->fline &&
        eng_fetch_ic_line(a, sm, sp, w, slot, w->ni->pc >> ENG_ILINE_SHIFT) != 0)
        eng_error(r, smi, t, "out of memory");
    if (sm->cc.on && eng_fetch_reads_const(w->ni))
        eng_fetch_cc_read(a, sm, w);
}

static void retire(struct eng_run *r, int smi, int s, int ls, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    int sub = r->sub;
    int slot = ls * sub + s;
    struct eng_warp *w = &sm->w[slot];
    struct eng_smsp *sp = &sm->sp[s];
    struct stats_smsp *ss = &sp->st;
    struct stats_sm *sst = &sm->st;
    flush(r, ss, smi, s, ls, w, t);
    /* the SMSP is rid of the warp now, the SM frees its warp slot
     * warp_release cycles later (sm__ counts it until then) */
    uint64_t rel = t + (uint64_t)r->a->warp_release;
    ss->warps_active += t - w->launch;
    sst->warps_active += rel - w->launch;
    if (--sp->resident == 0)
        ss->cycles_active += t - sp->active_since;
    if (--sm->resident == 0) {
        sst->cycles_active += rel - sm->active_since;
        sm->active_end = rel;
    }
    w->resident = 0;
    sp->until[ls] = ENG_NEVER;
    for (int b = 0; b < 2; b++) /* its register-file cache entries */
        for (int k = 0; k < 3; k++)
            if (sp->rfc_slot[b][k] == (uint16_t)(slot + 1))
                sp->rfc_slot[b][k] = 0;
    while (sp->hi > 0 && !sm->w[(sp->hi - 1) * sub + s].resident)
        sp->hi--;
    if (r->k->ops->warp_end)
        r->k->ops->warp_end(r->k, &w->cur);
    if (r->a->policy != SCHED_LRR && sp->last == ls)
        sp->last = -1;
    if (rel > sm->acc.last_retire)
        sm->acc.last_retire = rel;
    struct eng_bslot *bs = &sm->bs[w->bslot];
    if (--bs->unretired == 0) {
        sst->blocks++;
        if (r->obs && r->obs->block_life)
            r->obs->block_life(r->obs->ud, smi, bs->block, bs->started, t);
        eng_disp_retired(r, smi, w->bslot, t);
    }
}

/* An evaluation at t that waits for an unanswered memory request. */
static void mark_unres(struct eng_sm *sm, struct eng_warp *w, int slot, uint64_t t)
{
    if (w->unres)
        return;
    w->unres = 1;
    w->eval_t = t;
    sm->unres[sm->nunres++] = slot;
}

void eng_sm_step(struct eng_run *r, int smi, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    const struct arch *a = r->a;
    int sub = r->sub;
    int no_skip = r->no_skip;
    int fma_split = r->fma_split;
    uint64_t next = ENG_NEVER;
    int *elig = sm->elig;
    uint8_t *mark = sm->mark;

    sm->acc.events++;
    if (sm->npending)
        eng_disp_launch_due(r, smi, t);

    for (int s = 0; s < sub; s++) {
        struct eng_smsp *sp = &sm->sp[s];
        if (sp->resident == 0)
            continue;
        if (t < sp->due_min && !no_skip)
            continue;
        struct stats_smsp *ss = &sp->st;
        uint64_t *until = sp->until;
        int hi = sp->hi;
        int n = 0;
        /* Pass 1, branch-free: which slots are due, and the earliest of the
         * others.  Pass 2 visits the due ones in slot order (nothing a visit
         * does changes another warp's until before the issue below). */
        int *due = sm->due;
        int nd = 0;
        int last_idx = -1; /* index in elig of the last issued warp (GTO's pick) */
        uint64_t early = ENG_NEVER;
        if (no_skip) {
            for (int ls = 0; ls < hi; ls++)
                due[ls] = ls;
            nd = hi;
        } else if (sp->lone_slot >= 0 && t < sp->others_min) {
            /* Only the warp that issued alone last time can be due: the
             * others' earliest until is sp->others_min (a bound every outside
             * write lowers), so no scan.  (A warp issuing a burst while the
             * rest wait on memory is the common memory-bound step.) */
            due[0] = sp->lone_slot;
            nd = until[sp->lone_slot] <= t;
            early = sp->others_min;
            if (!nd && until[sp->lone_slot] < early)
                early = until[sp->lone_slot];
        } else {
            for (int ls = 0; ls < hi; ls++) {
                uint64_t u = until[ls];
                due[nd] = ls;
                nd += u <= t;
                early = u > t && u < early ? u : early;
            }
        }
        /* the earliest until of the slots not visited below */
        uint64_t uscan = early;
        for (int di = 0; di < nd; di++) {
            int ls = due[di];
            int slot = ls * sub + s;
            struct eng_warp *w = &sm->w[slot];
            uint64_t u;
            /* (w->cond_ok implies a resident, unfinished warp: finish() clears it) */
            if (!w->cond_ok) {
                if (!w->resident)
                    continue;
                if (w->finished && !w->npend_drain && t >= w->drain_done) {
                    retire(r, smi, s, ls, t);
                    continue;
                }
            }
            int st = eval(fma_split, sp, w, dc_of(sm, slot), t, &u);
            if (st == WS_SELECTED) {
                if (ls == sp->last)
                    last_idx = n;
                elig[n] = ls;
                mark[n] = ENG_PICK_FREE;
                n++;
                continue;
            }
            if (u >= ENG_PEND && u != ENG_NEVER) { /* a memory answer pending */
                mark_unres(sm, w, slot, t);
                until[ls] = ENG_PEND;
                continue;
            }
            set_state(r, ss, smi, s, ls, w, st, t);
            until[ls] = u;
            if (u < early)
                early = u;
        }
        if (n == 0) {
            /* A lone due warp that found a stall is still the only one that
             * can be due before the others' bound (uscan): the next step
             * needs no scan either (in memory-bound kernels, a warp working
             * through its short dependencies while the rest wait on DRAM). */
            sp->lone_slot = nd == 1 && !no_skip ? due[0] : -1;
            sp->others_min = uscan;
            sp->due_min = early;
            continue;
        }
        ss->warps_eligible += (uint64_t)n;
        /* early is now the earliest until of every warp but the eligible
         * ones; with one eligible warp, that bounds the others next cycle
         * (bar_release during the issue below lowers it further). */
        sp->lone_slot = n == 1 ? elig[0] : -1;
        sp->others_min = early;
        int issued = 0;
        for (int k = 0; k < a->issue_width; k++) {
            int i = eng_sched_pick(a->policy, sm->w, sub, s, sp->last, elig, mark, n, last_idx);
            if (i < 0)
                break;
            mark[i] = ENG_PICK_TAKEN;
            int slot = elig[i] * sub + s;
            struct eng_warp *w = &sm->w[slot];
            uint64_t u;
            /* A second issue in the same cycle may find the pipe or queue
             * taken by the first; the warp then stays not_selected. */
            if (issued > 0 && eval(fma_split, sp, w, dc_of(sm, slot), t, &u) != WS_SELECTED) {
                mark[i] = ENG_PICK_LOST;
                continue;
            }
            mark[i] = ENG_PICK_ISSUED;
            /* the state interval that ends in this issue is closed before
             * the issue moves ni on: an observer charges it to the
             * instruction the warp waited for (engine_observer.inst_state) */
            set_state(r, ss, smi, s, elig[i], w, WS_SELECTED, t);
            issue(r, smi, sm, sp, w, slot, t);
            sp->last = elig[i];
            issued++;
        }
        uint64_t emin = ENG_NEVER; /* earliest until of the eligible warps */
        for (int i = 0; i < n; i++) {
            int ls = elig[i];
            struct eng_warp *w = &sm->w[ls * sub + s];
            uint64_t u = t + 1;
            if (mark[i] != ENG_PICK_ISSUED) {
                set_state(r, ss, smi, s, ls, w, WS_NOT_SELECTED, t);
            } else {
                /* (its state is "selected" since the issue) */
                /* Look ahead: conditions 1-3 of the warp's next instruction
                 * at t + 1 depend only on the warp itself, which nothing but
                 * its own next issue changes (a barrier release only lowers
                 * until[], below).  Settle them now, so a warp that stalls
                 * right after issuing needs no visit at t + 1 (and the SMSP
                 * none if no other warp is due).  Not for a warp that exited
                 * (retirement is checked at its visit), nor in no-skip runs
                 * (the reference the skipping is tested against).  An answer
                 * still pending is settled at the epoch end
                 * as an evaluation at t + 1. */
                if (!w->finished && !no_skip) {
                    uint64_t v;
                    int st = eval_cond(w, dc_of(sm, ls * sub + s), t + 1, &v);
                    if (st == WS_SELECTED) {
                        w->cond_ok = 1;
                    } else if (v < ENG_PEND || v == ENG_NEVER) {
                        set_state(r, ss, smi, s, ls, w, st, t + 1);
                        u = v;
                    } else {
                        mark_unres(sm, w, ls * sub + s, t + 1);
                        u = ENG_PEND;
                    }
                }
            }
            until[ls] = u;
            if (u < emin)
                emin = u;
        }
        if (issued) {
            ss->issue_active++;
            ss->inst_issued += (uint64_t)issued;
        }
        /* sp->others_min: the others' bound, lowered by any barrier release
         * during the issue */
        sp->due_min = sp->others_min < emin ? sp->others_min : emin;
    }
    /* The SM's next look is its SMSPs' earliest bound, taken after all of
     * them were visited: an issue may release a barrier on an SMSP visited
     * earlier in this step (eng_smsp_lower). */
    for (int s = 0; s < sub; s++)
        if (sm->sp[s].resident && sm->sp[s].due_min < next)
            next = sm->sp[s].due_min;

    uint64_t launch = eng_disp_pending_min(r, sm);
    int pending = launch != ENG_NEVER;
    if (launch < next)
        next = launch;
    /* (slots freed in this step are refilled by the dispatcher after all SMs
     * due at t have stepped; it lowers the SM's next itself) */
    if (no_skip && (sm->resident || pending))
        next = t + 1;
    if (next <= t) /* cannot happen; never loop on one cycle */
        next = t + 1;
    sm->next = next;
}

/* Epoch end: the requests of this SM have their answers (mem_global ran
 * in global order).  Replace the placeholders, then repeat each evaluation
 * that waited for them at the cycle it was made: nothing else about the
 * warp changed since (it was blocked), and the pipe and queue checks come
 * after the ones that blocked it, so this is exactly the state the warp
 * had from that cycle on, as if the answer had been known at once. */
void eng_sm_settle(struct eng_run *r, int smi)
{
    struct eng_sm *sm = &r->sm[smi];
    int sub = r->sub;
    for (int i = 0; i < sm->nreq; i++) {
        struct eng_req *q = &sm->req[i];
        struct eng_warp *w = &sm->w[q->slot];
        /* a request that merged into lines earlier requests of this epoch
         * fetch is ready no sooner than they are (handles are indices
         * into sm->req, and earlier ones are final by now) */
        for (int d = 0; d < q->s.ndeps; d++)
            if (sm->req[q->s.deps[d]].ready > q->ready)
                q->ready = sm->req[q->s.deps[d]].ready;
        mem_sm_answer(&sm->mem, &q->s, (uint32_t)i, q->ready);
        eng_sb_resolve(&w->sb, q->ph, q->ready);
        if (sm->dc)
            eng_dc_resolve(&sm->dc[q->slot], q->ph, q->ready);
        if (q->ready > w->mem_done)
            w->mem_done = q->ready;
        if (!q->s.is_store) {
            if (q->ready > w->drain_done)
                w->drain_done = q->ready;
            w->npend_drain--;
        }
        w->npend--;
    }
    sm->nreq = 0;
    mem_sm_epoch_end(&sm->mem);
    uint64_t next = sm->next;
    for (int i = 0; i < sm->nunres; i++) {
        int slot = sm->unres[i];
        int s = slot % sub, ls = slot / sub;
        struct eng_smsp *sp = &sm->sp[s];
        struct eng_warp *w = &sm->w[slot];
        uint64_t u;
        w->unres = 0;
        int st = eval(r->fma_split, sp, w, dc_of(sm, slot), w->eval_t, &u);
        set_state(r, &sp->st, smi, s, ls, w, st, w->eval_t);
        sp->until[ls] = u;
        eng_smsp_lower(sp, u);
        if (u < next)
            next = u;
    }
    sm->nunres = 0;
    sm->next = next;
}
