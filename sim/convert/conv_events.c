/* conv_events.c — tracer event file + SASS listing -> Accel-Sim trace
 * (docs/tracing.md "Reconstruction").
 *
 * Steps: read the listing's function named by the event header (conv_sass.c,
 * the sass2trace parser, with its counts reader); decode every instruction's
 * registers once with the native reader; check every record against the
 * listing (pc, kind); group the records by warp (file order = each warp's
 * program order); rebuild each warp's stream segment by segment; write the
 * streams through the Accel-Sim exporter (conv_accelsim.c), which reads them
 * through trace_ops like any other trace, then read the result back.
 *
 * A segment is searched forward from where the previous record left off
 * (address 0 for the first) on the graph of conv_sass_succ, restricted to
 * instructions that may execute without a record: everything but the
 * unpredicated instrumented ones.  dist[] (instructions to the segment's
 * target, by a reverse breadth-first search, cached per target) says which
 * successors can still reach it; only those are followed, so the walk never
 * strays and terminates (see choose()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "convert/conv_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/conv_accelsim.h"
#include "convert/conv_sass.h"
#include "convert/conv_smev.h"
#include "trace/trace_isa.h"
#include "trace/trace_native.h"

#define KIND_BIT(k) (1u << (k)) /* bit of record kind k in a kinds mask */

/* Opcode base names the Sanitizer API patches, with the record kinds the
 * tracer writes for them (docs/tracing.md "Instrumented instructions").
 * The kinds are sanitizer_patching.h's Sanitizer_InstructionId (global,
 * shared, local memory access, barrier, syncwarp, shfl, call, ret,
 * memcpy_async); which SASS opcodes each covers is read from those names
 * (the header lists no opcodes), so a recording that disagrees is refused
 * with the record and the opcode named (check_records).  Generic LD/ST/ATOM
 * may touch any window. */
static const struct {
    const char *base;
    unsigned kinds;
} instrumented[] = {
    {"LDG", KIND_BIT(3)},   {"STG", KIND_BIT(3)},   {"ATOMG", KIND_BIT(3)},
    {"RED", KIND_BIT(3)},   {"REDG", KIND_BIT(3)},
    {"LD", KIND_BIT(3) | KIND_BIT(4) | KIND_BIT(5)},
    {"ST", KIND_BIT(3) | KIND_BIT(4) | KIND_BIT(5)},
    {"ATOM", KIND_BIT(3) | KIND_BIT(4)},
    {"LDS", KIND_BIT(4)},   {"STS", KIND_BIT(4)},   {"ATOMS", KIND_BIT(4)},
    {"LDL", KIND_BIT(5)},   {"STL", KIND_BIT(5)},
    {"BAR", KIND_BIT(6)},   {"WARPSYNC", KIND_BIT(7)}, {"SHFL", KIND_BIT(8)},
    {"CALL", KIND_BIT(9)},  {"RET", KIND_BIT(10)},  {"LDGSTS", KIND_BIT(14)},
};

unsigned conv_events_kinds(const char *opcode)
{
    size_t bl = tr_isa_base_len(opcode);
    for (size_t k = 0; k < sizeof instrumented / sizeof *instrumented; k++)
        if (strlen(instrumented[k].base) == bl && !strncmp(opcode, instrumented[k].base, bl))
            return instrumented[k].kinds;
    return 0;
}

struct step {
    uint32_t i;            /* instruction index                                 */
    uint32_t mask;         /* active lanes                                      */
    uint64_t rec;          /* record it carries the addresses of, or UINT64_MAX */
};

struct ev {
    const struct conv_events_opts *o;
    char *err;
    struct conv_sass_listing L;
    struct conv_smev E;
    struct tr_inst *ti;            /* decoded instruction per listing index        */
    unsigned *kinds;               /* conv_events_kinds per instruction            */
    uint8_t *block;                /* 1: unpredicated instrumented                 */
    uint32_t *pred_off, *pred;     /* predecessors (CSR): pred[pred_off[i]..[i+1]) */
    int32_t **dist;                /* per target (n: any EXIT), lazily, -1 = none  */
    size_t dist_bytes;             /* cached so far                                */
    int32_t *scratch;              /* a dist[] when the cache is full              */
    uint32_t *queue;               /* BFS queue                                    */
    double *expect;                /* counts: executions per warp, or NULL         */
    double *eflow;                 /* counts: traversals per warp of successor slot
                                      k of i at [2i+k] (conv_sass_succ's order),
                                      -1 where the counts do not determine it      */
    uint32_t *visits;              /* this warp's executions per instruction       */
    uint32_t *etaken;              /* this warp's traversals per slot, as eflow    */
    uint64_t *wstart;              /* per sampled warp: first index into order     */
    uint64_t *order;               /* record indices grouped by warp, file order   */
    uint64_t *wcount;              /* per sampled warp: instructions reconstructed */
    uint32_t first_warp, nwarps;   /* the sampled warps                            */
    struct step *seq;              /* the warp being rebuilt                       */
    size_t nseq, seqcap;
    uint32_t *suf;                 /* per record of the warp: its lanes and those of
                                      every later record (masks, rebuild())        */
    uint64_t sufcap;
    struct conv_events_stats st;
    int counting;                  /* 1 in the first pass (stats are added up)     */
};

