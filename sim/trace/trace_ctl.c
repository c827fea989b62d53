/* trace_ctl.c — the control-bit assignment pass (trace_ctl.h).
 *
 * What ptxas writes into every SASS instruction, and what the hardware does
 * with it (shared/reference/modern-sm-core.md §1; Huerta et al., MICRO 2025
 * §4): a stall count (cycles before the warp's next issue: for a
 * fixed-latency producer, latency minus the distance to its first
 * consumer), six dependence counters SB0..SB5 for variable-latency
 * producers (a write counter released at write-back, a read counter released
 * once the sources were read), a wait mask on the consumer, a yield hint and
 * operand-reuse bits.  This pass derives the same fields from the arch's
 * pipe latencies for programs that have none, in four steps:
 *
 * 1. Which instructions need a counter: a variable-latency producer (a load
 *    or an atomic with a destination; an ALU instruction whose dependency is
 *    short or long — MUFU, S2R, conversions... per trace_isa.c and the pipe's
 *    `dep` — or whose fixed latency is above 15, the widest stall count)
 *    gets a write counter when some other instruction of the program reads
 *    or writes one of its destinations (ptxas gives none to a result never
 *    used: the committed SASS's `LDC R1, c[0x0][0x28]`); a load, store or
 *    atomic gets a read counter when an instruction other than a load or
 *    atomic writes one of its sources (the WAR hazard on address and data
 *    registers that ptxas covers with one, e.g. an LDG whose address
 *    register an IADD3 of the loop rewrites; war_free() says why loads
 *    need none).
 *
 * 2. Counters and wait masks by a forward data-flow walk over the program's
 *    control graph (loops, conditions, jumps): the state says, per register,
 *    which counters a pending write (or a pending read by a memory
 *    instruction) of it may still hold.  An instruction that reads or writes
 *    a register with a pending write, or writes one with a pending read,
 *    waits on those counters; its wait clears them from every register (a
 *    counter at 0 holds nothing).  At a join (loop head, end of a condition)
 *    the states of all incoming paths are united, so a consumer at the top of
 *    a loop waits for a producer at its bottom (software pipelining) and the
 *    walk repeats until nothing changes.  A counter is taken from those no
 *    register refers to, least recently assigned first (round robin when
 *    none is held); with all six held, the least recently assigned is shared
 *    — always safe, since a wait is for the counter to reach 0, only slower.
 *    No DEPBAR is used: every wait is a wait mask.
 *
 * 3. Stall counts per straight-line window (consecutive instructions with no
 *    loop, condition, jump or branch between them): issue slots are counted
 *    with each instruction's stall (at least 1), and when an instruction's
 *    source (or, for a write-after-write, destination) comes from a
 *    fixed-latency producer whose result is not ready at its slot, the
 *    instruction *before* it gets the missing cycles — where ptxas puts them
 *    (the committed ffma-ilp2 SASS: `FFMA R4 ; stall=1`, `FFMA R6 ; stall=3`,
 *    then R4's consumer, 4 cycles after R4's producer).  The counter
 *    increment is visible one cycle after issue, so a producer directly
 *    followed by a consumer waiting on its counter gets stall >= 2 (§1).  At
 *    the end of a window the consumer could be the next instruction whatever
 *    path follows (a loop's first instruction, the code after a condition),
 *    so the window's last instruction stalls until every fixed-latency
 *    result of the window is ready: conservative at back-edges, where ptxas,
 *    which sees the consumer, may stall less.  A count never exceeds 15: a
 *    fixed latency above 15 got a counter in step 1 instead (the tensor
 *    pipe's 32 cycles in configs/h200.yaml).
 *
 * 4. Yield and reuse, from the committed ptxas SASS (validate/traces/, 1,628
 *    instructions with stall counts): the yield attribute (the encoded bit
 *    clear, docs/sass-converter.md) is on none of the 1,005 stall-1
 *    instructions, 14 % of the stall-2 ones and 60 % of those with stall
 *    >= 3, so the pass sets it exactly when the stall is >= 3 (in this model
 *    yield only matters at stall 1: a stall of
 *    2 or more already keeps the warp out of the next cycle).  A reuse bit is
 *    set on an operand slot when the next read of that slot and register
 *    bank in the window is the same register (reused(): the engine's cache
 *    keeps one entry per bank and slot).  Step 3 also counts pipe
 *    throughput as ptxas does (pipe_free()).  Measured agreement with ptxas
 *    on the 1,656 instructions of validate/traces/ (one kernel per case,
 *    tests/test_trace_ctl.c ptxas_agreement): stall exact 81.5 %, within
 *    +-1 93.2 %, yield 86.8 %, wait placement 96.7 %, write counter 98.8 %,
 *    read counter 88.3 % (the pass marks every memory reader of a register
 *    an ALU instruction rewrites, sharing one counter; ptxas only the
 *    last), reuse 97.9 %.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "trace/trace_ctl.h"
#include <stdlib.h>
#include <string.h>
#include "trace/trace_prog.h"

/* The widest stall count (4 bits, modern-sm-core.md §1). */
enum { CTL_STALL_MAX = 15, CTL_YIELD_FROM = 3, CTL_MAX_PASSES = 64 };

