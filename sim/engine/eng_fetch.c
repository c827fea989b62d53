/* eng_fetch.c — a warp's next instruction from the trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine/eng_fetch.h"
#include <stdlib.h>
#include <string.h>
#include "engine/eng_run.h"

void eng_fetch_next(struct eng_run *r, struct eng_warp *w, struct tr_inst *room)
{
    /* Called after every issue but EXIT's (w->ni is the instruction issued,
     * w->dyn its instance) and at launch (w->ni NULL): the one place an
     * observer's per-instruction issue count can be kept off the issue
     * loop (engine_observer.inst_issue). */
    if (__builtin_expect(r->obs != NULL, 0) && w->ni && r->obs->inst_issue)
        r->obs->inst_issue(r->obs->ud, w->ni, w->dyn.active_mask);
    const struct tr_inst *in = tr_next(r->k, &w->cur, &w->dyn);
    if (in && !in->sealed) { /* (the readers seal theirs; tests may not) */
        *room = *in;
        tr_inst_seal(room);
        in = room;
    }
    w->ni = in;
    w->cond_ok = 0;
    if (in) {
        w->pipe = (uint8_t)eng_pipe_of(in);
        w->queue = (uint8_t)mem_queue_of(in);
    }
}

int eng_fetch_ic_init(const struct arch *a, struct eng_icache *ic, int slots, uint64_t code_bytes)
{
    memset(ic, 0, sizeof *ic);
    if (a->icache_l0_bytes <= 0)
        return 0;
    ic->warm = code_bytes > 0 && code_bytes <= (uint64_t)a->icache_l1_bytes;
    ic->n0 = (uint32_t)(a->icache_l0_bytes >> ENG_ILINE_SHIFT);
    if (ic->n0 < 2) /* a line and the next one at least */
        ic->n0 = 2;
    ic->l0 = calloc((size_t)slots * ic->n0, sizeof *ic->l0);
    ic->r0 = calloc((size_t)slots * ic->n0, sizeof *ic->r0);
    if (mem_cache_init(&ic->l1, (uint64_t)a->icache_l1_bytes, ENG_FE_WAYS, 1 << ENG_ILINE_SHIFT))
        return -1;
    ic->l1.modulo = 1; /* consecutive lines in consecutive sets */
    return ic->l0 && ic->r0 ? 0 : -1;
}

void eng_fetch_ic_free(struct eng_icache *ic)
{
    free(ic->l0);
    free(ic->r0);
    mem_cache_free(&ic->l1);
    free(ic->seen);
    memset(ic, 0, sizeof *ic);
}

/* Was `line` fetched by this SM before?  Marks it fetched.  -1: no memory. */
static int seen_before(struct eng_icache *ic, uint32_t line)
{
    if (line >= ic->nseen) {
        uint32_t n = ic->nseen ? ic->nseen : 64;
        while (n <= line)
            n *= 2;
        uint8_t *p = realloc(ic->seen, n);
        if (!p)
            return -1;
        memset(p + ic->nseen, 0, n - ic->nseen);
        ic->seen = p;
        ic->nseen = n;
    }
    int was = ic->seen[line];
    ic->seen[line] = 1;
    return was;
}

/* Bring `line` into L0 entry i of a warp on SMSP sp, asked for at q: the
 * cycle it is in.  `have` is when the L1 has it — at q on a hit (or when
 * its fill, in flight, arrives), icache_l2_latency later on a miss
 * (icache_dram_latency for the SM's first fetch of the line); the SMSP's
 * one fill port then takes it, busy icache_fill_cycles per line (the wait
 * for L2 does not hold the port), and the line is in icache_l1_latency
 * after the port took it.  -1: out of memory. */
static int fill(const struct arch *a, struct eng_icache *ic, struct eng_smsp *sp, size_t i,
                uint32_t line, uint64_t q)
{
    uint64_t have = q;
    unsigned v, d;
    long way = mem_cache_find(&ic->l1, line, &v);
    if (way >= 0) {
        if (ic->l1.fill[way] > q)
            have = ic->l1.fill[way];
    } else {
        int was = seen_before(ic, line);
        if (was < 0)
            return -1;
        /* a line the SM never fetched in the kernel: the L1 still holds it
         * from the launch before when the whole code fits (ncu replays each
         * kernel, flushing L2 but not the SM's instruction cache), else it
         * comes from DRAM */
        if (was)
            have = q + (uint64_t)a->icache_l2_latency;
        else if (!ic->warm)
            have = q + (uint64_t)a->icache_dram_latency;
        way = mem_cache_fill(&ic->l1, line, 1, 0, &d);
        if (way >= 0)
            ic->l1.fill[way] = have;
    }
    uint64_t start = have > sp->ifill_free ? have : sp->ifill_free;
    sp->ifill_free = start + (uint64_t)a->icache_fill_cycles;
    ic->l0[i] = line + 1;
    ic->r0[i] = start + (uint64_t)a->icache_l1_latency;
    return 0;
}