static int fail(struct ev *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(v->err, TRACE_ERR_MAX, fmt, ap) >= TRACE_ERR_MAX)
        v->err[TRACE_ERR_MAX - 1] = 0;
    va_end(ap);
    return -1;
}

/* ---------- static instructions ---------- */

/* Registers and classes of every instruction, by the native reader: one
 * kernel of the listing's reachable instructions in address order (an
 * unguarded EXIT is decoded by the opcode table alone: it has no operands,
 * and the native reader ends a kernel there; so is unreachable code, which
 * no stream contains: a skipped CALL's callee with its RET, the padding). */
static int decode_all(struct ev *v)
{
    const struct conv_sass_listing *L = &v->L;
    size_t cap = 256, len = 0;
    for (uint32_t i = 0; i < L->n; i++)
        cap += strlen(L->in[i].text) + 24;
    char *text = malloc(cap);
    uint32_t *line_of = calloc((size_t)L->n + 4, sizeof *line_of); /* text line -> inst + 1 */
    v->ti = calloc(L->n, sizeof *v->ti);
    if (!text || !line_of || !v->ti) {
        free(text);
        free(line_of);
        return fail(v, "smsim: out of memory");
    }
    len += (size_t)snprintf(text + len, cap - len, "kernel statics grid=(1,1,1) block=(32,1,1) "
                            "regs=255 smem_static=0 smem_dynamic=0 {\n");
    uint32_t line = 1;
    for (uint32_t i = 0; i < L->n; i++) {
        if (L->in[i].flow == CONV_SASS_EXIT || !L->in[i].reach)
            continue;
        len += (size_t)snprintf(text + len, cap - len, "/*%04x*/ %s ;\n", i * 16, L->in[i].text);
        line_of[++line] = i + 1;
    }
    len += (size_t)snprintf(text + len, cap - len, "EXIT ;\n}\n");
    struct trace_file tf = {0};
    char nerr[TRACE_ERR_MAX];
    int rc = trace_native_open_mem(v->o->sass_path, text, len, &tf, nerr);
    free(text);
    if (rc) {
        /* "path:LINE:COL: msg" -> the instruction's line in the listing */
        const char *p = nerr + strlen(v->o->sass_path);
        char *end;
        unsigned long tl = strtoul(p + 1, &end, 10);
        const char *m = strstr(end, ": ");
        if (tl >= 2 && tl <= line && line_of[tl] && m)
            fail(v, "%s:%u: %s", v->o->sass_path, L->in[line_of[tl] - 1].line, m + 2);
        else
            fail(v, "%s", nerr);
        free(line_of);
        for (int k = 0; k < tf.nkernels; k++)
            tf.kernels[k]->ops->destroy(tf.kernels[k]);
        free(tf.kernels);
        return -1;
    }
    free(line_of);
    struct trace_kernel *k = tf.kernels[0];
    struct tr_cursor c;
    memset(&c, 0, sizeof c);
    rc = k->ops->warp_begin(k, 0, 0, &c);
    for (uint32_t i = 0; !rc && i < L->n; i++) {
        struct tr_inst *d = &v->ti[i];
        if (L->in[i].flow == CONV_SASS_EXIT || !L->in[i].reach) {
            struct tr_isa_info info;
            tr_isa_decode(L->in[i].opcode, d, &info);
        } else {
            const struct tr_inst *in = k->ops->warp_next(k, &c, NULL);
            if (!in) {
                rc = -1;
                break;
            }
            *d = *in;
        }
        d->has_pc = 1;
        d->pc = i * 16;
        d->line = i;
    }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    for (int j = 0; j < tf.nkernels; j++)
        tf.kernels[j]->ops->destroy(tf.kernels[j]);
    free(tf.kernels);
    if (rc)
        return fail(v, "smsim: %s: cannot decode the instructions of '%s'", v->o->sass_path,
                    L->name);
    return 0;
}

/* ---------- the graph ---------- */

/* Edge frequencies from the node counts by flow conservation: an
 * instruction's count leaves through its successors and arrives from its
 * predecessors (address 0 also from the launch, once per warp).  Whatever an
 * instruction with one successor, or a node with one unknown edge on either
 * side, determines is filled in, until nothing changes. */
