/* eng_sm.c — one SM at one cycle: launch pending blocks, classify every
 * resident warp into exactly one warp state, let each SMSP's scheduler
 * issue, retire finished warps, and say when the SM next needs a look.
 *
 * Exact skipping: a warp's state is a function of its own timestamps and its
 * SMSP's pipe/queue timestamps, and eval() returns, with the state, the
 * first cycle (`until`) at which that state can change without any issue
 * happening.  Only an issue changes those timestamps; after an issue the
 * other warps of the SMSP that were eligible are due on the next cycle, and
 * the issuing warp's own next state is settled at once (look-ahead, in
 * sm_step).  So when nothing issues the SM may jump to the minimum `until`;
 * state intervals are accounted lazily ([since, now)
 * added when the state changes), so the skipped cycles land in the right
 * counters with no per-cycle work.  Cached states are likewise reused while
 * t < until.
 *
 * Speed (docs/performance.md): the until[] of an SMSP's warps is one small
 * array, so a step touches only the warps that are due; a warp that passed
 * the barrier, fetch and dependency checks for its next instruction keeps
 * that verdict (eng_warp.ok) until it issues, because those conditions only
 * relax as time passes — an eligible warp that lost the issue slot is then
 * re-checked against its pipe and queue only.
 *
 * Parallel run (eng_par.c): a memory instruction's L2/DRAM answer is not
 * known until the epoch ends; its scoreboard entries hold a placeholder
 * (>= ENG_PEND, later than any cycle of the epoch, which the true answer is
 * too).  An evaluation whose result depends on a placeholder leaves the
 * warp's state alone and records the cycle (unres, eval_t); sm_settle()
 * repeats it with the answer, which reproduces the serial engine's state
 * from that cycle on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "engine/eng_internal.h"

static int pipe_of(const struct tr_inst *in)
{
    return in->pipe < PIPE_COUNT ? in->pipe : PIPE_ALU;
}

/* Stall reason when the instruction's pipe is still busy: LSU instructions
 * back up into their queue (MIO or LG), math pipes report math_pipe_throttle. */
static int pipe_busy_state(const struct eng_warp *w)
{
    if (w->pipe == PIPE_LSU)
        return w->queue == 1 ? WS_LG_THROTTLE : WS_MIO_THROTTLE;
    return WS_MATH_PIPE_THROTTLE;
}

/* First cycle the pipe of w's next instruction accepts it.  With a split fma
 * pipe (pipes.fmaheavy.issue_interval > 0) FP32 takes whichever datapath
 * frees first, IMAD/IMUL/IDP only FMA-heavy, FP16x2 needs both. */
static uint64_t pipe_ready(int fma_split, const struct eng_smsp *sp, const struct eng_warp *w)
{
    int p = w->pipe;
    if (p != PIPE_FMA || !fma_split)
        return sp->pipe_free[p];
    return eng_fma_ready(sp->pipe_free[PIPE_FMA], sp->heavy_free, w->ni->fma_path);
}

/* Conditions 1-3 (drain / barrier, fetch, dependencies) and MEMBAR for w's
 * next instruction: WS_SELECTED when they hold, else the stall state with
 * *until.  They only relax as t grows while ni stays the same, so once they
 * hold the caller remembers it in w->ok until the next issue. */
