/* eng_disp.c — block residency (eng_disp.h): the first wave, freed slots,
 * the dispatcher's refill order and block launch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "engine/eng_disp.h"
#include "engine/eng_fetch.h"
#include "engine/eng_run.h"
#include "engine/eng_util.h"

/* The whole cycle at or after the fractional time x (clamped below
 * ENG_NEVER, which means "never"). */
static uint64_t whole_cycle(double x)
{
    double c = ceil(x);
    return c > (double)(ENG_NEVER - 1) ? ENG_NEVER - 1 : (uint64_t)c;
}

/* The GPU-wide dispatcher hands out one block at d (fractional cycles) to
 * SM smi: it is busy with it for dispatch_launch cycles, and the block
 * starts on the SM at max(start, sm_ready[smi]); the SM can start its next
 * block blk_cost later.  Returns the whole cycle the block starts.  Serial
 * phase only. */
static uint64_t hand_out(struct eng_run *r, int smi, double d, double start)
{
    r->disp_next = d + r->a->dispatch_launch;
    double s = start > r->sm_ready[smi] ? start : r->sm_ready[smi];
    r->sm_ready[smi] = s + r->blk_cost;
    return whole_cycle(s);
}

void eng_disp_first_wave(struct eng_run *r)
{
    /* block i -> SM i % sm_count, so consecutive blocks spread over the SMs
     * as the hardware dispatcher does (docs/model.md: the measured order
     * pairs the two SMs of a TPC and walks the GPCs; every SM is alike here,
     * so SM order stands for it) */
    uint64_t nsm = (uint64_t)r->a->sm_count;
    uint64_t first = nsm * (uint64_t)r->bps;
    if (first > r->nblocks)
        first = r->nblocks;
    r->disp_next = (double)r->a->launch_start;
    r->disp_rr = (int)nsm - 1; /* (round-robin from SM 0) */
    r->nwaiting = 0;
    for (uint64_t i = 0; i < nsm; i++) {
        r->sm[i].next = ENG_NEVER;
        r->sm[i].code_at = ENG_NEVER;
    }
    for (uint64_t i = 0; i < first; i++) {
        struct eng_sm *sm = &r->sm[i % nsm];
        struct eng_bslot *bs = &sm->bs[i / nsm];
        bs->state = ENG_BS_PENDING;
        bs->block = (uint32_t)i;
        double d = r->disp_next > (double)r->a->launch_start ? r->disp_next
                                                             : (double)r->a->launch_start;
        bs->launch_at = hand_out(r, (int)(i % nsm), d, d);
        sm->npending++;
        if (bs->launch_at < sm->next)
            sm->next = bs->launch_at;
    }
    r->next_block = first;
}

static void launch(struct eng_run *r, int smi, int b, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    struct eng_bslot *bs = &sm->bs[b];
    int sub = r->sub;
    bs->state = ENG_BS_RUNNING;
    sm->npending--;
    bs->started = t;
    bs->live = bs->unretired = r->wpb;
    bs->arrived = 0;
    for (int i = 0; i < r->wpb; i++) {
        int slot = b * r->wpb + i;
        struct eng_warp *w = &sm->w[slot];
        struct eng_smsp *sp = &sm->sp[slot % sub];
        /* the SM starts the block's warps one after another (sm_warp_cycles) */
        uint64_t tw = t + (uint64_t)((double)i * r->a->sm_warp_cycles);
        memset(w, 0, offsetof(struct eng_warp, sb));
        eng_sb_reset(&w->sb);
        if (sm->dc) /* (allocated at the SM's first counter, eng_sm.c) */
            eng_dc_reset(&sm->dc[slot]);
        sp->until[slot / sub] = tw;
        eng_smsp_lower(sp, tw);
        if (sp->hi <= slot / sub)
            sp->hi = slot / sub + 1;
        w->resident = 1;
        w->block = bs->block;
        w->wib = (uint16_t)i;
        w->bslot = (uint8_t)b;
        w->launch = w->since = tw;
        w->state = WS_NO_INSTRUCTION;
        /* the SM's first fetch of the kernel misses the instruction cache
         * (scheduler.icache_cold); warps that start before the code is in
         * wait for it */
        if (sm->code_at == ENG_NEVER)
            sm->code_at = tw + (uint64_t)r->a->icache_cold;
        w->fetch_ready = eng_fetch_first(r->a, tw);
        if (w->fetch_ready < sm->code_at)
            w->fetch_ready = sm->code_at;
        w->age = (uint64_t)bs->block * (uint64_t)r->wpb + (uint64_t)i;
        if (sp->resident++ == 0)
            sp->active_since = tw;
        /* (an SM still releasing its last warps stays active: the union of
         * the intervals is counted) */
        if (sm->resident++ == 0)
            sm->active_since = tw > sm->active_end ? tw : sm->active_end;
        w->cur.nrun = 0; /* no run announced unless the reader's warp_begin sets one */
        w->cur.run = NULL;
        if (r->k->ops->warp_begin(r->k, bs->block, (uint32_t)i, &w->cur) != 0) {
            char msg[640]; /* the kernel name (up to 511) and the words around it */
            if (r->k->error) /* the reader's "file:line:col: message" (trace.h) */
                snprintf(msg, sizeof msg, "%s", r->k->error);
            else
                snprintf(msg, sizeof msg, "kernel '%s': trace has no stream for block %u warp %d",
                         r->k->launch.name, bs->block, i);
            eng_error(r, smi, t, msg);
            w->ni = NULL;
        } else {
            w->ni = NULL; /* (eng_fetch_next: no issue to report) */
            eng_fetch_next(r, w, &sm->copies[slot]);
            if (sm->ic.l0 && eng_fetch_ic_start(r->a, sm, sp, w, slot) != 0)
                eng_error(r, smi, tw, "out of memory");
            if (sm->cc.on && w->ni && eng_fetch_reads_const(w->ni))
                eng_fetch_cc_read(r->a, sm, w);
        }
        if (!w->ni) { /* empty stream: gone at once */
            w->finished = 1;
            w->drain_done = tw;
            bs->live--;
        }
    }
}