/* Per register: counters a pending write / a pending source read may hold. */
struct ctl_state {
    uint8_t w[TR_NREGS]; /* mask of counters a pending write of the register holds */
    uint8_t r[TR_NREGS]; /* mask of counters a memory instruction reading it holds  */
};

/* What one instruction is for the pass. */
struct ctl_info {
    int16_t lat;       /* fixed latency (>= 1) of an ALU result, 0: not a fixed producer */
    uint8_t want_w;    /* 1: gets a write counter (step 1)                               */
    uint8_t want_r;    /* 1: gets a read counter                                         */
};

/* The walk's working memory. */
struct ctl_walk {
    const struct nt_prog *p;   /* the program                                        */
    struct tr_inst *in;        /* [ninsts] the instructions being assigned           */
    struct ctl_info *info;     /* [ninsts] step 1                                    */
    uint8_t *wait;             /* [ninsts] wait masks found so far (only grow)       */
    int32_t *slot;             /* [nops + 1] index into heads of a join op, or -1    */
    struct ctl_state *heads;   /* states flowing into each join op                  */
    uint8_t *reached;          /* [nheads] 1: some edge reached the join             */
    uint32_t lru[TR_NSB];      /* when each counter was last assigned                */
    uint32_t clock;            /* assignment clock                                   */
};

/* The pipe config an instruction runs on, as the engine picks it
 * (eng_pipe.h: FMA-heavy-only opcodes use pipes.fmaheavy when it is split). */
static const struct arch_pipe_cfg *pipe_cfg(const struct arch *a, const struct tr_inst *in)
{
    int pipe = in->pipe < PIPE_COUNT ? in->pipe : PIPE_ALU;
    if (pipe == PIPE_FMA && a->fmaheavy.issue_interval > 0 && tr_fma_heavy_only(in))
        return &a->fmaheavy;
    return &a->pipe[pipe];
}

static int is_mem(const struct tr_inst *in)
{
    return in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC;
}

/* Step 1 for every instruction: fixed latency, and which counters it needs
 * (a reader or writer elsewhere in the program, counted per register). */
static int classify(const struct nt_prog *p, const struct arch *a, const struct tr_inst *insts,
                    struct ctl_info *info)
{
    uint32_t *rd = calloc(TR_NREGS, sizeof *rd), *wr = calloc(TR_NREGS, sizeof *wr);
    if (!rd || !wr) {
        free(rd);
        free(wr);
        return -1;
    }
    uint32_t *wa = calloc(TR_NREGS, sizeof *wa); /* writers that are not loads or atomics */
    if (!wa) {
        free(rd);
        free(wr);
        return -1;
    }
    for (uint32_t i = 0; i < p->ninsts; i++) {
        for (int j = 0; j < insts[i].nrs; j++)
            rd[insts[i].rs[j]]++;
        for (int j = 0; j < insts[i].nrd; j++) {
            wr[insts[i].rd[j]]++;
            wa[insts[i].rd[j]] += !is_mem(&insts[i]);
        }
    }
    for (uint32_t i = 0; i < p->ninsts; i++) {
        const struct tr_inst *in = &insts[i];
        struct ctl_info *f = &info[i];
        memset(f, 0, sizeof *f);
        int var = 0;
        if (in->kind == TR_K_ALU) {
            const struct arch_pipe_cfg *pc = pipe_cfg(a, in);
            int lat = in->latency >= 0 ? in->latency : pc->latency;
            int dep = in->dep != TR_DEP_PIPE ? in->dep
                      : pc->dep == DEP_SHORT ? TR_DEP_SHORT : TR_DEP_FIXED;
            if (dep != TR_DEP_FIXED || lat > CTL_STALL_MAX)
                var = 1;
            else
                f->lat = (int16_t)(lat < 1 ? 1 : lat);
        } else if (in->kind == TR_K_LOAD || in->kind == TR_K_ATOMIC) {
            var = 1;
        }
        /* (a register the instruction itself reads or writes counts once
         * for it; a use by any other instruction makes the counter needed) */
        for (int j = 0; var && j < in->nrd && !f->want_w; j++) {
            uint16_t r = in->rd[j];
            uint32_t self = 1;
            for (int s = 0; s < in->nrs; s++)
                self += in->rs[s] == r;
            f->want_w = rd[r] + wr[r] > self;
        }
        /* (a load writing the register is no WAR hazard: war_free()) */
        for (int j = 0; is_mem(in) && j < in->nrs && !f->want_r; j++)
            f->want_r = wa[in->rs[j]] > 0;
    }
    free(rd);
    free(wr);
    free(wa);
    return 0;
}