static int eval_cond(struct eng_warp *w, uint64_t t, uint64_t *until)
{
    if (w->finished) {
        *until = w->npend ? ENG_PEND : w->store_done;
        return WS_DRAIN;
    }
    if (t < w->bar_until) {
        *until = w->bar_until;
        return WS_BARRIER;
    }
    if (t < w->fetch_ready) {
        *until = w->fetch_ready;
        return w->branch ? WS_BRANCH_RESOLVING : WS_NO_INSTRUCTION;
    }
    const struct tr_inst *in = w->ni;
    int st;
    if (sb_check(&w->sb, in, t, until, &st))
        return st;
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
 * is a warp whose conditions 1-3 already hold (w->ok) re-checked against its
 * pipe and queue, a few compares. */
static inline __attribute__((always_inline)) int
eval(int fma_split, const struct eng_smsp *sp, struct eng_warp *w, uint64_t t,
     uint64_t *until)
{
    if (!w->ok) {
        int st = eval_cond(w, t, until);
        if (st != WS_SELECTED)
            return st;
        w->ok = 1;
    }
    uint64_t pf = pipe_ready(fma_split, sp, w);
    if (t < pf) {
        *until = pf;
        return pipe_busy_state(w);
    }
    if (w->queue && queue_busy(w->queue == 1 ? &sp->lg : &sp->mio, t, until))
        return w->queue == 1 ? WS_LG_THROTTLE : WS_MIO_THROTTLE;
    *until = t + 1;
    return WS_SELECTED;
}

/* Local slot of an SMSP may be due at u (a write from outside the SMSP's own
 * step: barrier release, block launch, epoch-end settle): lower the bounds
 * that let steps skip the SMSP (umin) or its other warps (uother). */
static void smsp_lower(struct eng_smsp *sp, uint64_t u)
{
    if (sp->umin > u)
        sp->umin = u;
    if (sp->uother > u)
        sp->uother = u;
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
            smsp_lower(sp, t + 1);
        }
    }
    sm->bs[b].arrived = 0;
}

/* EXIT issued at t (or the stream ended): the warp retires when all its
 * memory instructions have completed ("drain: after EXIT, waiting for all
 * memory instructions to complete so that warp resources can be freed",
 * ncu's stall-reason table; loads too: their registers are written back),
 * at the earliest the next cycle.  It no longer takes part in barriers,
 * which may release the others (exited warps count as arrived).  Requests
 * still unresolved (parallel run) are merged into store_done by sm_settle. */
static void finish(struct eng_run *r, struct eng_sm *sm, struct eng_warp *w, uint64_t t)
{
    struct eng_bslot *bs = &sm->bs[w->bslot];
    w->finished = 1;
    w->ok = 0;
    if (w->store_done < w->mem_done)
        w->store_done = w->mem_done;
    if (w->store_done < t + 1)
        w->store_done = t + 1;
    bs->live--;
    if (bs->arrived > 0 && bs->arrived >= bs->live)
        bar_release(r, sm, w->bslot, t);
}

/* The trace's per-opcode dependency class, where it gives one. */
int dep_kind(int dep)
{
    return dep == TR_DEP_LONG ? SBK_LONG : dep == TR_DEP_SHORT ? SBK_SHORT : SBK_WAIT;
}

/* The warp's next instruction into w->ni; `room` (the slot's entry of
 * eng_sm.copies) takes a sealed copy of an unsealed one. */
static void fetch_next(struct eng_run *r, struct eng_warp *w, struct tr_inst *room)
{
    const struct tr_inst *in = tr_next(r->k, &w->cur, &w->dyn);
    if (in && !in->sealed) { /* (the readers seal theirs; tests may not) */
        *room = *in;
        tr_inst_seal(room);
        in = room;
    }
    w->ni = in;
    w->ok = 0;
    if (in) {
        w->pipe = (uint8_t)pipe_of(in);
        w->queue = (uint8_t)mem_queue_of(in);
    }
}

void sm_error(struct eng_run *r, int smi, uint64_t t, const char *msg)
{
    if (!r->deferred) {
        r->error = 1;
        snprintf(r->err, 512, "%s", msg);
        return;
    }
    /* the serial engine keeps the last message of the first failing cycle */
    struct eng_sm *sm = &r->sm[smi];
    if (sm->err_t == ENG_NEVER || sm->err_t == t) {
        sm->err_t = t;
        snprintf(sm->err, sizeof sm->err, "%s", msg);
    }
}