static int edge_flows(struct ev *v)
{
    uint32_t n = v->L.n;
    int64_t *f = malloc(2 * (size_t)n * sizeof *f);
    v->eflow = malloc(2 * (size_t)n * sizeof *v->eflow);
    if (!f || !v->eflow) {
        free(f);
        return fail(v, "smsim: out of memory");
    }
    for (size_t e = 0; e < 2 * (size_t)n; e++)
        f[e] = -1;
    for (int changed = 1, pass = 0; changed && pass < 4 * (int)n + 4; pass++) {
        changed = 0;
        for (uint32_t x = 0; x < n; x++) {
            int64_t c = v->L.in[x].count;
            uint32_t s[2];
            int ns = conv_sass_succ(&v->L, x, s);
            if (c < 0 || !v->L.in[x].reach)
                continue;
            if (ns == 1 && f[2 * x] < 0) {
                f[2 * x] = c;
                changed = 1;
            } else if (ns == 2 && (f[2 * x] < 0) != (f[2 * x + 1] < 0)) {
                int u = f[2 * x] < 0 ? 0 : 1;
                int64_t r = c - f[2 * x + !u];
                if (r >= 0) {
                    f[2 * x + u] = r;
                    changed = 1;
                }
            }
        }
        for (uint32_t y = 0; y < n; y++) {
            int64_t c = v->L.in[y].count;
            if (c < 0 || !v->L.in[y].reach)
                continue;
            int64_t known = y == 0 ? v->L.warps : 0;
            int unknown = 0;
            size_t ue = 0;
            for (uint32_t e = v->pred_off[y]; e < v->pred_off[y + 1]; e++) {
                uint32_t p = v->pred[e], s[2];
                int ns = conv_sass_succ(&v->L, p, s);
                for (int k = 0; k < ns; k++)
                    if (s[k] == y) {
                        if (f[2 * p + k] < 0) {
                            unknown++;
                            ue = 2 * (size_t)p + (size_t)k;
                        } else {
                            known += f[2 * p + k];
                        }
                    }
            }
            if (unknown == 1 && c - known >= 0) {
                f[ue] = c - known;
                changed = 1;
            }
        }
    }
    for (size_t e = 0; e < 2 * (size_t)n; e++)
        v->eflow[e] = f[e] < 0 ? -1.0 : (double)f[e] / (double)v->L.warps;
    free(f);
    return 0;
}

