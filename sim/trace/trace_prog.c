/* trace_prog.c — running a compiled native kernel (see trace_prog.h).
 *
 * warp_next allocates nothing: all per-warp state lives in the fixed-size
 * cursor (pc, loop counters), the program is shared read-only by every warp.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include "trace/trace_prog.h"

static int64_t op_value(const struct nt_prog *p, const struct nt_op *op,
                        const struct tr_expr_env *env)
{
    if (op->flags & NT_F_CONST)
        return (int64_t)op->arg;
    const struct nt_expr *e = &p->exprs[op->arg];
    return tr_expr_eval(p->code + e->off, (int)e->n, env);
}

static void make_env(const struct nt_prog *p, uint32_t block, uint32_t warp,
                     struct tr_expr_env *env)
{
    env->block = block;
    env->warp = warp;
    env->gx = p->gx;
    env->gy = p->gy;
    env->trips = NULL; /* only addr= names loop indices (parse-time rule) */
    env->left = NULL;
}

/* Per-lane addresses of an instruction with NT_F_ADDR into the cursor's
 * buffer (docs/trace-format.md, "Addresses"): lane 0's address from addr= or
 * the footprint shorthand, the lanes from tr_lane_addrs. */
static void fill_addrs(const struct nt_prog *p, struct tr_cursor *c, const struct tr_inst *in,
                       const struct nt_mem *m, struct tr_expr_env *env, struct tr_dyn *dyn)
{
    uint64_t a0;
    if (m->mode == NT_A_EXPR) {
        if (m->is_const) {
            a0 = m->value;
        } else {
            const struct nt_expr *e = &p->exprs[m->expr];
            env->trips = c->trips;
            env->left = c->left;
            a0 = (uint64_t)tr_expr_eval(p->code + e->off, (int)e->n, env);
        }
    } else if (in->pattern == TR_PAT_RANDOM) {
        a0 = m->value; /* the lanes draw from the whole region */
    } else {
        /* The instance's position: its trip number over the enclosing loops
         * (the instruction runs once per innermost trip: conditions are per
         * warp), then every warp of the grid one span further, grid-stride,
         * wrapping at the region's end. */
        uint64_t k = 0;
        for (uint32_t j = 0; j < c->depth; j++)
            k = k * c->trips[j] + (c->trips[j] - c->left[j]);
        uint64_t g = (uint64_t)c->block * p->warps + c->warp;
        a0 = m->value + ((k * (p->blocks * p->warps) + g) % m->chunks) * m->span;
    }
    /* seq already counts this instance: its 0-based number is seq - 1 */
    uint64_t key = in->pattern == TR_PAT_RANDOM ? tr_addr_key(c->block, c->warp, c->seq - 1) : 0;
    dyn->naddr = tr_lane_addrs(in, a0, m->range, key, in->active, c->addr);
    dyn->addr = dyn->naddr ? c->addr : NULL;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* Loop trip count as the cursor stores it: <= 0 is no trip, above 2^32-1
 * saturates (documented in docs/trace-format.md). */
static uint32_t trips_of(int64_t v)
{
    if (v <= 0)
        return 0;
    if (v > (int64_t)UINT32_MAX)
        return UINT32_MAX;
    return (uint32_t)v;
}

uint64_t nt_count_range(const struct nt_prog *p, uint32_t from, uint32_t to,
                        const struct tr_expr_env *env, int *exited)
{
    uint64_t total = 0;
    uint32_t pc = from;
    *exited = 0;
    while (pc < to) {
        const struct nt_op *op = &p->ops[pc];
        switch (op->type) {
        case NT_INST:
            total = sat_add(total, 1);
            if (op->flags & NT_F_EXIT) {
                *exited = 1;
                return total;
            }
            pc++;
            break;
        case NT_LOOP: {
            uint32_t n = trips_of(op_value(p, op, env));
            if (n) {
                int ex;
                /* body is [pc+1, target-1): target is past the end entry */
                uint64_t body = nt_count_range(p, pc + 1, op->target - 1, env, &ex);
                total = sat_add(total, sat_mul(body, n));
            }
            pc = op->target;
            break;
        }
        case NT_COND:
            pc = op_value(p, op, env) ? pc + 1 : op->target;
            break;
        case NT_JUMP:
            pc = op->target;
            break;
        default: /* NT_ENDLOOP is never inside a counted range */
            pc++;
            break;
        }
    }
    return total;
}

uint64_t nt_count(const struct nt_prog *p, uint32_t block, uint32_t warp)
{
    struct tr_expr_env env;
    int ex;
    make_env(p, block, warp, &env);
    return nt_count_range(p, 0, p->nops, &env, &ex);
}

/* An upper bound of what nt_count_range gives over [from, to) for every
 * (block, warp) of the box: trip counts at their highest, a condition's
 * body counted unless it is false for all, and an else branch counted too
 * (a jump is walked through), so the bound covers either branch. */
static uint64_t bound_range(const struct nt_prog *p, uint32_t from, uint32_t to,
                            const struct tr_expr_box *box)
{
    uint64_t total = 0;
    uint32_t pc = from;
    while (pc < to) {
        const struct nt_op *op = &p->ops[pc];
        int64_t lo, hi;
        if (op->type == NT_LOOP || op->type == NT_COND) {
            if (op->flags & NT_F_CONST) {
                lo = hi = (int64_t)op->arg;
            } else {
                const struct nt_expr *e = &p->exprs[op->arg];
                tr_expr_range(p->code + e->off, (int)e->n, box, &lo, &hi);
            }
        }
        switch (op->type) {
        case NT_INST:
            total = sat_add(total, 1);
            pc++;
            break;
        case NT_LOOP: {
            uint32_t n = trips_of(hi);
            if (n)
                total = sat_add(total, sat_mul(bound_range(p, pc + 1, op->target - 1, box), n));
            pc = op->target;
            break;
        }
        case NT_COND:
            pc = lo == 0 && hi == 0 ? op->target : pc + 1;
            break;
        default: /* NT_JUMP: into the else branch as well */
            pc++;
            break;
        }
    }
    return total;
}

uint64_t nt_count_bound(const struct nt_prog *p)
{
    if (!p->dynamic)
        return nt_count(p, 0, 0); /* every warp alike: exact */
    struct tr_expr_box box = { 0, (int64_t)p->blocks - 1, 0, (int64_t)p->warps - 1, p->gx, p->gy };
    return bound_range(p, 0, p->nops, &box);
}

static int nt_warp_begin(struct trace_kernel *k, uint32_t block, uint32_t warp,
                         struct tr_cursor *c)
{
    const struct nt_prog *p = k->impl;
    if ((uint64_t)block >= p->blocks || warp >= p->warps)
        return -1;
    c->pc = 0;
    c->block = block;
    c->warp = warp;
    c->depth = 0;
    for (int i = 0; i < TR_MAX_DEPTH; i++)
        c->left[i] = 0;
    c->seq = 0;
    c->state = NULL;
    c->run = NULL;
    c->nrun = 0;
    return 0;
}

static const struct tr_inst *nt_warp_next(struct trace_kernel *k, struct tr_cursor *c,
                                          struct tr_dyn *dyn)
{
    const struct nt_prog *p = k->impl;
    struct tr_expr_env env;
    make_env(p, c->block, c->warp, &env);
    while (c->pc < p->nops) {
        const struct nt_op *op = &p->ops[c->pc];
        switch (op->type) {
        case NT_INST: {
            const struct tr_inst *in = &p->insts[op->arg];
            c->nrun = (p->run && !(op->flags & NT_F_EXIT)) ? p->run[c->pc] : 0;
            c->run = in + 1;
            c->pc = (op->flags & NT_F_EXIT) ? p->nops : c->pc + 1;
            c->seq++;
            if (dyn) {
                dyn->active_mask = in->active;
                dyn->naddr = 0;
                dyn->addr = NULL;
                if (op->flags & NT_F_ADDR)
                    fill_addrs(p, c, in, &p->mem[op->arg], &env, dyn);
            }
            return in;
        }
        case NT_LOOP: {
            uint32_t n = trips_of(op_value(p, op, &env));
            if (n && (op->flags & NT_F_MAYBE_EMPTY)) {
                int ex;
                if (nt_count_range(p, c->pc + 1, op->target - 1, &env, &ex) == 0)
                    n = 0; /* this warp's body is empty: skip all trips at once */
            }
            if (!n) {
                c->pc = op->target;
            } else {
                c->trips[c->depth] = n;
                c->left[c->depth++] = n;
                c->pc++;
            }
            break;
        }
        case NT_ENDLOOP:
            if (--c->left[c->depth - 1] > 0) {
                c->pc = op->target;
            } else {
                c->depth--;
                c->pc++;
            }
            break;
        case NT_COND:
            c->pc = op_value(p, op, &env) ? c->pc + 1 : op->target;
            break;
        default: /* NT_JUMP */
            c->pc = op->target;
            break;
        }
    }
    return NULL;
}

static void nt_warp_end(struct trace_kernel *k, struct tr_cursor *c)
{
    (void)k;
    c->state = NULL;
}

void nt_prog_free(struct nt_prog *p)
{
    if (!p)
        return;
    free(p->ops);
    free(p->run);
    free(p->insts);
    free(p->code);
    free(p->exprs);
    free(p->mem);
    free(p);
}

/* May op be part of tr_next's run?  Not an EXIT (the stream ends) nor an
 * instruction with addresses (tr_next fills none). */
static int nt_plain(const struct nt_op *op)
{
    return op->type == NT_INST && !(op->flags & (NT_F_EXIT | NT_F_ADDR));
}

int nt_prog_runs(struct nt_prog *p)
{
    free(p->run);
    p->run = NULL;
    if (p->nops == 0)
        return 0;
    p->run = malloc((size_t)p->nops * sizeof *p->run);
    if (!p->run)
        return -1;
    /* backwards: run[i] = 1 + run[i + 1] when op i + 1 is a plain
     * instruction whose inst follows op i's in insts[] */
    p->run[p->nops - 1] = 0;
    for (uint32_t i = p->nops - 1; i-- > 0;) {
        const struct nt_op *a = &p->ops[i], *b = &p->ops[i + 1];
        p->run[i] = a->type == NT_INST && nt_plain(b) && b->arg == a->arg + 1
                        ? 1 + (nt_plain(b) ? p->run[i + 1] : 0) : 0;
    }
    return 0;
}

static void nt_destroy(struct trace_kernel *k)
{
    if (!k)
        return;
    nt_prog_free(k->impl);
    free(k);
}

static uint64_t nt_warp_count(struct trace_kernel *k, uint32_t block, uint32_t warp)
{
    const struct nt_prog *p = k->impl;
    if ((uint64_t)block >= p->blocks || warp >= p->warps)
        return UINT64_MAX;
    return nt_count(p, block, warp);
}

static uint64_t nt_warp_bound(struct trace_kernel *k)
{
    return nt_count_bound(k->impl);
}

const struct trace_ops nt_trace_ops = {
    .warp_begin = nt_warp_begin,
    .warp_next = nt_warp_next,
    .warp_end = nt_warp_end,
    .destroy = nt_destroy,
    .warp_count = nt_warp_count,
    .warp_bound = nt_warp_bound,
};
