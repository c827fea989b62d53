/* test_engine_util.h — shared helpers for the engine tests: an H100-like
 * struct arch with round numbers (so expected values can be computed by
 * hand) and a tiny in-memory trace reader, so the engine tests depend on
 * neither the YAML loader nor the trace parser.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TEST_ENGINE_UTIL_H
#define SMSIM_TEST_ENGINE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "engine/engine.h"
#include "stats/stats.h"
#include "trace/trace.h"

/* H100-shaped, round numbers: 1 GHz so GB/s == bytes/cycle. */
static inline void tu_arch(struct arch *a, int sm_count)
{
    static const int carve[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    memset(a, 0, sizeof *a);
    strcpy(a->name, "test-gpu");
    a->cc_major = 9;
    a->sm_count = sm_count;
    a->sm_clock_mhz = 1000.0;
    a->subpartitions = 4;
    a->warp_size = 32;
    a->max_warps_per_sm = 64;
    a->max_threads_per_sm = 2048;
    a->max_blocks_per_sm = 32;
    a->max_threads_per_block = 1024;
    a->regs_per_sm = 65536;
    a->regs_per_block = 65536;
    a->max_regs_per_thread = 255;
    a->reg_alloc_unit = 256;
    a->smem_per_sm = 228 * 1024;
    a->smem_per_block = 48 * 1024;
    a->smem_per_block_optin = 227 * 1024;
    a->smem_reserved_per_block = 1024;
    a->smem_alloc_granularity = 128;
    for (int i = 0; i < 10; i++)
        a->carveouts_kb[i] = carve[i];
    a->n_carveouts = 10;
    a->l1_smem_kb = 256;
    a->barriers_per_block = 16;
    a->barrier_multiplier = 0;
    a->policy = SCHED_GTO;
    a->issue_width = 1;
    a->fetch_latency = 0;
    a->ibuffer_depth = 2;
    a->branch_latency = 0;
    a->block_launch_latency = 0;
    struct arch_pipe_cfg fixed4 = {4, 1, DEP_FIXED};
    a->pipe[PIPE_FMA] = fixed4;
    a->pipe[PIPE_ALU] = fixed4;
    a->pipe[PIPE_FP64] = (struct arch_pipe_cfg){8, 4, DEP_FIXED};
    a->pipe[PIPE_MUFU] = (struct arch_pipe_cfg){16, 2, DEP_SHORT};
    a->pipe[PIPE_TENSOR] = (struct arch_pipe_cfg){32, 4, DEP_FIXED};
    a->pipe[PIPE_LSU] = (struct arch_pipe_cfg){0, 1, DEP_SHORT};
    a->pipe[PIPE_CBU] = (struct arch_pipe_cfg){0, 1, DEP_FIXED};
    a->smem_latency = 30;
    a->smem_banks = 32;
    a->l1_latency = 40;
    a->l2_latency = 300;
    a->dram_latency = 700;
    a->l2_size_kb = 51200;
    a->sector_bytes = 32;
    a->l1_bytes_per_clk = 128;
    a->l2_bytes_per_clk = 4096;
    a->dram_gbps = 2000; /* 2000 bytes per cycle at 1 GHz */
    a->lsu_queue_depth = 16;
    a->mio_queue_depth = 16;
}

/* ---- instructions ---------------------------------------------------- */

static inline struct tr_inst tu_inst(int kind, int pipe)
{
    struct tr_inst in;
    memset(&in, 0, sizeof in);
    in.kind = (uint8_t)kind;
    in.pipe = (uint8_t)pipe;
    in.conflict = 1;
    in.latency = -1;
    in.active = 0xffffffffu;
    for (int i = 0; i < TR_MAX_DST; i++)
        in.dst[i] = TR_REG_NONE;
    for (int i = 0; i < TR_MAX_SRC; i++)
        in.src[i] = TR_REG_NONE;
    strcpy(in.opcode, "X");
    return in;
}

/* dst <- op(s0, s1, s2); a source < 0 is left out. */
static inline struct tr_inst tu_alu(int pipe, int dst, int s0, int s1, int s2)
{
    struct tr_inst in = tu_inst(TR_K_ALU, pipe);
    if (dst >= 0)
        in.dst[in.ndst++] = (uint16_t)dst;
    int s[3] = {s0, s1, s2};
    for (int i = 0; i < 3; i++)
        if (s[i] >= 0)
            in.src[in.nsrc++] = (uint16_t)s[i];
    strcpy(in.opcode, pipe == PIPE_MUFU ? "MUFU.EX2" : "FFMA");
    return in;
}

static inline struct tr_inst tu_mem(int kind, int space, int pattern, int dst, int addr,
                                    int data, int width, uint64_t footprint)
{
    struct tr_inst in = tu_inst(kind, PIPE_LSU);
    in.space = (uint8_t)space;
    in.pattern = (uint8_t)pattern;
    in.width = (uint16_t)width;
    in.footprint = footprint;
    if (dst >= 0)
        in.dst[in.ndst++] = (uint16_t)dst;
    if (addr >= 0)
        in.src[in.nsrc++] = (uint16_t)addr;
    if (data >= 0)
        in.src[in.nsrc++] = (uint16_t)data;
    strcpy(in.opcode, kind == TR_K_STORE ? "STG" : "LDG");
    return in;
}

/* ---- in-memory trace --------------------------------------------------
 * A warp's stream is a list of segments, each a body repeated `loops`
 * times (loops0 instead for warp 0 of every block), then EXIT. */
enum { TU_MAX_SEG = 4 };

struct tu_seg {
    const struct tr_inst *body; /* instructions of one trip */
    int n;                      /* instructions per trip    */
    uint32_t loops;             /* trips for warps 1..      */
    uint32_t loops0;            /* trips for warp 0         */
};

struct tu_kernel {
    struct trace_kernel k;         /* what the engine sees   */
    struct tu_seg seg[TU_MAX_SEG]; /* the stream             */
    int nseg;                      /* segments in use        */
    struct tr_inst exit_inst;      /* the final EXIT         */
    uint64_t next_calls;           /* warp_next calls        */
};

static inline uint32_t tu_trips(const struct tu_kernel *t, int s, uint32_t warp)
{
    return warp == 0 ? t->seg[s].loops0 : t->seg[s].loops;
}

/* cursor: depth = segment, pc = index in body, left[0] = trips left,
 * left[1] = 1 once EXIT was returned. */
static inline void tu_skip_empty(const struct tu_kernel *t, struct tr_cursor *c)
{
    while ((int)c->depth < t->nseg && c->left[0] == 0) {
        c->depth++;
        c->pc = 0;
        if ((int)c->depth < t->nseg)
            c->left[0] = tu_trips(t, (int)c->depth, c->warp);
    }
}

static inline int tu_begin(struct trace_kernel *k, uint32_t block, uint32_t warp,
                           struct tr_cursor *c)
{
    struct tu_kernel *t = (struct tu_kernel *)k->impl;
    memset(c, 0, sizeof *c);
    c->block = block;
    c->warp = warp;
    c->depth = 0;
    c->left[0] = t->nseg > 0 ? tu_trips(t, 0, warp) : 0;
    tu_skip_empty(t, c);
    return 0;
}

/* The stream walk itself: a pure function of the cursor (no shared state),
 * so the threads test can call it concurrently. */
static inline const struct tr_inst *tu_step(struct trace_kernel *k, struct tr_cursor *c,
                                            struct tr_dyn *dyn)
{
    struct tu_kernel *t = (struct tu_kernel *)k->impl;
    const struct tr_inst *in;
    if (c->left[1])
        return NULL;
    if ((int)c->depth >= t->nseg) {
        c->left[1] = 1;
        in = &t->exit_inst;
    } else {
        const struct tu_seg *s = &t->seg[c->depth];
        in = &s->body[c->pc++];
        if ((int)c->pc == s->n) {
            c->pc = 0;
            c->left[0]--;
            tu_skip_empty(t, c);
        }
    }
    c->seq++;
    if (dyn) {
        dyn->active_mask = in->active;
        dyn->naddr = 0;
        dyn->addr = NULL;
    }
    return in;
}

static inline const struct tr_inst *tu_next(struct trace_kernel *k, struct tr_cursor *c,
                                            struct tr_dyn *dyn)
{
    ((struct tu_kernel *)k->impl)->next_calls++;
    return tu_step(k, c, dyn);
}

static inline void tu_destroy(struct trace_kernel *k)
{
    (void)k;
}

static const struct trace_ops tu_ops = {
    .warp_begin = tu_begin, .warp_next = tu_next, .warp_end = NULL, .destroy = tu_destroy};

/* A kernel of grid x block threads running one segment. */
static inline void tu_kernel_init(struct tu_kernel *t, uint32_t grid, uint32_t block,
                                  const struct tr_inst *body, int n, uint32_t loops)
{
    memset(t, 0, sizeof *t);
    t->k.ops = &tu_ops;
    t->k.impl = t;
    strcpy(t->k.launch.name, "tu_kernel");
    t->k.launch.grid[0] = grid;
    t->k.launch.grid[1] = t->k.launch.grid[2] = 1;
    t->k.launch.block[0] = block;
    t->k.launch.block[1] = t->k.launch.block[2] = 1;
    t->k.launch.regs = 32;
    t->exit_inst = tu_inst(TR_K_EXIT, PIPE_CBU);
    strcpy(t->exit_inst.opcode, "EXIT");
    t->seg[0] = (struct tu_seg){body, n, loops, loops};
    t->nseg = 1;
}

static inline void tu_opts(struct engine_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->carveout_pct = -1;
}

/* ---- counter helpers ------------------------------------------------- */

/* Sum of one SMSP field over the whole GPU. */
static inline uint64_t tu_sum_off(const struct stats_kernel *st, size_t off)
{
    uint64_t s = 0;
    for (int i = 0; i < st->sm_count * st->smsp_per_sm; i++)
        s += *(const uint64_t *)(const void *)((const char *)&st->smsp[i] + off);
    return s;
}
#define TU_SUM(st, field) tu_sum_off((st), offsetof(struct stats_smsp, field))

static inline uint64_t tu_state_sum(const struct stats_kernel *st, int ws)
{
    uint64_t s = 0;
    for (int i = 0; i < st->sm_count * st->smsp_per_sm; i++)
        s += st->smsp[i].state[ws];
    return s;
}

/* Every warp-cycle is in exactly one state, on every SMSP. */
static inline int tu_identity_ok(const struct stats_kernel *st)
{
    for (int i = 0; i < st->sm_count * st->smsp_per_sm; i++) {
        uint64_t s = 0;
        for (int w = 0; w < WS_COUNT; w++)
            s += st->smsp[i].state[w];
        if (s != st->smsp[i].warps_active)
            return 0;
        if (st->smsp[i].state[WS_SELECTED] != st->smsp[i].inst_issued)
            return 0;
    }
    return 1;
}

/* Everything observable of two runs, compared field by field, and the SM
 * steps (`events`) too when with_events.  Needs cmocka.h included first. */
static inline void tu_assert_same(const struct stats_kernel *x, const struct stats_kernel *y,
                                  int with_events)
{
    assert_int_equal(x->cycles_elapsed, y->cycles_elapsed);
    assert_int_equal(x->thread_inst, y->thread_inst);
    assert_int_equal(x->dram_bytes, y->dram_bytes);
    assert_int_equal(x->l2_bytes, y->l2_bytes);
    assert_int_equal(x->l1_sector_hits, y->l1_sector_hits);
    assert_int_equal(x->l1_sectors, y->l1_sectors);
    assert_int_equal(x->l2_sector_hits, y->l2_sector_hits);
    assert_int_equal(x->l2_sectors, y->l2_sectors);
    if (with_events)
        assert_int_equal(x->events, y->events);
    assert_int_equal(x->sm_count, y->sm_count);
    assert_memory_equal(x->sm, y->sm, sizeof *x->sm * (size_t)x->sm_count);
    assert_memory_equal(x->smsp, y->smsp,
                        sizeof *x->smsp * (size_t)(x->sm_count * x->smsp_per_sm));
}

/* Issues seen by an engine observer (tu_issue_obs as its state callback):
 * (cycle, warp index within its block) of every cycle a warp of SMSP 0
 * spent selected, in the order the intervals arrive; tu_issues_sort puts
 * them in cycle order (intervals of different warps arrive out of order). */
enum { TU_MAXI = 512 };
struct tu_issues {
    uint64_t t[TU_MAXI];
    int warp[TU_MAXI];   /* warp index within its block */
    uint32_t blk[TU_MAXI]; /* its block */
    int n;
};

static inline void tu_issue_obs(void *ud, int sm, int smsp, int slot, uint32_t block,
                                uint32_t warp, uint64_t from, uint64_t to, int state)
{
    (void)sm;
    (void)slot;
    struct tu_issues *is = ud;
    if (smsp != 0 || state != WS_SELECTED)
        return;
    for (uint64_t c = from; c < to && is->n < TU_MAXI; c++) {
        is->t[is->n] = c;
        is->warp[is->n] = (int)warp;
        is->blk[is->n] = block;
        is->n++;
    }
}

static inline void tu_issues_sort(struct tu_issues *is)
{
    for (int i = 1; i < is->n; i++)
        for (int j = i; j > 0 && is->t[j] < is->t[j - 1]; j--) {
            uint64_t t = is->t[j];
            int w = is->warp[j];
            uint32_t b = is->blk[j];
            is->t[j] = is->t[j - 1];
            is->warp[j] = is->warp[j - 1];
            is->blk[j] = is->blk[j - 1];
            is->t[j - 1] = t;
            is->warp[j - 1] = w;
            is->blk[j - 1] = b;
        }
}

#endif
