/* eng_disp.c — block residency (eng_disp.h): the first wave, freed slots,
 * the dispatcher's refill order and block launch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "engine/eng_disp.h"
#include "engine/eng_fetch.h"
#include "engine/eng_run.h"
#include "engine/eng_util.h"

void eng_disp_first_wave(struct eng_run *r)
{
    /* block i -> SM i % sm_count, so consecutive blocks spread over the SMs
     * as the hardware dispatcher does */
    uint64_t nsm = (uint64_t)r->a->sm_count;
    uint64_t first = nsm * (uint64_t)r->bps;
    if (first > r->nblocks)
        first = r->nblocks;
    for (uint64_t i = 0; i < first; i++) {
        struct eng_sm *sm = &r->sm[i % nsm];
        struct eng_bslot *bs = &sm->bs[i / nsm];
        bs->state = ENG_BS_PENDING;
        bs->block = (uint32_t)i;
        bs->launch_at = 0;
        sm->npending++;
        sm->next = 0;
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
        memset(w, 0, offsetof(struct eng_warp, sb));
        eng_sb_reset(&w->sb);
        sp->until[slot / sub] = t;
        eng_smsp_lower(sp, t);
        if (sp->hi <= slot / sub)
            sp->hi = slot / sub + 1;
        w->resident = 1;
        w->block = bs->block;
        w->wib = (uint16_t)i;
        w->bslot = (uint8_t)b;
        w->launch = w->since = t;
        w->state = WS_NO_INSTRUCTION;
        w->fetch_ready = eng_fetch_first(r->a, t);
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
            eng_error(r, smi, t, msg);
            w->ni = NULL;
        } else {
            eng_fetch_next(r, w, &sm->copies[slot]);
        }
        if (!w->ni) { /* empty stream: gone at once */
            w->finished = 1;
            w->store_done = t;
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
    int rank = 0;
    for (int i = sm->nfr - 1; i >= 0 && sm->fr[i].t == t; i--)
        rank++;
    sm->fr[sm->nfr].t = t;
    sm->fr[sm->nfr].bslot = b;
    sm->fr[sm->nfr].rank = rank;
    sm->nfr++;
}

/* Hand the next blocks of the grid to the slots in r->freed, all freed at
 * t: rank 0 of every SM in SM order, then rank 1, ... (slots freed on
 * several SMs in one cycle get the pending blocks round-robin over the SMs,
 * as in the first wave, rather than all on the lowest SM).  Returns the
 * cycle they launch, ENG_NEVER if no block was left. */
static uint64_t assign(struct eng_run *r, uint64_t t)
{
    int lat = r->a->block_launch_latency;
    uint64_t at = t + (uint64_t)(lat > 1 ? lat : 1);
    uint64_t first = r->next_block;
    for (int rank = 0; r->nfreed > 0 && r->next_block < r->nblocks; rank++) {
        int left = 0;
        for (int i = 0; i < r->nfreed; i++) {
            if (r->freed[i].rank != rank) {
                left += r->freed[i].rank > rank;
                continue;
            }
            if (r->next_block >= r->nblocks)
                break;
            struct eng_sm *sm = &r->sm[r->freed[i].sm];
            struct eng_bslot *bs = &sm->bs[r->freed[i].bslot];
            bs->state = ENG_BS_PENDING;
            bs->block = (uint32_t)r->next_block++;
            bs->launch_at = at;
            sm->npending++;
            if (at < sm->next)
                sm->next = at;
        }
        if (!left)
            break;
    }
    r->nfreed = 0;
    return r->next_block > first ? at : ENG_NEVER;
}

uint64_t eng_disp_refill(struct eng_run *r, int nfree)
{
    int nsm = r->a->sm_count;
    uint64_t low = ENG_NEVER;
    /* cycle by cycle, each cycle's slots in SM order */
    while (nfree > 0) {
        uint64_t t = ENG_NEVER;
        for (int i = 0; i < nsm; i++)
            if (r->sm[i].nfr && r->sm[i].fr[0].t < t)
                t = r->sm[i].fr[0].t;
        if (t == ENG_NEVER)
            break;
        r->nfreed = 0;
        for (int i = 0; i < nsm; i++) {
            struct eng_sm *sm = &r->sm[i];
            int k = 0;
            while (k < sm->nfr && sm->fr[k].t == t) {
                r->freed[r->nfreed].sm = i;
                r->freed[r->nfreed].bslot = sm->fr[k].bslot;
                r->freed[r->nfreed].rank = sm->fr[k].rank;
                r->nfreed++;
                k++;
            }
            memmove(sm->fr, sm->fr + k, (size_t)(sm->nfr - k) * sizeof *sm->fr);
            sm->nfr -= k;
        }
        nfree -= r->nfreed;
        /* the SMs that got a block look again at its launch */
        uint64_t at = assign(r, t);
        if (at < low)
            low = at;
    }
    return low;
}
