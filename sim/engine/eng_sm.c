/* eng_sm.c — one SM at one cycle: launch pending blocks, classify every
 * resident warp into exactly one warp state, let each SMSP's scheduler
 * issue, retire finished warps, and say when the SM next needs a look.
 *
 * Exact skipping: a warp's state is a function of its own timestamps and its
 * SMSP's pipe/queue timestamps, and eval() returns, with the state, the
 * first cycle (`until`) at which that state can change without any issue
 * happening.  Only an issue changes those timestamps, and an issue makes the
 * SM step again on the next cycle.  So when nothing issues the SM may jump to
 * the minimum `until`; state intervals are accounted lazily ([since, now)
 * added when the state changes), so the skipped cycles land in the right
 * counters with no per-cycle work.  Cached states are likewise reused while
 * t < until.
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
static int pipe_busy_state(const struct tr_inst *in)
{
    if (pipe_of(in) == PIPE_LSU)
        return mem_queue_of(in) == 1 ? WS_LG_THROTTLE : WS_MIO_THROTTLE;
    return WS_MATH_PIPE_THROTTLE;
}

/* The four eligibility conditions in priority order (docs/model.md):
 * 1 drain / barrier, 2 instruction fetched, 3 dependencies, 4 execution
 * resource.  Returns WS_SELECTED for "eligible". */