static int build_graph(struct ev *v)
{
    uint32_t n = v->L.n;
    v->kinds = calloc(n, sizeof *v->kinds);
    v->block = calloc(n, 1);
    v->pred_off = calloc((size_t)n + 1, sizeof *v->pred_off);
    v->queue = malloc((size_t)n * sizeof *v->queue);
    v->dist = calloc((size_t)n + 1, sizeof *v->dist);
    v->scratch = malloc((size_t)n * sizeof *v->scratch);
    v->visits = calloc(n, sizeof *v->visits);
    v->etaken = calloc(2 * (size_t)n, sizeof *v->etaken);
    if (!v->kinds || !v->block || !v->pred_off || !v->queue || !v->dist || !v->scratch ||
        !v->visits || !v->etaken)
        return fail(v, "smsim: out of memory");
    uint32_t edges = 0;
    for (uint32_t i = 0; i < n; i++) {
        v->kinds[i] = conv_events_kinds(v->L.in[i].opcode);
        v->block[i] = v->kinds[i] && !v->L.in[i].pred;
        uint32_t s[2];
        int ns = conv_sass_succ(&v->L, i, s);
        for (int k = 0; k < ns; k++)
            if (s[k] < n) {
                v->pred_off[s[k] + 1]++;
                edges++;
            }
    }
    for (uint32_t i = 0; i < n; i++)
        v->pred_off[i + 1] += v->pred_off[i];
    v->pred = malloc(((size_t)edges + 1) * sizeof *v->pred);
    uint32_t *fill = calloc(n, sizeof *fill);
    if (!v->pred || !fill) {
        free(fill);
        return fail(v, "smsim: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s[2];
        int ns = conv_sass_succ(&v->L, i, s);
        for (int k = 0; k < ns; k++)
            if (s[k] < n)
                v->pred[v->pred_off[s[k]] + fill[s[k]]++] = i;
    }
    free(fill);
    if (v->L.warps > 0) {
        v->expect = malloc((size_t)n * sizeof *v->expect);
        if (!v->expect)
            return fail(v, "smsim: out of memory");
        for (uint32_t i = 0; i < n; i++)
            v->expect[i] = v->L.in[i].count > 0 ? (double)v->L.in[i].count / (double)v->L.warps
                                                : 0.0;
        if (edge_flows(v))
            return -1;
    }
    return 0;
}

static int is_exit(const struct ev *v, uint32_t i)
{
    return v->L.in[i].flow == CONV_SASS_EXIT || v->L.in[i].flow == CONV_SASS_EXIT_COND;
}

/* Instructions from each instruction to target t (t == n: any EXIT) along
 * instructions that need no record, -1 where t cannot be reached. */
static const int32_t *dist_to(struct ev *v, uint32_t t)
{
    uint32_t n = v->L.n;
    if (v->dist[t])
        return v->dist[t];
    int32_t *d = v->scratch;
    size_t bytes = (size_t)n * sizeof *d;
    if (v->dist_bytes + bytes <= ((size_t)256 << 20)) {
        int32_t *nd = malloc(bytes);
        if (nd) {
            d = nd;
            v->dist[t] = nd;
            v->dist_bytes += bytes;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        d[i] = -1;
    uint32_t qh = 0, qt = 0;
    if (t == n) {
        for (uint32_t i = 0; i < n; i++)
            if (is_exit(v, i) && !v->block[i]) {
                d[i] = 0;
                v->queue[qt++] = i;
            }
    } else {
        d[t] = 0;
        v->queue[qt++] = t;
    }
    while (qh < qt) {
        uint32_t x = v->queue[qh++];
        for (uint32_t e = v->pred_off[x]; e < v->pred_off[x + 1]; e++) {
            uint32_t p = v->pred[e];
            if (d[p] < 0 && !v->block[p]) {
                d[p] = d[x] + 1;
                v->queue[qt++] = p;
            }
        }
    }
    return d;
}

/* ---------- one warp ---------- */

static int push(struct ev *v, uint32_t i, uint32_t mask, uint64_t rec)
{
    if (v->nseq == v->seqcap) {
        if (v->seqcap >= CONV_EVENTS_MAX_WARP_INSTS)
            return -1;
        size_t nc = v->seqcap ? v->seqcap * 2 : 1024;
        struct step *ns = realloc(v->seq, nc * sizeof *ns);
        if (!ns)
            return -1;
        v->seq = ns;
        v->seqcap = nc;
    }
    v->seq[v->nseq++] = (struct step){i, mask, rec};
    v->visits[i]++;
    return 0;
}

/* The successor slot of `from` that leads to x (0 when from is the start). */
static int slot_of(const struct ev *v, uint32_t from, uint32_t x)
{
    uint32_t s[2];
    if (from == UINT32_MAX)
        return 0;
    int ns = conv_sass_succ(&v->L, from, s);
    return ns == 2 && s[1] == x && s[0] != x ? 1 : 0;
}

/* Pick one of the candidates c[0..nc) after instruction `from` (each
 * reaches the target; dist d).  With counts:
 *  - at a loop's back edge (a conditional BRA to itself or lower), the
 *    loop's trips per entry T = executions of the branch / its fall-through
 *    traversals: the back edge is taken while this warp's executions of the
 *    branch stay below (exits so far + 1) x T, so every entry runs T trips
 *    (non-integer T alternates between its neighbours);
 *  - elsewhere, the successor whose edge this warp has traversed the most
 *    below the profiled average per warp (ties: the fall-through);
 *  - without edge frequencies, the successor executed the most below its
 *    average, a backward one first.
 * When the counts give no preference, and without counts: the fewest
 * instructions to the target, ties to the fall-through.  Counts only pick
 * among successors that reach the target, and each counted pick uses up
 * budget that is finite per warp while each default pick shortens the
 * distance, so the walk ends. */
static uint32_t choose(struct ev *v, uint32_t from, const uint32_t *c, int nc, const int32_t *d)
{
    if (nc == 1)
        return c[0];
    if (v->counting)
        v->st.ambiguous++;
    int pick = -1;
    if (v->expect && from != UINT32_MAX) {
        const struct conv_sass_insn *in = &v->L.in[from];
        double fall = v->eflow[2 * (size_t)from + 1];
        if (in->flow == CONV_SASS_BRA && in->target <= from && fall > 0) {
            double trips = v->expect[from] / fall;
            double exits = (double)v->etaken[2 * (size_t)from + 1];
            int take = (exits + 1) * trips > (double)v->visits[from] + 1e-9;
            for (int k = 0; k < nc; k++)
                if ((c[k] == in->target) == take)
                    pick = k;
        } else {
            double best = 0;
            for (int k = 0; k < nc; k++) {
                size_t e = 2 * (size_t)from + (size_t)slot_of(v, from, c[k]);
                if (v->eflow[e] < 0)
                    continue;
                double r = v->eflow[e] - (double)v->etaken[e];
                if (r > best || (r == best && r > 0 && c[k] == from + 1)) {
                    best = r;
                    pick = k;
                }
            }
            for (int k = 0; pick < 0 && k < nc; k++) {
                double r = v->expect[c[k]] - (double)v->visits[c[k]];
                if (r > 0 && c[k] <= from)
                    pick = k;
            }
            for (int k = 0; pick < 0 && k < nc; k++)
                if (v->expect[c[k]] - (double)v->visits[c[k]] > 0)
                    pick = k;
        }
    }
    if (pick >= 0) {
        if (v->counting)
            v->st.by_counts++;
        return c[pick];
    }
    int best = 0;
    for (int k = 1; k < nc; k++)
        if (d[c[k]] < d[c[best]] ||
            (d[c[k]] == d[c[best]] && from != UINT32_MAX && c[k] == from + 1))
            best = k;
    return c[best];
}

/* Walk from `from` (UINT32_MAX: the start, before address 0; else after
 * executing instruction `from`; its successor `only` unless that is
 * UINT32_MAX) to target t (t == n: the end at an EXIT), pushing every
 * instruction passed with `mask` (0 for the predicated instrumented ones).
 * 0, or -1 when no path exists. */
static int walk(struct ev *v, uint32_t from, uint32_t only, uint32_t t, uint32_t mask,
                int *oom)
{
    uint32_t n = v->L.n;
    const int32_t *d = dist_to(v, t);
    uint32_t c[2], s[2];
    int nc = 0, ns;
    if (from == UINT32_MAX) {
        s[0] = 0;
        ns = 1;
    } else {
        ns = conv_sass_succ(&v->L, from, s);
    }
    for (int k = 0; k < ns; k++)
        if (s[k] < n && d[s[k]] >= 0 && (only == UINT32_MAX || s[k] == only))
            c[nc++] = s[k];
    uint32_t at = from;
    for (;;) {
        if (!nc)
            return -1;
        uint32_t x = choose(v, at, c, nc, d);
        if (at != UINT32_MAX)
            v->etaken[2 * (size_t)at + (size_t)slot_of(v, at, x)]++;
        if (x == t)
            return 0;
        int off = v->kinds[x] != 0; /* instrumented, here without a record: predicated off */
        if (off && v->counting)
            v->st.masked_off++;
        if (push(v, x, off ? 0 : mask, UINT64_MAX)) {
            *oom = 1;
            return -1;
        }
        at = x;
        ns = conv_sass_succ(&v->L, x, s);
        nc = 0;
        for (int k = 0; k < ns; k++)
            if (s[k] < n && d[s[k]] >= 0)
                c[nc++] = s[k];
        if (t == n && is_exit(v, x)) {
            /* reached an EXIT: the end, unless the warp goes on past a
             * guarded one (only the counts can say so) */
            if (!nc)
                return 0;
            if (v->counting)
                v->st.ambiguous++;
            /* with counts: on while this warp is at least half a traversal
             * below the profiled average of the edge on */
            size_t e = 2 * (size_t)x;
            int go_on = v->expect && v->eflow[e] >= 0 &&
                        v->eflow[e] - (double)v->etaken[e] >= 0.5;
            if (!go_on)
                return 0;
            if (v->counting)
                v->st.by_counts++;
        }
    }
}

/* No path from the last record to target q: a divergent warp that ran one
 * side of a branch and now runs the other (SIMT: the lanes that took one
 * side, then those that took the other).  The most recent conditional
 * branch of this warp's stream (at most 65536 instructions back) whose
 * other successor reaches q without a record is where the second side
 * starts; the stream goes on from there.  0, or -1 when there is none. */
static int other_side(struct ev *v, uint32_t q, uint32_t mask, int *oom)
{
    uint32_t n = v->L.n;
    size_t lim = v->nseq > 65536 ? v->nseq - 65536 : 0;
    const int32_t *d = dist_to(v, q); /* valid until the next dist_to (in walk) */
    for (size_t k = v->nseq; k-- > lim;) {
        uint32_t x = v->seq[k].i;
        if (v->L.in[x].flow != CONV_SASS_BRA)
            continue;
        uint32_t s[2];
        int ns = conv_sass_succ(&v->L, x, s);
        uint32_t went = k + 1 < v->nseq ? v->seq[k + 1].i : UINT32_MAX;
        for (int j = 0; j < ns; j++) {
            if (s[j] >= n || s[j] == went || d[s[j]] < 0)
                continue;
            if (v->counting)
                v->st.diverged++;
            return walk(v, x, s[j], q, mask, oom);
        }
    }
    return -1;
}

static uint32_t warp_lanes(const struct ev *v, uint32_t w)
{
    uint32_t threads = v->E.block[0] * v->E.block[1] * v->E.block[2];
    uint32_t left = threads - (w % v->E.warps_per_block) * 32;
    return left >= 32 ? 0xffffffffu : (1u << left) - 1;
}

static const char *addr_s(uint32_t i, char b[16])
{
    if (i == UINT32_MAX)
        snprintf(b, 16, "the start");
    else
        snprintf(b, 16, "after 0x%04x", i * 16);
    return b;
}

/* One segment: walk from `from` to record r's instruction q (a divergent
 * warp's other side when no path leads there, other_side), then issue q
 * with the record's mask.  0, or -1 with the message. */
static int segment(struct ev *v, uint32_t w, uint32_t from, const struct conv_smev_rec *r,
                   uint32_t q, uint32_t mask)
{
    int oom = 0;
    char a[16];
    int bad = walk(v, from, UINT32_MAX, q, mask, &oom);
    if (bad && !oom)
        bad = other_side(v, q, mask, &oom); /* (a failed walk pushed nothing) */
    if (!bad && !push(v, q, r->mask, conv_smev_is_mem(r->kind) ? r->index : UINT64_MAX))
        return 0;
    if (oom || v->nseq >= CONV_EVENTS_MAX_WARP_INSTS)
        return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): warp %u: more than %d "
                       "instructions or out of memory", v->E.path, r->index + 1, r->byte, w,
                    CONV_EVENTS_MAX_WARP_INSTS);
    return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): pc: warp %u has no path from %s "
                   "to 0x%04x '%s' that passes no unpredicated instrumented instruction without "
                   "a record", v->E.path, r->index + 1, r->byte, w, addr_s(from, a), r->pc,
                v->L.in[q].opcode);
}