/* Is a write by `in` free of write-after-read hazards against memory
 * instructions still reading their sources?  A load or atomic is: a warp's
 * memory requests leave in order, and a load writes its destination only
 * once its own request was answered, after the earlier ones read their
 * sources.  ptxas agrees: in the committed SASS, LDGs whose address
 * registers later LDGs overwrite carry no read counter (reduce, stencil5),
 * and giving them one costs counters that then must be shared. */
static int war_free(const struct tr_inst *in)
{
    return in->kind == TR_K_LOAD || in->kind == TR_K_ATOMIC;
}

/* Counters some register of s refers to. */
static uint8_t held(const struct ctl_state *s)
{
    uint8_t m = 0;
    for (int r = 0; r < TR_NREGS; r++)
        m |= (uint8_t)(s->w[r] | s->r[r]);
    return m;
}

/* A counter for a new producer: the least recently assigned of those no
 * register refers to (and not `avoid`, the same instruction's other
 * counter), else the least recently assigned of all (shared: safe). */
static int pick(struct ctl_walk *k, const struct ctl_state *s, int avoid)
{
    uint8_t busy = held(s);
    if (avoid < TR_NSB)
        busy |= (uint8_t)(1u << avoid);
    int best = -1, any = -1;
    for (int c = 0; c < TR_NSB; c++) {
        if (c != avoid && (any < 0 || k->lru[c] < k->lru[any]))
            any = c;
        if (!(busy >> c & 1) && (best < 0 || k->lru[c] < k->lru[best]))
            best = c;
    }
    int c = best >= 0 ? best : any;
    k->lru[c] = ++k->clock;
    return c;
}

/* A read counter: the one a pending memory read already holds (and no
 * pending write), if any, else a new one (pick).  Sharing it is what ptxas
 * does (the committed SASS gives one read counter to the last of a run of
 * LDGs that read an address register, stencil5 and reduce): a warp's memory
 * requests leave in order, so the writer that waits for the counter to
 * reach 0 waits for the last reader, which is what it needs, and the other
 * counters stay free for results. */
static int pick_read(struct ctl_walk *k, const struct ctl_state *s, int avoid)
{
    uint8_t hw = 0, hr = 0;
    for (int r = 0; r < TR_NREGS; r++) {
        hw |= s->w[r];
        hr |= s->r[r];
    }
    uint8_t only_r = (uint8_t)(hr & ~hw);
    for (int c = 0; c < TR_NSB; c++)
        if ((only_r >> c & 1) && c != avoid) {
            k->lru[c] = ++k->clock;
            return c;
        }
    return pick(k, s, avoid);
}

/* One instruction on the walk: its wait mask from the state, then the
 * counters it holds. */