static int eval(const struct eng_smsp *sp, const struct eng_warp *w, uint64_t t,
                uint64_t *until)
{
    if (w->finished) {
        *until = w->store_done;
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
    if (in->kind == TR_K_MEMBAR && t < w->mem_done) {
        *until = w->mem_done;
        return WS_MEMBAR;
    }
    int p = pipe_of(in);
    if (t < sp->pipe_free[p]) {
        *until = sp->pipe_free[p];
        return pipe_busy_state(in);
    }
    int q = mem_queue_of(in);
    if (q == 1 && queue_busy(&sp->lg, t, until))
        return WS_LG_THROTTLE;
    if (q == 2 && queue_busy(&sp->mio, t, until))
        return WS_MIO_THROTTLE;
    *until = t + 1;
    return WS_SELECTED;
}

/* Close the warp's current state interval at t. */
static void flush(struct eng_run *r, int smi, int slot, struct eng_warp *w, uint64_t t)
{
    if (t <= w->since)
        return;
    int sub = r->a->subpartitions;
    struct stats_smsp *ss = &r->st->smsp[(size_t)smi * (size_t)sub + (size_t)(slot % sub)];
    ss->state[w->state] += t - w->since;
    const struct engine_observer *obs = r->obs;
    if (obs && obs->warp_state && (obs->until == 0 || w->since < obs->until)) {
        uint64_t to = obs->until && t > obs->until ? obs->until : t;
        obs->warp_state(obs->ud, smi, slot % sub, slot / sub, w->block, w->wib, w->since, to,
                        w->state);
    }
}

static void set_state(struct eng_run *r, int smi, int slot, struct eng_warp *w, int st,
                      uint64_t t)
{
    if (w->state == st)
        return;
    flush(r, smi, slot, w, t);
    w->state = (uint8_t)st;
    w->since = t;
}

static void bar_release(struct eng_run *r, struct eng_sm *sm, int b, uint64_t t)
{
    for (int i = 0; i < r->wpb; i++) {
        struct eng_warp *x = &sm->w[b * r->wpb + i];
        if (x->resident && x->bar_until == ENG_NEVER) {
            x->bar_until = t + 1;
            if (x->until > t + 1)
                x->until = t + 1;
        }
    }
    sm->bs[b].arrived = 0;
}

/* EXIT issued at t (or the stream ended): the warp retires when all its
 * memory instructions have completed ("drain: after EXIT, waiting for all
 * memory instructions to complete so that warp resources can be freed",
 * ncu's stall-reason table; loads too: their registers are written back),
 * at the earliest the next cycle.  It no longer takes part in barriers,
 * which may release the others (exited warps count as arrived). */
static void finish(struct eng_run *r, struct eng_sm *sm, struct eng_warp *w, uint64_t t)
{
    struct eng_bslot *bs = &sm->bs[w->bslot];
    w->finished = 1;
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

static void fetch_next(struct eng_run *r, struct eng_warp *w)
{
    w->ni = r->k->ops->warp_next(r->k, &w->cur, &w->dyn);
}

static void issue(struct eng_run *r, struct eng_sm *sm, struct eng_smsp *sp,
                  struct eng_warp *w, uint64_t t)
{
    const struct arch *a = r->a;
    const struct tr_inst *in = w->ni;
    int p = pipe_of(in);
    if (a->pipe[p].issue_interval > 0)
        sp->pipe_free[p] = t + (uint64_t)a->pipe[p].issue_interval;
    r->st->thread_inst += (uint64_t)__builtin_popcount(w->dyn.active_mask);

    int branch = 0;
    switch (in->kind) {
    case TR_K_ALU: {
        int lat = in->latency >= 0 ? in->latency : a->pipe[p].latency;
        int kind = in->dep != TR_DEP_PIPE ? dep_kind(in->dep)
                   : a->pipe[p].dep == DEP_SHORT ? SBK_SHORT : SBK_WAIT;
        for (int i = 0; i < in->ndst; i++)
            sb_add(&w->sb, in->dst[i], t + (uint64_t)(lat > 0 ? lat : 0), kind, t);
        break;
    }
    case TR_K_LOAD:
    case TR_K_STORE:
    case TR_K_ATOMIC:
        mem_issue(r, sm, sp, w, t);
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
    fetch_next(r, w);
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
    int sub = a->subpartitions;
    bs->state = BS_RUNNING;
    bs->started = t;
    bs->live = bs->unretired = r->wpb;
    bs->arrived = 0;
    for (int i = 0; i < r->wpb; i++) {
        int slot = b * r->wpb + i;
        struct eng_warp *w = &sm->w[slot];
        struct eng_smsp *sp = &sm->sp[slot % sub];
        memset(w, 0, offsetof(struct eng_warp, sb));
        sb_reset(&w->sb);
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
        if (r->k->ops->warp_begin(r->k, bs->block, (uint32_t)i, &w->cur) != 0) {
            r->error = 1;
            snprintf(r->err, 512, "kernel '%s': trace has no stream for block %u warp %d",
                     r->k->launch.name, bs->block, i);
            w->ni = NULL;
        } else {
            fetch_next(r, w);
        }
        if (!w->ni) { /* empty stream: gone at once */
            w->finished = 1;
            w->store_done = t;
            bs->live--;
        }
    }
}

static void retire(struct eng_run *r, int smi, int slot, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    struct eng_warp *w = &sm->w[slot];
    int sub = r->a->subpartitions;
    struct eng_smsp *sp = &sm->sp[slot % sub];
    struct stats_smsp *ss = &r->st->smsp[(size_t)smi * (size_t)sub + (size_t)(slot % sub)];
    struct stats_sm *sst = &r->st->sm[smi];
    flush(r, smi, slot, w, t);
    ss->warps_active += t - w->launch;
    sst->warps_active += t - w->launch;
    if (--sp->resident == 0)
        ss->cycles_active += t - sp->active_since;
    if (--sm->resident == 0)
        sst->cycles_active += t - sm->active_since;
    w->resident = 0;
    if (r->k->ops->warp_end)
        r->k->ops->warp_end(r->k, &w->cur);
    if (r->a->policy == SCHED_GTO && sp->last == slot / sub)
        sp->last = -1;
    if (t > r->last_retire)
        r->last_retire = t;
    struct eng_bslot *bs = &sm->bs[w->bslot];
    if (--bs->unretired == 0) {
        sst->blocks++;
        if (r->obs && r->obs->block_life)
            r->obs->block_life(r->obs->ud, smi, bs->block, bs->started, t);
        gpu_block_retired(r, smi, w->bslot, t);
    }
}

/* Scheduler choice among eligible slots not yet taken this cycle.
 * GTO: the last issued warp if eligible, else the oldest.
 * LRR: the first eligible slot after the last issued one. */
static int pick(const struct eng_run *r, const struct eng_sm *sm, const struct eng_smsp *sp,
                const int *elig, const uint8_t *taken, int n)
{
    int sub = r->a->subpartitions;
    int best = -1;
    if (r->a->policy == SCHED_LRR) {
        int nls = r->slots_per_smsp;
        int bkey = 0;
        for (int i = 0; i < n; i++) {
            if (taken[i])
                continue;
            int ls = elig[i] / sub;
            int key = ((ls - sp->last - 1) % nls + nls) % nls;
            if (best < 0 || key < bkey) {
                best = i;
                bkey = key;
            }
        }
        return best;
    }
    for (int i = 0; i < n; i++) {
        if (taken[i])
            continue;
        if (elig[i] / sub == sp->last)
            return i;
        if (best < 0 || sm->w[elig[i]].age < sm->w[elig[best]].age)
            best = i;
    }
    return best;
}

void sm_step(struct eng_run *r, int smi, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    const struct arch *a = r->a;
    int sub = a->subpartitions;
    int nslots = r->bps * r->wpb;
    uint64_t next = ENG_NEVER;
    int *elig = r->scratch_elig;
    uint8_t *taken = r->scratch_taken;

    r->st->events++;
    for (int b = 0; b < r->bps; b++)
        if (sm->bs[b].state == BS_PENDING && sm->bs[b].launch_at <= t)
            launch_block(r, smi, b, t);

    for (int s = 0; s < sub; s++) {
        struct eng_smsp *sp = &sm->sp[s];
        struct stats_smsp *ss = &r->st->smsp[(size_t)smi * (size_t)sub + (size_t)s];
        int n = 0;
        if (sp->resident == 0)
            continue;
        for (int slot = s; slot < nslots; slot += sub) {
            struct eng_warp *w = &sm->w[slot];
            if (!w->resident)
                continue;
            if (w->finished && t >= w->store_done) {
                retire(r, smi, slot, t);
                continue;
            }
            if (!r->no_skip && t < w->until) {
                if (w->until < next)
                    next = w->until;
                continue;
            }
            uint64_t u;
            int st = eval(sp, w, t, &u);
            if (st == WS_SELECTED) {
                elig[n] = slot;
                taken[n] = 0;
                n++;
                continue;
            }
            set_state(r, smi, slot, w, st, t);
            w->until = u;
            if (u < next)
                next = u;
        }
        if (n == 0)
            continue;
        ss->warps_eligible += (uint64_t)n;
        int issued = 0;
        for (int k = 0; k < a->issue_width; k++) {
            int i = pick(r, sm, sp, elig, taken, n);
            if (i < 0)
                break;
            taken[i] = 1;
            struct eng_warp *w = &sm->w[elig[i]];
            uint64_t u;
            /* A second issue in the same cycle may find the pipe or queue
             * taken by the first; the warp then stays not_selected. */
            if (issued > 0 && eval(sp, w, t, &u) != WS_SELECTED) {
                taken[i] = 2;
                continue;
            }
            taken[i] = 3;
            issue(r, sm, sp, w, t);
            sp->last = elig[i] / sub;
            issued++;
        }
        for (int i = 0; i < n; i++) {
            struct eng_warp *w = &sm->w[elig[i]];
            set_state(r, smi, elig[i], w, taken[i] == 3 ? WS_SELECTED : WS_NOT_SELECTED, t);
            w->until = t + 1;
        }
        if (issued) {
            ss->issue_active++;
            ss->inst_issued += (uint64_t)issued;
        }
        next = t + 1;
    }

    int pending = 0;
    for (int b = 0; b < r->bps; b++)
        if (sm->bs[b].state == BS_PENDING) {
            pending = 1;
            if (sm->bs[b].launch_at < next)
                next = sm->bs[b].launch_at;
        }
    /* (slots freed in this step are refilled by the dispatcher after all SMs
     * due at t have stepped; it lowers sm->next itself) */
    if (r->no_skip && (sm->resident || pending))
        next = t + 1;
    if (next <= t) /* cannot happen; never loop on one cycle */
        next = t + 1;
    sm->next = next;
}