/* Rebuild warp w (global id) into v->seq.
 *
 * Masks: a recorded instruction has its record's; the others of a segment
 * get the lanes of the record that ends the segment and of every later
 * record of the warp (lanes that run later were alive then: a warp loses
 * lanes only by exits; diverged lanes are counted on both sides).  A block
 * exit record at an EXIT is that EXIT's instance: at a guarded EXIT with
 * more records after it, only some lanes left there. */
static int rebuild(struct ev *v, uint32_t w)
{
    uint32_t n = v->L.n;
    uint32_t sw = w - v->first_warp;
    uint64_t j0 = v->wstart[sw], j1 = v->wstart[sw + 1];
    v->nseq = 0;
    memset(v->visits, 0, (size_t)n * sizeof *v->visits);
    memset(v->etaken, 0, 2 * (size_t)n * sizeof *v->etaken);
    if (j1 - j0 > v->sufcap) {
        uint32_t *ns = realloc(v->suf, (size_t)(j1 - j0) * sizeof *ns);
        if (!ns)
            return fail(v, "smsim: out of memory");
        v->suf = ns;
        v->sufcap = j1 - j0;
    }
    uint32_t later = 0;
    for (uint64_t j = j1; j-- > j0;) {
        struct conv_smev_rec r;
        conv_smev_get(&v->E, v->order[j], &r);
        if (r.kind != CONV_SMEV_BLOCK_ENTER)
            later |= r.mask;
        v->suf[j - j0] = later;
    }
    uint32_t from = UINT32_MAX, alive = warp_lanes(v, w);
    uint64_t last = UINT64_MAX;
    char a[16];
    for (uint64_t j = j0; j < j1; j++) {
        struct conv_smev_rec r;
        conv_smev_get(&v->E, v->order[j], &r);
        uint32_t q = r.pc / 16;
        if (r.kind == CONV_SMEV_BLOCK_ENTER) {
            if (j != j0)
                return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): block enter of warp "
                               "%u after its first record", v->E.path, r.index + 1, r.byte, w);
            continue;
        }
        if (r.kind == CONV_SMEV_BLOCK_EXIT) {
            alive &= ~r.mask;
            if (q >= n || !is_exit(v, q)) {
                last = r.index; /* no EXIT there: the end is searched (below) */
                continue;
            }
            /* Records after an exit at an unguarded EXIT are those of lanes
             * that diverged before it and reach it later (the H200's cuBLAS
             * nvjet_sm90 GEMM: one warp's lanes 0-6, then 8-31, then 7 leave
             * by the same EXIT); they must be lanes that have not left yet. */
            if (j + 1 < j1 && v->L.in[q].flow == CONV_SASS_EXIT && !(v->suf[j + 1 - j0] & alive))
                return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): warp %u has records "
                               "after its block exit at the unguarded EXIT 0x%04x, and only of "
                               "lanes that left there", v->E.path,
                            r.index + 1, r.byte, w, r.pc);
            if (segment(v, w, from, &r, q, v->suf[j - j0]))
                return -1;
            if (j + 1 == j1)
                return 0; /* it left by this EXIT */
            from = q;
            last = r.index;
            continue;
        }
        if (segment(v, w, from, &r, q, v->suf[j - j0]))
            return -1;
        from = q;
        last = r.index;
    }
    /* the end: to any EXIT, with the lanes no block exit record took */
    int oom = 0;
    if (!walk(v, from, UINT32_MAX, n, alive ? alive : warp_lanes(v, w), &oom))
        return 0;
    if (oom || v->nseq >= CONV_EVENTS_MAX_WARP_INSTS)
        return fail(v, "%s: warp %u: more than %d instructions or out of memory", v->E.path, w,
                    CONV_EVENTS_MAX_WARP_INSTS);
    if (last == UINT64_MAX)
        return fail(v, "%s: warp %u (no records) has no path from the start to an EXIT that "
                       "passes no unpredicated instrumented instruction", v->E.path, w);
    struct conv_smev_rec r;
    conv_smev_get(&v->E, last, &r);
    return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): pc: warp %u has no path from %s "
                   "to an EXIT that passes no unpredicated instrumented instruction without a "
                   "record", v->E.path, r.index + 1, r.byte, w, addr_s(from, a));
}