static void issue(struct eng_run *r, struct eng_sm *sm, struct eng_smsp *sp,
                  struct eng_warp *w, int slot, uint64_t t)
{
    const struct arch *a = r->a;
    const struct tr_inst *in = w->ni;
    int p = w->pipe;
    const struct arch_pipe_cfg *pc = &a->pipe[p];
    if (p == PIPE_FMA && r->fma_split) {
        /* split fma pipe: FMA-lite (pipes.fma) and FMA-heavy (pipes.fmaheavy) */
        if (eng_fma_issue(a, &sp->pipe_free[PIPE_FMA], &sp->heavy_free, in->fma_path, t))
            pc = &a->fmaheavy;
    } else if (pc->issue_interval > 0) {
        sp->pipe_free[p] = t + (uint64_t)pc->issue_interval;
    }
    sm->acc.thread_inst += (uint64_t)eng_pop32(w->dyn.active_mask);

    int branch = 0;
    switch (in->kind) {
    case TR_K_ALU: {
        int lat = in->latency >= 0 ? in->latency : pc->latency;
        int kind = in->dep != TR_DEP_PIPE ? dep_kind(in->dep)
                   : pc->dep == DEP_SHORT ? SBK_SHORT : SBK_WAIT;
        sb_add_dst(&w->sb, in, t + (uint64_t)(lat > 0 ? lat : 0), kind, t);
        break;
    }
    case TR_K_LOAD:
    case TR_K_STORE:
    case TR_K_ATOMIC:
        mem_issue(r, sm, sp, w, slot, t);
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
        finish(r, sm, w, t);
        return;
    default: /* NOP, MEMBAR (waited for before issue) */
        break;
    }
    fetch_next(r, w, &sm->copies[slot]);
    if (!w->ni) {
        finish(r, sm, w, t);
        return;
    }
    /* One instruction per cycle reaches the buffer, so after a plain issue
     * the next one is there next cycle; a branch redirects fetch. */
    w->branch = (uint8_t)branch;
    w->fetch_ready = t + 1 + (branch && a->branch_latency > 0 ? (uint64_t)a->branch_latency : 0);
}

static void launch_block(struct eng_run *r, int smi, int b, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    struct eng_bslot *bs = &sm->bs[b];
    const struct arch *a = r->a;
    int sub = r->sub;
    bs->state = BS_RUNNING;
    sm->npending--;
    bs->started = t;
    bs->live = bs->unretired = r->wpb;
    bs->arrived = 0;
    for (int i = 0; i < r->wpb; i++) {
        int slot = b * r->wpb + i;
        struct eng_warp *w = &sm->w[slot];
        struct eng_smsp *sp = &sm->sp[slot % sub];
        memset(w, 0, offsetof(struct eng_warp, sb));
        sb_reset(&w->sb);
        sp->until[slot / sub] = t;
        smsp_lower(sp, t);
        if (sp->hi <= slot / sub)
            sp->hi = slot / sub + 1;
        w->resident = 1;
        w->block = bs->block;
        w->wib = (uint16_t)i;
        w->bslot = (uint8_t)b;
        w->launch = w->since = t;
        w->state = WS_NO_INSTRUCTION;
        w->fetch_ready = t + (uint64_t)(a->fetch_latency > 0 ? a->fetch_latency : 0);
        w->age = (uint64_t)bs->block * (uint64_t)r->wpb + (uint64_t)i;
        if (sp->resident++ == 0)
            sp->active_since = t;
        if (sm->resident++ == 0)
            sm->active_since = t;
        w->cur.nrun = 0; /* no run announced unless the reader's warp_begin sets one */
        w->cur.run = NULL;
        if (r->k->ops->warp_begin(r->k, bs->block, (uint32_t)i, &w->cur) != 0) {
            char msg[512];
            if (r->k->error) /* the reader's "file:line:col: message" (trace.h) */
                snprintf(msg, sizeof msg, "%s", r->k->error);
            else
                snprintf(msg, sizeof msg, "kernel '%s': trace has no stream for block %u warp %d",
                         r->k->launch.name, bs->block, i);
            sm_error(r, smi, t, msg);
            w->ni = NULL;
        } else {
            fetch_next(r, w, &sm->copies[slot]);
        }
        if (!w->ni) { /* empty stream: gone at once */
            w->finished = 1;
            w->store_done = t;
            bs->live--;
        }
    }
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
    ss->warps_active += t - w->launch;
    sst->warps_active += t - w->launch;
    if (--sp->resident == 0)
        ss->cycles_active += t - sp->active_since;
    if (--sm->resident == 0)
        sst->cycles_active += t - sm->active_since;
    w->resident = 0;
    sp->until[ls] = ENG_NEVER;
    while (sp->hi > 0 && !sm->w[(sp->hi - 1) * sub + s].resident)
        sp->hi--;
    if (r->k->ops->warp_end)
        r->k->ops->warp_end(r->k, &w->cur);
    if (r->a->policy == SCHED_GTO && sp->last == ls)
        sp->last = -1;
    if (t > sm->acc.last_retire)
        sm->acc.last_retire = t;
    struct eng_bslot *bs = &sm->bs[w->bslot];
    if (--bs->unretired == 0) {
        sst->blocks++;
        if (r->obs && r->obs->block_life)
            r->obs->block_life(r->obs->ud, smi, bs->block, bs->started, t);
        gpu_block_retired(r, smi, w->bslot, t);
    }
}