static void visit(struct ctl_walk *k, uint32_t i, struct ctl_state *s)
{
    struct tr_inst *in = &k->in[i];
    const struct ctl_info *f = &k->info[i];
    uint8_t need = 0;
    for (int j = 0; j < in->nrs; j++)
        need |= s->w[in->rs[j]];
    for (int j = 0; j < in->nrd; j++)
        need |= (uint8_t)(s->w[in->rd[j]] | (war_free(in) ? 0 : s->r[in->rd[j]]));
    k->wait[i] |= need;
    uint8_t m = k->wait[i];
    if (m)
        for (int r = 0; r < TR_NREGS; r++) {
            s->w[r] &= (uint8_t)~m;
            s->r[r] &= (uint8_t)~m;
        }
    if (f->want_w) {
        if (in->wbar == TR_SB_NONE)
            in->wbar = (uint8_t)pick(k, s, TR_SB_NONE);
        for (int j = 0; j < in->nrd; j++)
            s->w[in->rd[j]] = (uint8_t)(1u << in->wbar);
    }
    if (f->want_r) {
        if (in->rbar == TR_SB_NONE)
            in->rbar = (uint8_t)pick_read(k, s, in->wbar);
        for (int j = 0; j < in->nrs; j++)
            s->r[in->rs[j]] |= (uint8_t)(1u << in->rbar);
    }
}

/* s flows along an edge into op `to`: unite it with the join's state.
 * Returns 1 when that state grew. */
static int flow(struct ctl_walk *k, uint32_t to, const struct ctl_state *s)
{
    int h = k->slot[to];
    struct ctl_state *d = &k->heads[h];
    int grew = !k->reached[h];
    k->reached[h] = 1;
    for (int r = 0; r < TR_NREGS; r++) {
        uint8_t w = (uint8_t)(d->w[r] | s->w[r]), x = (uint8_t)(d->r[r] | s->r[r]);
        grew |= w != d->w[r] || x != d->r[r];
        d->w[r] = w;
        d->r[r] = x;
    }
    return grew;
}

/* Step 2: walk the program in op order until no join's state changes. */
static void walk(struct ctl_walk *k)
{
    const struct nt_prog *p = k->p;
    struct ctl_state cur;
    for (int pass = 0; pass < CTL_MAX_PASSES; pass++) {
        int again = 0, live = 1;
        memset(&cur, 0, sizeof cur);
        for (uint32_t i = 0; i <= p->nops; i++) {
            int h = k->slot[i];
            if (h >= 0 && k->reached[h]) {
                if (!live)
                    memset(&cur, 0, sizeof cur);
                for (int r = 0; r < TR_NREGS; r++) {
                    cur.w[r] |= k->heads[h].w[r];
                    cur.r[r] |= k->heads[h].r[r];
                }
                live = 1;
            }
            if (!live || i == p->nops)
                continue;
            const struct nt_op *op = &p->ops[i];
            switch (op->type) {
            case NT_INST:
                visit(k, (uint32_t)op->arg, &cur);
                if (op->flags & NT_F_EXIT)
                    live = 0;
                break;
            case NT_JUMP:
                again |= flow(k, op->target, &cur) && op->target <= i;
                live = 0;
                break;
            default: /* LOOP (zero trips), ENDLOOP (back), COND (false) */
                again |= flow(k, op->target, &cur) && op->target <= i;
                break;
            }
        }
        if (!again)
            break;
    }
}

/* Does op i end a straight-line window?  Any control entry does, and an
 * instruction that leaves the straight line (a branch, the warp's EXIT). */
static int window_end(const struct nt_prog *p, const struct tr_inst *insts, uint32_t i)
{
    const struct nt_op *op = &p->ops[i];
    if (op->type != NT_INST)
        return 1;
    if (op->flags & NT_F_EXIT)
        return 1;
    const struct tr_inst *in = &insts[op->arg];
    if (in->kind == TR_K_BRANCH || in->kind == TR_K_EXIT)
        return 1;
    return i + 1 >= p->nops || p->ops[i + 1].type != NT_INST;
}

/* Does in write register r?  (A cached operand it overwrites is stale.) */
static int writes(const struct tr_inst *in, uint16_t r)
{
    for (int j = 0; j < in->nrd; j++)
        if (in->rd[j] == r)
            return 1;
    return 0;
}

/* Pipe throughput, as ptxas counts it (the committed SASS: back-to-back
 * CS2R on the half-rate ALU pipe stall 2, LDGs 4 apart on the LSU's one
 * per 4 cycles): the first slot instruction `in` finds its pipe free, with
 * pfree[] the window's pipes (eng_pipe.h's rule: a split fma pipe takes
 * FP32 on either datapath, IMAD on FMA-heavy only, FP16x2 on both). */