void eng_disp_launch_due(struct eng_run *r, int smi, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    for (int b = 0; b < r->bps; b++)
        if (sm->bs[b].state == ENG_BS_PENDING && sm->bs[b].launch_at <= t)
            launch(r, smi, b, t);
}

uint64_t eng_disp_pending_min(const struct eng_run *r, const struct eng_sm *sm)
{
    uint64_t m = ENG_NEVER;
    if (sm->npending)
        for (int b = 0; b < r->bps; b++)
            if (sm->bs[b].state == ENG_BS_PENDING && sm->bs[b].launch_at < m)
                m = sm->bs[b].launch_at;
    return m;
}

void eng_disp_retired(struct eng_run *r, int smi, int b, uint64_t t)
{
    struct eng_sm *sm = &r->sm[smi];
    sm->bs[b].state = ENG_BS_FREE;
    /* (the SM retires in time order: its queue stays sorted by t) */
    sm->fr[sm->nfr].t = t;
    sm->fr[sm->nfr].bslot = b;
    sm->nfr++;
}

/* The dispatcher's next job at or after d: the first SM after the last one
 * it served, in SM order, whose oldest finished block is released by d
 * (round-robin over the SMs); if none is, the earliest release (*d moves
 * there) and, of the SMs released then, the first in that order.  Returns
 * the SM, -1 if no SM has a finished block. */
static int next_job(const struct eng_run *r, double *d)
{
    int nsm = r->a->sm_count;
    uint64_t rel = (uint64_t)r->a->warp_release;
    uint64_t low = ENG_NEVER;
    for (int k = 1; k <= nsm; k++) {
        int i = (r->disp_rr + k) % nsm;
        const struct eng_sm *sm = &r->sm[i];
        if (!sm->nfr)
            continue;
        uint64_t at = sm->fr[0].t + rel;
        if ((double)at <= *d)
            return i;
        if (at < low)
            low = at;
    }
    if (low == ENG_NEVER)
        return -1;
    *d = (double)low;
    for (int k = 1; k <= nsm; k++) {
        int i = (r->disp_rr + k) % nsm;
        if (r->sm[i].nfr && r->sm[i].fr[0].t + rel == low)
            return i;
    }
    return -1; /* (not reached) */
}

uint64_t eng_disp_refill(struct eng_run *r, uint64_t end, int nfree, uint64_t *wake)
{
    int lat = r->a->block_launch_latency;
    uint64_t rel = (uint64_t)r->a->warp_release;
    /* Every slot freed before `end` is in the SMs' queues; one freed later
     * is released at end + warp_release at the earliest, so the dispatcher
     * may decide every job before that: no later slot could have been its
     * choice. */
    double horizon = (double)(end + rel);
    uint64_t low = ENG_NEVER;
    r->nwaiting = nfree;
    *wake = ENG_NEVER;
    while (r->nwaiting > 0) {
        double d = r->disp_next;
        int smi = next_job(r, &d);
        if (d >= horizon) {
            /* decided at a later epoch end; the loop must get there even
             * if nothing else happens before (eng_par.c) */
            *wake = whole_cycle(d);
            break;
        }
        struct eng_sm *sm = &r->sm[smi];
        int b = sm->fr[0].bslot;
        memmove(sm->fr, sm->fr + 1, (size_t)(sm->nfr - 1) * sizeof *sm->fr);
        sm->nfr--;
        r->nwaiting--;
        r->disp_rr = smi;
        /* take the finished block back */
        double back = d + r->a->dispatch_retire;
        r->disp_next = back;
        uint64_t done = whole_cycle(back);
        if (done > r->last_back)
            r->last_back = done;
        if (r->next_block >= r->nblocks)
            continue;
        /* and hand the slot the next block of the grid, which reaches the
         * SM block_launch_latency (at least one) cycles later: at or after
         * `end`, since a job is decided no earlier than the epoch's start
         * and epochs are at most that long (eng_par.c) */
        struct eng_bslot *bs = &sm->bs[b];
        bs->state = ENG_BS_PENDING;
        bs->block = (uint32_t)r->next_block++;
        uint64_t at = hand_out(r, smi, back, back + (double)(lat > 1 ? lat : 1));
        bs->launch_at = at;
        sm->npending++;
        if (at < sm->next)
            sm->next = at;
        if (at < low)
            low = at;
    }
    return low;
}