/* ---------- records ---------- */

static int check_records(struct ev *v)
{
    const struct conv_smev *E = &v->E;
    uint32_t n = v->L.n;
    v->first_warp = E->sampled_first * E->warps_per_block;
    v->nwarps = E->sampled_count * E->warps_per_block;
    v->wstart = calloc((size_t)v->nwarps + 1, sizeof *v->wstart);
    v->wcount = calloc((size_t)v->nwarps + 1, sizeof *v->wcount);
    v->order = malloc((size_t)(E->records ? E->records : 1) * sizeof *v->order);
    if (!v->wstart || !v->wcount || !v->order)
        return fail(v, "smsim: out of memory");
    for (uint64_t i = 0; i < E->records; i++) {
        struct conv_smev_rec r;
        conv_smev_get(E, i, &r);
        v->wstart[r.warp - v->first_warp + 1]++;
        if (r.kind == CONV_SMEV_BLOCK_ENTER || r.kind == CONV_SMEV_BLOCK_EXIT)
            continue;
        uint32_t q = r.pc / 16;
        if (q >= n)
            return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): pc 0x%04x is not an "
                           "instruction of '%s' (%u instructions in %s)", E->path, i + 1, r.byte,
                        r.pc, v->L.name, n, v->o->sass_path);
        if (!(v->kinds[q] & KIND_BIT(r.kind)))
            return fail(v, "%s: record %" PRIu64 " (byte %" PRIu64 "): kind %u (%s) at pc 0x%04x, "
                           "which is '%s' (%s:%u), not an instruction of that kind",
                        E->path, i + 1, r.byte, r.kind, conv_smev_kind_name(r.kind), r.pc,
                        v->L.in[q].opcode, v->o->sass_path, v->L.in[q].line);
    }
    for (uint32_t w = 0; w < v->nwarps; w++)
        v->wstart[w + 1] += v->wstart[w];
    uint64_t *fill = calloc((size_t)v->nwarps + 1, sizeof *fill);
    if (!fill)
        return fail(v, "smsim: out of memory");
    for (uint64_t i = 0; i < E->records; i++) {
        struct conv_smev_rec r;
        conv_smev_get(E, i, &r);
        uint32_t sw = r.warp - v->first_warp;
        v->order[v->wstart[sw] + fill[sw]++] = i;
    }
    free(fill);
    return 0;
}