static int64_t pipe_free(const struct arch *a, const int64_t *pfree, const struct tr_inst *in)
{
    if (in->kind != TR_K_ALU && !is_mem(in))
        return 0;
    int pipe = in->pipe < PIPE_COUNT ? in->pipe : PIPE_ALU;
    if (pipe != PIPE_FMA || a->fmaheavy.issue_interval <= 0)
        return pfree[pipe];
    int64_t lite = pfree[PIPE_FMA], heavy = pfree[PIPE_COUNT];
    if (tr_fma_heavy_only(in))
        return heavy;
    if (in->fma_path == TR_FMA_BOTH)
        return lite > heavy ? lite : heavy;
    return lite < heavy ? lite : heavy;
}

/* in issues at slot: its pipe (datapaths) are busy for the issue interval. */
static void pipe_take(const struct arch *a, int64_t *pfree, const struct tr_inst *in,
                      int64_t slot)
{
    if (in->kind != TR_K_ALU && !is_mem(in))
        return;
    int pipe = in->pipe < PIPE_COUNT ? in->pipe : PIPE_ALU;
    int64_t lite = slot + a->pipe[pipe].issue_interval;
    int split = a->fmaheavy.issue_interval > 0;
    if (pipe != PIPE_FMA || !split) {
        pfree[pipe] = lite;
        if (pipe == PIPE_ALU && split && a->alu_on_heavy) /* eng_pipe.h: one datapath */
            pfree[PIPE_COUNT] = lite;
        return;
    }
    int64_t heavy = slot + (int64_t)tr_fma_passes(in) * a->fmaheavy.issue_interval;
    if (tr_fma_heavy_only(in)) {
        pfree[PIPE_COUNT] = heavy;
    } else if (in->fma_path == TR_FMA_BOTH) {
        pfree[PIPE_FMA] = lite;
        pfree[PIPE_COUNT] = heavy;
    } else if (pfree[PIPE_FMA] <= slot) {
        pfree[PIPE_FMA] = lite;
    } else {
        pfree[PIPE_COUNT] = heavy;
    }
    if (a->alu_on_heavy)
        pfree[PIPE_ALU] = pfree[PIPE_COUNT];
}

/* Reuse bit of operand slot s of the instruction at op i (window ends at
 * op `to`): the register-file cache keeps one entry per bank and slot, which
 * the next read of that slot and bank hits or evicts (docs/model.md), so the
 * bit pays when that next read, by an ALU instruction of the window, is the
 * same register — and the register was not rewritten in between and no
 * instruction up to that read yields (another warp would then issue and
 * take the entry).  ptxas: ffma-ilp2's `FFMA R6, R6, R2.reuse, R3.reuse`
 * keeps R2 and R3 across an IADD3 that reads neither slot. */
static int reused(const struct nt_prog *p, const struct tr_inst *insts, uint32_t i, uint32_t to,
                  int s)
{
    const struct tr_inst *in = &insts[p->ops[i].arg];
    int reg = in->opr[s];
    if (reg == TR_OPR_NONE || writes(in, (uint16_t)(TR_REG_R + reg)))
        return 0;
    const struct tr_inst *prev = in;
    for (uint32_t j = i + 1; j <= to; j++) {
        if (p->ops[j].type != NT_INST)
            continue;
        const struct tr_inst *x = &insts[p->ops[j].arg];
        if (prev->yield || x->kind != TR_K_ALU)
            return 0;
        if (x->opr[s] != TR_OPR_NONE && (x->opr[s] & 1) == (reg & 1))
            return x->opr[s] == reg;
        if (writes(x, (uint16_t)(TR_REG_R + reg)))
            return 0;
        prev = x;
    }
    return 0;
}