int eng_fetch_ic_line(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, uint32_t line)
{
    struct eng_icache *ic = &sm->ic;
    w->fline = line + 1;
    size_t base = (size_t)slot * ic->n0;
    size_t i = base + line % ic->n0;
    if (ic->l0[i] != line + 1 && fill(a, ic, sp, i, line, w->fetch_ready) != 0)
        return -1;
    if (ic->r0[i] > w->fetch_ready) {
        w->fetch_ready = ic->r0[i];
        w->bres_until = 0; /* the wait is for the line: no_instruction */
    }
    w->fnew = 1;
    return 0;
}

int eng_fetch_ic_next(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                      struct eng_warp *w, int slot, uint64_t t)
{
    struct eng_icache *ic = &sm->ic;
    w->fnew = 0;
    uint32_t line = w->fline; /* (the issued instruction's line + 1: the next line) */
    size_t j = (size_t)slot * ic->n0 + line % ic->n0;
    if (ic->l0[j] == line + 1)
        return 0;
    return fill(a, ic, sp, j, line, t);
}

int eng_fetch_ic_start(const struct arch *a, struct eng_sm *sm, struct eng_smsp *sp,
                       struct eng_warp *w, int slot)
{
    struct eng_icache *ic = &sm->ic;
    size_t base = (size_t)slot * ic->n0;
    memset(&ic->l0[base], 0, ic->n0 * sizeof *ic->l0);
    w->fline = 0;
    if (!w->ni || !w->ni->has_pc)
        return 0;
    uint32_t line = w->ni->pc >> ENG_ILINE_SHIFT;
    w->fline = line + 1;
    ic->l0[base + line % ic->n0] = line + 1;
    ic->r0[base + line % ic->n0] = 0;
    unsigned v, d;
    if (mem_cache_find(&ic->l1, line, &v) < 0) {
        long way = mem_cache_fill(&ic->l1, line, 1, 0, &d);
        if (way >= 0)
            ic->l1.fill[way] = 0;
    }
    w->fnew = 1;
    return seen_before(ic, line) < 0 ? -1 : 0;
}

int eng_fetch_cc_init(const struct arch *a, struct eng_ccache *cc)
{
    memset(cc, 0, sizeof *cc);
    if (a->const_l0_bytes <= 0)
        return 0;
    cc->on = 1;
    uint64_t l0 = (uint64_t)a->const_l0_bytes;
    if (l0 < (uint64_t)ENG_FE_WAYS << ENG_CLINE0_SHIFT) /* at least one set */
        l0 = (uint64_t)ENG_FE_WAYS << ENG_CLINE0_SHIFT;
    if (mem_cache_init(&cc->l0, l0, ENG_FE_WAYS, 1 << ENG_CLINE0_SHIFT) ||
        mem_cache_init(&cc->l1, (uint64_t)a->const_l1_bytes, ENG_FE_WAYS, 1 << ENG_CLINE1_SHIFT))
        return -1;
    cc->l0.modulo = cc->l1.modulo = 1;
    /* second-level lines: 256 banks x 64 KiB / 256 B, one bit each */
    cc->seen = calloc((size_t)1 << (24 - ENG_CLINE1_SHIFT - 3), 1);
    return cc->seen ? 0 : -1;
}

void eng_fetch_cc_free(struct eng_ccache *cc)
{
    mem_cache_free(&cc->l0);
    mem_cache_free(&cc->l1);
    free(cc->seen);
    memset(cc, 0, sizeof *cc);
}

void eng_fetch_cc_read(const struct arch *a, struct eng_sm *sm, struct eng_warp *w)
{
    struct eng_ccache *cc = &sm->cc;
    uint64_t q = w->fetch_ready;
    uint32_t addr = (uint32_t)w->ni->cbank << 16 | w->ni->coff;
    uint32_t l0 = addr >> ENG_CLINE0_SHIFT, l1 = addr >> ENG_CLINE1_SHIFT;
    unsigned v, d;
    long way = mem_cache_find(&cc->l0, l0, &v);
    if (way >= 0) { /* a hit, or a miss in flight: wait for it */
        w->cmiss_until = cc->l0.fill[way];
        return;
    }
    /* the second level: a hit (or its fill in flight) serves the line
     * const_l0_latency after it has it; a miss brings it from L2 (or, the
     * SM's first read of it in the kernel, from DRAM) first */
    uint64_t have = q;
    long w1 = mem_cache_find(&cc->l1, l1, &v);
    if (w1 >= 0) {
        if (cc->l1.fill[w1] > q)
            have = cc->l1.fill[w1];
    } else {
        int was = (cc->seen[l1 >> 3] >> (l1 & 7)) & 1;
        cc->seen[l1 >> 3] |= (uint8_t)(1u << (l1 & 7));
        have = q + (uint64_t)(was ? a->const_l2_latency : a->const_dram_latency);
        w1 = mem_cache_fill(&cc->l1, l1, 1, 0, &d);
        if (w1 >= 0)
            cc->l1.fill[w1] = have;
    }
    way = mem_cache_fill(&cc->l0, l0, 1, 0, &d);
    uint64_t done = have + (uint64_t)a->const_l0_latency;
    if (way >= 0)
        cc->l0.fill[way] = done;
    w->cmiss_until = done;
}