/* ---------- the trace the exporter reads ---------- */

struct wstate {
    size_t pos;            /* next step                                         */
};

static uint32_t global_warp(const struct ev *v, uint32_t block, uint32_t warp)
{
    return v->first_warp + block * v->E.warps_per_block + warp;
}

static int k_begin(struct trace_kernel *k, uint32_t block, uint32_t warp, struct tr_cursor *c)
{
    struct ev *v = k->impl;
    c->run = NULL;
    c->nrun = 0;
    c->seq = 0;
    c->block = block;
    c->warp = warp;
    if (rebuild(v, global_warp(v, block, warp))) {
        k->error = v->err;
        return -1;
    }
    struct wstate *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    c->state = s;
    return 0;
}

static const struct tr_inst *k_next(struct trace_kernel *k, struct tr_cursor *c,
                                    struct tr_dyn *dyn)
{
    struct ev *v = k->impl;
    struct wstate *s = c->state;
    if (!s || s->pos >= v->nseq)
        return NULL;
    const struct step *p = &v->seq[s->pos++];
    c->seq++;
    if (dyn) {
        dyn->active_mask = p->mask;
        dyn->naddr = 0;
        dyn->addr = NULL;
        if (p->rec != UINT64_MAX) {
            struct conv_smev_rec r;
            conv_smev_get(&v->E, p->rec, &r);
            for (uint32_t a = 0; a < r.naddr && a < 32; a++)
                c->addr[a] = conv_smev_addr(&r, a);
            dyn->naddr = r.naddr;
            dyn->addr = r.naddr ? c->addr : NULL;
        }
    }
    return &v->ti[p->i];
}