/* Step 3 and 4 over one window: instructions at ops[from..to]. */
static void stalls(const struct nt_prog *p, const struct arch *a, struct tr_inst *insts,
                   const struct ctl_info *info, int64_t *ready, int64_t *t, uint32_t from,
                   uint32_t to)
{
    int64_t tp = 0, latest = *t; /* issue slot of the previous instruction */
    int64_t pfree[PIPE_COUNT + 1];  /* first slot each pipe (and FMA-heavy, last) is free */
    for (int j = 0; j <= PIPE_COUNT; j++)
        pfree[j] = *t;
    struct tr_inst *prev = NULL;
    for (uint32_t i = from; i <= to; i++) {
        if (p->ops[i].type != NT_INST)
            continue;
        struct tr_inst *in = &insts[p->ops[i].arg];
        const struct ctl_info *f = &info[p->ops[i].arg];
        int64_t slot = prev ? tp + prev->stall : *t;
        if (prev) {
            int64_t req = slot;
            for (int j = 0; j < in->nrs; j++)
                if (ready[in->rs[j]] > req)
                    req = ready[in->rs[j]];
            for (int j = 0; f->lat && j < in->nrd; j++) /* results land in order */
                if (ready[in->rd[j]] - f->lat + 1 > req)
                    req = ready[in->rd[j]] - f->lat + 1;
            uint8_t mine = 0; /* counters the previous instruction increments */
            if (prev->wbar < TR_NSB)
                mine |= (uint8_t)(1u << prev->wbar);
            if (prev->rbar < TR_NSB)
                mine |= (uint8_t)(1u << prev->rbar);
            if ((in->wait & mine) && req < tp + 2)
                req = tp + 2; /* the increment is visible a cycle after issue */
            int64_t pf = pipe_free(a, pfree, in);
            if (pf > req)
                req = pf;
            if (req - tp > CTL_STALL_MAX) /* (only a pipe busy longer than 15 cycles: its
                                             own check in the engine still holds) */
                req = tp + CTL_STALL_MAX;
            if (req > slot)
                prev->stall = (uint8_t)(req - tp);
            slot = tp + prev->stall;
        }
        in->stall = 1;
        pipe_take(a, pfree, in, slot);
        if (f->lat)
            for (int j = 0; j < in->nrd; j++) {
                ready[in->rd[j]] = slot + f->lat;
                if (slot + f->lat > latest)
                    latest = slot + f->lat;
            }
        prev = in;
        tp = slot;
    }
    if (!prev)
        return;
    /* the window's end: its consumer could be next on any path */
    if (prev->kind != TR_K_EXIT && latest - tp > prev->stall)
        prev->stall = (uint8_t)(latest - tp);
    *t = tp + prev->stall;
    /* step 4: yield, then reuse */
    for (uint32_t i = from; i <= to; i++)
        if (p->ops[i].type == NT_INST) {
            struct tr_inst *in = &insts[p->ops[i].arg];
            in->yield = (uint8_t)(in->stall >= CTL_YIELD_FROM);
        }
    for (uint32_t i = from; i <= to; i++)
        if (p->ops[i].type == NT_INST && insts[p->ops[i].arg].kind == TR_K_ALU)
            for (int s = 0; s < 3; s++)
                if (reused(p, insts, i, to, s))
                    insts[p->ops[i].arg].reuse |= (uint8_t)(1u << s);
}

int trace_ctl_assign(const struct nt_prog *p, const struct arch *a, struct tr_inst *insts,
                     uint32_t *counters, uint32_t *waits)
{
    struct ctl_walk k;
    memset(&k, 0, sizeof k);
    k.p = p;
    k.in = insts;
    for (uint32_t i = 0; i < p->ninsts; i++) {
        struct tr_inst *in = &insts[i];
        if (!in->sealed)
            tr_inst_seal(in);
        in->ctl = 1;
        in->stall = 1;
        in->yield = 0;
        in->wbar = in->rbar = TR_SB_NONE;
        in->wait = 0;
        in->reuse = 0;
        in->depbar_sb = TR_SB_NONE; /* no DEPBAR: waits are wait masks */
        in->depbar_n = 0;
    }
    k.info = calloc(p->ninsts ? p->ninsts : 1, sizeof *k.info);
    k.wait = calloc(p->ninsts ? p->ninsts : 1, 1);
    k.slot = malloc(((size_t)p->nops + 1) * sizeof *k.slot);
    int64_t *ready = calloc(TR_NREGS, sizeof *ready);
    int rc = -1;
    if (!k.info || !k.wait || !k.slot || !ready || classify(p, a, insts, k.info))
        goto out;
    uint32_t nh = 0;
    for (uint32_t i = 0; i <= p->nops; i++)
        k.slot[i] = -1;
    for (uint32_t i = 0; i < p->nops; i++)
        if (p->ops[i].type != NT_INST && p->ops[i].target <= p->nops && k.slot[p->ops[i].target] < 0)
            k.slot[p->ops[i].target] = (int32_t)nh++;
    k.heads = calloc(nh ? nh : 1, sizeof *k.heads);
    k.reached = calloc(nh ? nh : 1, 1);
    if (!k.heads || !k.reached)
        goto out;
    walk(&k);
    uint32_t nc = 0, nw = 0;
    for (uint32_t i = 0; i < p->ninsts; i++) {
        insts[i].wait = k.wait[i];
        nc += insts[i].wbar < TR_NSB || insts[i].rbar < TR_NSB;
        nw += k.wait[i] != 0;
    }
    /* windows in op order, slots counted on from one to the next (ready[]
     * is then never ahead of a new window's first slot) */
    int64_t t = 0;
    uint32_t from = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        if (p->ops[i].type != NT_INST) {
            from = i + 1;
            continue;
        }
        if (window_end(p, insts, i)) {
            stalls(p, a, insts, k.info, ready, &t, from, i);
            from = i + 1;
        }
    }
    if (counters)
        *counters = nc;
    if (waits)
        *waits = nw;
    rc = 0;