/* Scheduler choice among eligible local slots (ascending) not yet taken
 * this cycle.
 * GTO: the last issued warp if eligible, else the oldest.
 * LRR: the first eligible slot after the last issued one. */
static int pick(const struct eng_run *r, const struct eng_sm *sm, const struct eng_smsp *sp,
                int s, const int *elig, const uint8_t *taken, int n, int li)
{
    int best = -1;
    if (r->a->policy == SCHED_LRR) {
        /* key (ls - last - 1) mod nls: the first slot after `last`, wrapping */
        for (int i = 0; i < n; i++)
            if (!taken[i]) {
                if (elig[i] > sp->last)
                    return i;
                if (best < 0)
                    best = i;
            }
        return best;
    }
    /* li: the index of the last issued warp in elig (found while the list
     * was built), -1 if it is not eligible */
    if (li >= 0 && !taken[li])
        return li;
    int sub = r->sub;
    uint64_t bage = 0;
    for (int i = 0; i < n; i++) {
        if (taken[i])
            continue;
        uint64_t age = sm->w[elig[i] * sub + s].age;
        if (best < 0 || age < bage) {
            best = i;
            bage = age;
        }
    }
    return best;
}

/* An evaluation at t that waits for an unresolved request (parallel run). */
static void mark_unres(struct eng_sm *sm, struct eng_warp *w, int slot, uint64_t t)
{
    if (w->unres)
        return;
    w->unres = 1;
    w->eval_t = t;
    sm->unres[sm->nunres++] = slot;
}