static void k_end(struct trace_kernel *k, struct tr_cursor *c)
{
    (void)k;
    free(c->state);
    c->state = NULL;
}

static void k_destroy(struct trace_kernel *k)
{
    (void)k; /* owned by conv_events_convert */
}

static uint64_t k_count(struct trace_kernel *k, uint32_t block, uint32_t warp)
{
    struct ev *v = k->impl;
    return v->wcount[block * v->E.warps_per_block + warp];
}

static const struct trace_ops ev_ops = {
    .warp_begin = k_begin, .warp_next = k_next, .warp_end = k_end, .destroy = k_destroy,
    .warp_count = k_count,
};

/* ---------- API ---------- */

static void ev_free(struct ev *v)
{
    if (v->dist) /* (before the listing, whose n it needs) */
        for (uint32_t i = 0; i <= v->L.n; i++)
            free(v->dist[i]);
    free(v->dist);
    conv_sass_listing_free(&v->L);
    conv_smev_close(&v->E);
    free(v->ti);
    free(v->kinds);
    free(v->block);
    free(v->pred_off);
    free(v->pred);
    free(v->scratch);
    free(v->queue);
    free(v->expect);
    free(v->visits);
    free(v->etaken);
    free(v->eflow);
    free(v->wstart);
    free(v->order);
    free(v->wcount);
    free(v->seq);
    free(v->suf);
}

int conv_events_convert(const struct conv_events_opts *o, struct conv_events_stats *st,
                        char err[TRACE_ERR_MAX])
{
    struct ev v;
    memset(&v, 0, sizeof v);
    memset(st, 0, sizeof *st);
    v.o = o;
    v.err = err;
    int rc = -1;
    if (conv_smev_open(o->events_path, &v.E, err))
        return -1;
    if (v.E.overflow) {
        fail(&v, "%s: overflow = 1: the tracer's buffer filled and records were lost (record "
                 "again with a larger buffer or fewer sampled blocks)", v.E.path);
        goto done;
    }
    struct conv_sass_opts so;
    memset(&so, 0, sizeof so);
    so.sass_path = o->sass_path;
    so.kernel_re = v.E.kernel;
    so.kernel_name = v.E.kernel;
    so.counts_path = o->counts_path;
    so.calls_skipped = 1;
    if (conv_sass_listing_read(&so, &v.L, err))
        goto done;
    if (decode_all(&v) || build_graph(&v) || check_records(&v))
        goto done;
    /* pass 1: every warp, for the counts and the messages */
    v.counting = 1;
    v.st.records = v.E.records;
    for (uint32_t w = 0; w < v.nwarps; w++) {
        if (rebuild(&v, v.first_warp + w))
            goto done;
        v.wcount[w] = v.nseq;
        v.st.insts += v.nseq;
    }
    v.counting = 0;
    v.st.warps = v.nwarps;
    v.st.blocks = v.E.sampled_count;
    uint64_t blocks = (uint64_t)v.E.grid[0] * v.E.grid[1] * v.E.grid[2];
    struct trace_kernel k;
    memset(&k, 0, sizeof k);
    k.ops = &ev_ops;
    k.impl = &v;
    snprintf(k.launch.name, sizeof k.launch.name, "%s", v.E.kernel);
    if (v.E.sampled_count == blocks) {
        memcpy(k.launch.grid, v.E.grid, sizeof k.launch.grid);
    } else {
        k.launch.grid[0] = v.E.sampled_count;
        k.launch.grid[1] = k.launch.grid[2] = 1;
    }
    memcpy(v.st.grid, k.launch.grid, sizeof v.st.grid);
    memcpy(k.launch.block, v.E.block, sizeof k.launch.block);
    k.launch.regs = v.E.nregs;
    k.launch.smem_static = v.E.shmem_static;
    k.launch.smem_dynamic = v.E.shmem_dynamic;
    k.launch.barriers = 0;
    for (uint32_t i = 0; i < v.L.n; i++)
        if (v.L.in[i].reach && v.ti[i].kind == TR_K_BARRIER)
            k.launch.barriers = 1;
    k.warp_insts_hint = v.st.insts;
    struct trace_kernel *kp = &k;
    struct trace_file tf = {.nkernels = 1, .kernels = &kp};
    struct conv_accelsim_opts eo = {.binary_version = 90, .seed = 1, .use_pc = 1, .xz = o->xz,
                                    .nvbit_version = "smsim sass2trace --events"};
    if (conv_accelsim_export(&tf, o->out_dir, &eo, err))
        goto done;
    *st = v.st;
    rc = 0;
done:
    ev_free(&v);
    return rc;
}