out:
    free(k.info);
    free(k.wait);
    free(k.slot);
    free(k.heads);
    free(k.reached);
    free(ready);
    return rc;
}

/* A copy of p with one instruction per position: the native reader interns
 * equal instructions (three `FFMA R0, R0, R9, R10` of a chain are one
 * static instruction), but control bits belong to a position (the chain's
 * last FFMA stalls less than the others).  Instructions are numbered in op
 * order; the expressions are p's (borrowed, not copied). */
static struct nt_prog *positions(const struct nt_prog *p)
{
    struct nt_prog *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    *q = *p;
    q->ops = NULL;
    q->insts = NULL;
    q->mem = NULL;
    q->run = NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nops; i++)
        n += p->ops[i].type == NT_INST;
    q->ninsts = n;
    q->ops = malloc(((size_t)p->nops ? p->nops : 1) * sizeof *q->ops);
    q->insts = malloc(((size_t)n ? n : 1) * sizeof *q->insts);
    q->mem = p->mem ? malloc(((size_t)n ? n : 1) * sizeof *q->mem) : NULL;
    if (!q->ops || !q->insts || (p->mem && !q->mem))
        return q; /* (the caller sees the missing arrays) */
    memcpy(q->ops, p->ops, (size_t)p->nops * sizeof *q->ops);
    n = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        if (q->ops[i].type != NT_INST)
            continue;
        q->insts[n] = p->insts[p->ops[i].arg];
        /* (the reader sizes mem only up to its last instruction with
         * addresses, and reads an entry only under NT_F_ADDR) */
        if (p->mem) {
            if (q->ops[i].flags & NT_F_ADDR)
                q->mem[n] = p->mem[p->ops[i].arg];
            else
                memset(&q->mem[n], 0, sizeof q->mem[n]);
        }
        q->ops[i].arg = n++;
    }
    if (p->run && nt_prog_runs(q) != 0)
        q->run = NULL; /* (runs are a speed-up only: warp_next works without) */
    return q;
}

static void positions_free(struct nt_prog *q)
{
    if (!q)
        return;
    free(q->ops);
    free(q->insts);
    free(q->mem);
    free(q->run);
    free(q);
}

int trace_ctl_new(const struct trace_kernel *k, const struct arch *a, struct trace_ctl *c)
{
    memset(c, 0, sizeof *c);
    if (!k || k->ops != &nt_trace_ops || !k->impl)
        return 0;
    const struct nt_prog *p = k->impl;
    if (p->ninsts == 0)
        return 0;
    for (uint32_t i = 0; i < p->ninsts; i++)
        if (p->insts[i].ctl)
            return 0; /* compiler output (or a mix): trusted as it is */
    struct nt_prog *q = positions(p);
    if (!q || !q->ops || !q->insts || (p->mem && !q->mem) ||
        trace_ctl_assign(q, a, q->insts, &c->counters, &c->waits) != 0) {
        positions_free(q);
        return -1;
    }
    c->k = *k;
    c->k.impl = q;
    c->prog = q;
    c->insts = q->insts;
    c->n = q->ninsts;
    return 0;
}

void trace_ctl_free(struct trace_ctl *c)
{
    positions_free(c->prog);
    memset(c, 0, sizeof *c);
}