void sm_step(struct eng_run *r, int smi, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    const struct arch *a = r->a;
    int sub = r->sub;
    int no_skip = r->no_skip;
    int fma_split = r->fma_split;
    uint64_t next = ENG_NEVER;
    int *elig = sm->elig;
    uint8_t *taken = sm->taken;

    sm->acc.events++;
    if (sm->npending)
        for (int b = 0; b < r->bps; b++)
            if (sm->bs[b].state == BS_PENDING && sm->bs[b].launch_at <= t)
                launch_block(r, smi, b, t);

    for (int s = 0; s < sub; s++) {
        struct eng_smsp *sp = &sm->sp[s];
        if (sp->resident == 0)
            continue;
        if (t < sp->umin && !no_skip)
            continue;
        struct stats_smsp *ss = &sp->st;
        uint64_t *until = sp->until;
        int nls = sp->hi;
        int n = 0;
        /* Pass 1, branch-free: which slots are due, and the earliest of the
         * others.  Pass 2 visits the due ones in slot order (nothing a visit
         * does changes another warp's until before the issue below). */
        int *due = sm->due;
        int nd = 0;
        int li = -1; /* index in elig of the last issued warp (GTO's pick) */
        uint64_t umin = ENG_NEVER;
        if (no_skip) {
            for (int ls = 0; ls < nls; ls++)
                due[ls] = ls;
            nd = nls;
        } else if (sp->solo >= 0 && t < sp->uother) {
            /* Only the warp that issued alone last time can be due: the
             * others' earliest until is sp->uother (a bound every outside
             * write lowers), so no scan.  (A warp issuing a burst while the
             * rest wait on memory is the common memory-bound step.) */
            due[0] = sp->solo;
            nd = until[sp->solo] <= t;
            umin = sp->uother;
            if (!nd && until[sp->solo] < umin)
                umin = until[sp->solo];
        } else {
            for (int ls = 0; ls < nls; ls++) {
                uint64_t u = until[ls];
                due[nd] = ls;
                nd += u <= t;
                umin = u > t && u < umin ? u : umin;
            }
        }
        /* the earliest until of the slots not visited below */
        uint64_t uscan = umin;
        for (int di = 0; di < nd; di++) {
            int ls = due[di];
            int slot = ls * sub + s;
            struct eng_warp *w = &sm->w[slot];
            uint64_t u;
            /* (w->ok implies a resident, unfinished warp: finish() clears it) */
            if (!w->ok) {
                if (!w->resident)
                    continue;
                if (w->finished && !w->npend && t >= w->store_done) {
                    retire(r, smi, s, ls, t);
                    continue;
                }
            }
            int st = eval(fma_split, sp, w, t, &u);
            if (st == WS_SELECTED) {
                if (ls == sp->last)
                    li = n;
                elig[n] = ls;
                taken[n] = 0;
                n++;
                continue;
            }
            if (u >= ENG_PEND && u != ENG_NEVER) { /* parallel run: answer pending */
                mark_unres(sm, w, slot, t);
                until[ls] = ENG_PEND;
                continue;
            }
            set_state(r, ss, smi, s, ls, w, st, t);
            until[ls] = u;
            if (u < umin)
                umin = u;
        }
        if (n == 0) {
            /* A lone due warp that found a stall is still the only one that
             * can be due before the others' bound (uscan): the next step
             * needs no scan either (in memory-bound kernels, a warp working
             * through its short dependencies while the rest wait on DRAM). */
            sp->solo = nd == 1 && !no_skip ? due[0] : -1;
            sp->uother = uscan;
            sp->umin = umin;
            continue;
        }
        ss->warps_eligible += (uint64_t)n;
        /* umin is now the earliest until of every warp but the eligible
         * ones; with one eligible warp, that bounds the others next cycle
         * (bar_release during the issue below lowers it further). */
        sp->solo = n == 1 ? elig[0] : -1;
        sp->uother = umin;
        int issued = 0;
        for (int k = 0; k < a->issue_width; k++) {
            int i = pick(r, sm, sp, s, elig, taken, n, li);
            if (i < 0)
                break;
            taken[i] = 1;
            int slot = elig[i] * sub + s;
            struct eng_warp *w = &sm->w[slot];
            uint64_t u;
            /* A second issue in the same cycle may find the pipe or queue
             * taken by the first; the warp then stays not_selected. */
            if (issued > 0 && eval(fma_split, sp, w, t, &u) != WS_SELECTED) {
                taken[i] = 2;
                continue;
            }
            taken[i] = 3;
            issue(r, sm, sp, w, slot, t);
            sp->last = elig[i];
            issued++;
        }
        uint64_t emin = ENG_NEVER; /* earliest until of the eligible warps */
        for (int i = 0; i < n; i++) {
            int ls = elig[i];
            struct eng_warp *w = &sm->w[ls * sub + s];
            uint64_t u = t + 1;
            if (taken[i] != 3) {
                set_state(r, ss, smi, s, ls, w, WS_NOT_SELECTED, t);
            } else {
                set_state(r, ss, smi, s, ls, w, WS_SELECTED, t);
                /* Look ahead: conditions 1-3 of the warp's next instruction
                 * at t + 1 depend only on the warp itself, which nothing but
                 * its own next issue changes (a barrier release only lowers
                 * until[], below).  Settle them now, so a warp that stalls
                 * right after issuing needs no visit at t + 1 (and the SMSP
                 * none if no other warp is due).  Not for a warp that exited
                 * (retirement is checked at its visit), nor in no-skip runs
                 * (the reference the skipping is tested against).  An answer
                 * still pending (parallel run) is settled at the epoch end
                 * as an evaluation at t + 1. */
                if (!w->finished && !no_skip) {
                    uint64_t v;
                    int st = eval_cond(w, t + 1, &v);
                    if (st == WS_SELECTED) {
                        w->ok = 1;
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
        /* sp->uother: the others' bound, lowered by any barrier release
         * during the issue */
        sp->umin = sp->uother < emin ? sp->uother : emin;
    }
    /* The SM's next look is its SMSPs' earliest bound, taken after all of
     * them were visited: an issue may release a barrier on an SMSP visited
     * earlier in this step (smsp_lower). */
    for (int s = 0; s < sub; s++)
        if (sm->sp[s].resident && sm->sp[s].umin < next)
            next = sm->sp[s].umin;

    int pending = 0;
    if (sm->npending)
        for (int b = 0; b < r->bps; b++)
            if (sm->bs[b].state == BS_PENDING) {
                pending = 1;
                if (sm->bs[b].launch_at < next)
                    next = sm->bs[b].launch_at;
            }
    /* (slots freed in this step are refilled by the dispatcher after all SMs
     * due at t have stepped; it lowers the SM's next itself) */
    if (no_skip && (sm->resident || pending))
        next = t + 1;
    if (next <= t) /* cannot happen; never loop on one cycle */
        next = t + 1;
    sm->next = next;
}

/* Parallel run, epoch end: the requests of this SM have their answers
 * (mem_resolve ran in global order).  Replace the placeholders, then repeat
 * each evaluation that waited for them at the cycle it was made: nothing
 * else about the warp changed since (it was blocked), and the pipe and queue
 * checks come after the ones that blocked it, so this is exactly the state
 * the serial engine set at that cycle. */
void sm_settle(struct eng_run *r, int smi)
{
    struct eng_sm *sm = &r->sm[smi];
    int sub = r->sub;
    for (int i = 0; i < sm->nreq; i++) {
        const struct eng_req *q = &sm->req[i];
        struct eng_warp *w = &sm->w[q->slot];
        for (int j = 0; j < w->sb.n; j++)
            if (w->sb.ready[j] == q->ph)
                w->sb.ready[j] = q->ready;
        if (q->ready > w->mem_done)
            w->mem_done = q->ready;
        if ((q->s.is_store || q->is_atom || w->finished) && q->ready > w->store_done)
            w->store_done = q->ready;
        w->npend--;
    }
    sm->nreq = 0;
    uint64_t next = sm->next;
    for (int i = 0; i < sm->nunres; i++) {
        int slot = sm->unres[i];
        int s = slot % sub, ls = slot / sub;
        struct eng_smsp *sp = &sm->sp[s];
        struct eng_warp *w = &sm->w[slot];
        uint64_t u;
        w->unres = 0;
        int st = eval(r->fma_split, sp, w, w->eval_t, &u);
        set_state(r, &sp->st, smi, s, ls, w, st, w->eval_t);
        sp->until[ls] = u;
        smsp_lower(sp, u);
        if (u < next)
            next = u;
    }
    sm->nunres = 0;
    sm->next = next;
}
