/* trace_accelsim_inst.c — one Accel-Sim instruction line -> a 12-byte record
 * pointing at an interned static instruction (struct tr_inst).
 *
 * Line (space separated; docs/accelsim.md):
 *   [line] PC MASK NDST {R} OPCODE NSRC {R} WIDTH [MODE ADDRESSES] [IMM]
 * The static part (PC, registers, opcode, width) is interned per kernel:
 * every dynamic instance of a PC shares one decoded tr_inst, so a block
 * buffer holds only masks and addresses.
 *
 * What the format leaves out is inferred from the opcode (trace_isa): the
 * one destination register it names is widened to the group the opcode
 * writes (LDG.E.128 -> 4 registers, .64 / IMAD.WIDE / DFMA -> 2, HMMA per
 * accumulator type and shape); predicates and uniform registers are absent,
 * so no dependency goes through them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "trace/trace_accelsim_int.h"
#include "trace/trace_isa.h"

enum { KEY_MAX = 1024, OPC_MAX = 64, NDST_MAX = 4, NSRC_MAX = 32, WIDTH_MAX = 1024 };

struct tok {
    const char *s;  /* first character             */
    size_t n;       /* length                      */
    size_t col;     /* 1-based column              */
};

static int next_tok(const char *line, const char **pp, struct tok *t)
{
    const char *p = *pp;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p) {
        *pp = p;
        return -1;
    }
    t->s = p;
    t->col = (size_t)(p - line) + 1;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    t->n = (size_t)(p - t->s);
    *pp = p;
    return 0;
}

static int tok_dec(const struct tok *t, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    if (t->n == 0 || t->n > 20)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        char c = t->s[i];
        if (c < '0' || c > '9')
            return -1;
        if (x > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(c - '0');
    }
    if (x > max)
        return -1;
    *v = x;
    return 0;
}

static int tok_sdec(const struct tok *t, int64_t lo, int64_t hi, int64_t *v)
{
    struct tok u = *t;
    int neg = 0;
    if (u.n > 0 && (u.s[0] == '-' || u.s[0] == '+')) {
        neg = u.s[0] == '-';
        u.s++;
        u.n--;
    }
    uint64_t m;
    if (tok_dec(&u, (uint64_t)INT64_MAX + (uint64_t)neg, &m))
        return -1;
    int64_t x = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    if (x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

/* Hex with an optional 0x, at most 16 digits; exact_digits > 0 demands that many. */
static int tok_hex(const struct tok *t, int exact_digits, uint64_t *v)
{
    const char *s = t->s;
    size_t n = t->n;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !exact_digits) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16 || (exact_digits && n != (size_t)exact_digits))
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int d = as_hexval((unsigned char)s[i]);
        if (d < 0)
            return -1;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return 0;
}

/* R0..R255 -> 0..255 (R255 is RZ). */
static int tok_reg(const struct tok *t, uint16_t *r)
{
    uint64_t v;
    struct tok u = { t->s + 1, t->n - 1, t->col + 1 };
    if (t->n < 2 || t->s[0] != 'R' || u.n > 3 || tok_dec(&u, 255, &v))
        return -1;
    *r = (uint16_t)v;
    return 0;
}

#define TOKS "%.*s"
#define TOKA(t) (int)((t).n > 40 ? 40 : (t).n), (t).s

/* ---- static instructions ------------------------------------------------- */

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static int ht_grow(struct as_kernel *k)
{
    uint32_t cap = k->htcap ? k->htcap * 2 : 1024;
    uint32_t *ht = malloc((size_t)cap * sizeof *ht);
    if (!ht)
        return -1;
    memset(ht, 0xff, (size_t)cap * sizeof *ht);
    for (uint32_t i = 0; i < k->nst; i++) {
        struct as_static *s = &k->st[i];
        if (s->keylen == 0)
            continue; /* NOP twins are not hashed */
        uint32_t h = fnv1a(k->keys + s->key, s->keylen) & (cap - 1);
        s->next = ht[h];
        ht[h] = i;
    }
    free(k->ht);
    k->ht = ht;
    k->htcap = cap;
    return 0;
}

void as_statics_free(struct as_kernel *k)
{
    free(k->st);
    free(k->ht);
    free(k->keys);
    k->st = NULL;
    k->ht = NULL;
    k->keys = NULL;
    k->nst = k->capst = k->htcap = k->nkeys = k->capkeys = 0;
}

/* Append s to the statics; its index or UINT32_MAX. */
static uint32_t st_push(struct as_kernel *k, const struct as_static *s)
{
    if (k->nst == k->capst) {
        uint32_t c = k->capst ? k->capst * 2 : 256;
        struct as_static *p = realloc(k->st, (size_t)c * sizeof *p);
        if (!p)
            return UINT32_MAX;
        k->st = p;
        k->capst = c;
    }
    memcpy(&k->st[k->nst], s, sizeof *s);
    return k->nst++;
}

static int add_reg(uint16_t *v, uint8_t *n, int max, uint16_t r)
{
    if (r >= 255)
        return 0; /* RZ: no dependency */
    for (int i = 0; i < *n; i++)
        if (v[i] == r)
            return 0;
    if (*n >= max)
        return 0; /* more than the model tracks: dropped (documented) */
    v[(*n)++] = r;
    return 0;
}

static int has_mod(const char *opc, const char *m)
{
    size_t n = strlen(m);
    for (const char *p = strchr(opc, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, m, n) && (p[1 + n] == '.' || p[1 + n] == '\0'))
            return 1;
    return 0;
}

static int base_is(const char *opc, const char *base)
{
    size_t n = strlen(base);
    return !strncmp(opc, base, n) && (opc[n] == '.' || opc[n] == '\0');
}

/* Warn once per list about an unknown base name. */
static void warn_unknown(struct as_kernel *k, const char *opc, uint64_t ln, size_t col, int mem)
{
    struct as_shared *sh = k->sh;
    size_t bl = tr_isa_base_len(opc);
    for (int i = 0; i < sh->nwarned; i++)
        if (strlen(sh->warned[i]) == bl && !strncmp(sh->warned[i], opc, bl))
            return;
    if (sh->nwarned == sh->capwarned) {
        int c = sh->capwarned ? sh->capwarned * 2 : 8;
        char **p = realloc(sh->warned, (size_t)c * sizeof *p);
        if (!p)
            return;
        sh->warned = p;
        sh->capwarned = c;
    }
    char *name = malloc(bl + 1);
    if (!name)
        return;
    memcpy(name, opc, bl);
    name[bl] = '\0';
    sh->warned[sh->nwarned++] = name;
    fprintf(sh->warn,
            "%s:%llu:%zu: warning: unknown opcode '%s' (not in the SASS table): modelled as %s\n",
            k->path, (unsigned long long)ln, col, name,
            mem ? "a global load on the LSU pipe (it carries addresses)"
                : "an ALU-pipe instruction with fixed latency");
}

/* Decode the static part of a line into a new static instruction. */
static uint32_t make_static(struct as_kernel *k, const char *opc, size_t opc_col,
                            const uint16_t *dreg, int nd, const uint16_t *sreg, int ns,
                            uint64_t width, uint64_t ln)
{
    struct as_static s;
    struct tr_isa_info info;
    memset(&s, 0, sizeof s);
    s.next = s.nop_twin = UINT32_MAX;
    int known = tr_isa_decode(opc, &s.in, &info);
    struct tr_inst *in = &s.in;
    in->line = (uint32_t)(ln > UINT32_MAX ? UINT32_MAX : ln);
    if (!known) {
        s.unknown = 1;
        int seen = 0;
        size_t bl = tr_isa_base_len(opc);
        for (uint32_t i = 0; i < k->nst && !seen; i++)
            seen = k->st[i].unknown && tr_isa_base_len(k->st[i].in.opcode) == bl &&
                   !strncmp(k->st[i].in.opcode, opc, bl);
        if (!seen)
            k->unknown_opcodes++;
        warn_unknown(k, opc, ln, opc_col, width > 0);
        if (width > 0) {
            /* A memory instruction the table does not know (a new load
             * flavour, most likely): global load, long scoreboard. */
            in->kind = TR_K_LOAD;
            in->pipe = PIPE_LSU;
            in->space = TR_SP_GLOBAL;
            in->dep = TR_DEP_LONG;
            info.dst_regs = 1;
        }
    }
    int writes = in->kind == TR_K_ALU || in->kind == TR_K_LOAD || in->kind == TR_K_ATOMIC;
    int regs = info.dst_regs > 0 ? info.dst_regs : 1;
    /* Shapes the table's type rule does not cover: Volta HMMA.884 steps write
     * a register pair (F32 accumulator) or one register (F16); Turing
     * IMMA.8816 / IMMA.8832 write two 32-bit accumulators. */
    if (base_is(opc, "HMMA") && has_mod(opc, "884"))
        regs = has_mod(opc, "F16") ? 1 : 2;
    if (base_is(opc, "IMMA") && (has_mod(opc, "8816") || has_mod(opc, "8832")))
        regs = 2;
    if (writes && nd > 0 && dreg[0] < 255)
        for (int i = 0; i < regs && dreg[0] + i < 255; i++)
            add_reg(in->dst, &in->ndst, TR_MAX_DST, (uint16_t)(TR_REG_R + dreg[0] + i));
    for (int i = 1; writes && i < nd; i++)
        add_reg(in->dst, &in->ndst, TR_MAX_DST, (uint16_t)(TR_REG_R + dreg[i]));
    for (int i = 0; i < ns; i++)
        add_reg(in->src, &in->nsrc, TR_MAX_SRC, (uint16_t)(TR_REG_R + sreg[i]));
    int memkind = in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC;
    if (width > 0 && memkind && in->space != TR_SP_NONE) {
        /* The line's width is authoritative (the tracer derives it from the
         * opcode as Accel-Sim does); addresses replace the pattern. */
        in->width = (uint16_t)width;
        in->pattern = TR_PAT_ADDRESSES;
        s.has_addr = 1;
    }
    return st_push(k, &s);
}

static uint32_t nop_twin(struct as_kernel *k, uint32_t sidx)
{
    if (k->st[sidx].nop_twin != UINT32_MAX)
        return k->st[sidx].nop_twin;
    struct as_static s = k->st[sidx];
    s.in.kind = TR_K_NOP;
    s.key = s.keylen = 0;
    s.next = s.nop_twin = UINT32_MAX;
    uint32_t t = st_push(k, &s);
    if (t != UINT32_MAX)
        k->st[sidx].nop_twin = t;
    return t;
}

/* ---- lines ----------------------------------------------------------------- */

void as_parse_init(struct as_parse *ps, struct as_kernel *k, struct as_block *b)
{
    ps->k = k;
    ps->b = b;
    ps->warp = 0;
    ps->last_exit = UINT64_MAX;
}

void as_parse_warp_begin(struct as_parse *ps, uint32_t warp)
{
    ps->warp = warp;
    ps->last_exit = UINT64_MAX;
}

void as_parse_warp_end(struct as_parse *ps)
{
    ps->last_exit = UINT64_MAX;
}

static int key_add(char *key, size_t *kn, const struct tok *t)
{
    if (*kn + t->n + 1 > KEY_MAX)
        return -1;
    memcpy(key + *kn, t->s, t->n);
    *kn += t->n;
    key[(*kn)++] = ' ';
    return 0;
}

int as_parse_inst(struct as_parse *ps, const char *line, uint64_t ln)
{
    struct as_kernel *k = ps->k;
    struct as_block *b = ps->b;
    const char *p = line;
    struct tok t;
    uint64_t v;
    char key[KEY_MAX];
    size_t kn = 0;
#define NEED(what)                                                                   \
    do {                                                                             \
        if (next_tok(line, &p, &t))                                                  \
            return as_err(k, ln, (size_t)(p - line) + 1,                             \
                          "instruction line ends before its %s", what);              \
    } while (0)
#define KEY()                                                                        \
    do {                                                                             \
        if (key_add(key, &kn, &t))                                                   \
            return as_err(k, ln, t.col, "instruction line too long");                \
    } while (0)

    if (k->lineinfo) {
        NEED("source line number (-enable lineinfo = 1)");
        if (tok_dec(&t, UINT32_MAX, &v))
            return as_err(k, ln, t.col,
                          "expected the source line number (-enable lineinfo = 1), got '" TOKS "'",
                          TOKA(t));
    }
    NEED("PC");
    if (tok_hex(&t, 0, &v))
        return as_err(k, ln, t.col, "PC must be hex, got '" TOKS "'", TOKA(t));
    KEY();
    NEED("active mask");
    uint64_t mask;
    if (tok_hex(&t, 8, &mask))
        return as_err(k, ln, t.col, "active mask must be 8 hex digits, got '" TOKS "'", TOKA(t));
    NEED("destination count");
    uint64_t nd;
    if (tok_dec(&t, NDST_MAX, &nd))
        return as_err(k, ln, t.col, "destination count must be 0..%d, got '" TOKS "'", NDST_MAX,
                      TOKA(t));
    KEY();
    uint16_t dreg[NDST_MAX], sreg[NSRC_MAX];
    for (uint64_t i = 0; i < nd; i++) {
        NEED("destination register");
        if (tok_reg(&t, &dreg[i]))
            return as_err(k, ln, t.col, "expected a destination register R0..R255, got '" TOKS "'",
                          TOKA(t));
        KEY();
    }
    NEED("opcode");
    struct tok opt = t;
    int okop = t.n < OPC_MAX && t.s[0] >= 'A' && t.s[0] <= 'Z';
    for (size_t i = 0; okop && i < t.n; i++) {
        char c = t.s[i];
        okop = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    }
    if (!okop)
        return as_err(k, ln, t.col, "expected an opcode (upper case, e.g. LDG.E.128), got '" TOKS "'",
                      TOKA(t));
    KEY();
    NEED("source count");
    uint64_t ns;
    if (tok_dec(&t, NSRC_MAX, &ns))
        return as_err(k, ln, t.col, "source count must be 0..%d, got '" TOKS "'", NSRC_MAX, TOKA(t));
    KEY();
    for (uint64_t i = 0; i < ns; i++) {
        NEED("source register");
        if (tok_reg(&t, &sreg[i]))
            return as_err(k, ln, t.col, "expected a source register R0..R255, got '" TOKS "'",
                          TOKA(t));
        KEY();
    }
    NEED("memory width");
    uint64_t width;
    if (tok_dec(&t, WIDTH_MAX, &width))
        return as_err(k, ln, t.col, "memory width must be bytes 0..%d, got '" TOKS "'", WIDTH_MAX,
                      TOKA(t));
    KEY();

    /* Intern the static instruction. */
    uint32_t h = fnv1a(key, kn);
    uint32_t sidx = UINT32_MAX;
    if (k->htcap)
        for (uint32_t i = k->ht[h & (k->htcap - 1)]; i != UINT32_MAX; i = k->st[i].next)
            if (k->st[i].keylen == kn && !memcmp(k->keys + k->st[i].key, key, kn)) {
                sidx = i;
                break;
            }
    if (sidx == UINT32_MAX) {
        char opc[OPC_MAX];
        memcpy(opc, opt.s, opt.n);
        opc[opt.n] = '\0';
        if (k->nkeys + kn > k->capkeys) {
            uint32_t c = k->capkeys ? k->capkeys : 4096;
            while (c < k->nkeys + kn)
                c *= 2;
            char *q = realloc(k->keys, c);
            if (!q)
                return as_err(k, ln, 1, "out of memory");
            k->keys = q;
            k->capkeys = c;
        }
        if ((uint64_t)(k->nst + 1) * 2 > k->htcap && ht_grow(k))
            return as_err(k, ln, 1, "out of memory");
        sidx = make_static(k, opc, opt.col, dreg, (int)nd, sreg, (int)ns, width, ln);
        if (sidx == UINT32_MAX)
            return as_err(k, ln, 1, "out of memory");
        struct as_static *s = &k->st[sidx];
        memcpy(k->keys + k->nkeys, key, kn);
        s->key = k->nkeys;
        s->keylen = (uint32_t)kn;
        k->nkeys += (uint32_t)kn;
        uint32_t hb = h & (k->htcap - 1);
        s->next = k->ht[hb];
        k->ht[hb] = sidx;
    }
    const struct as_static *s = &k->st[sidx];

    /* Addresses. */
    uint32_t aoff = AS_NO_ADDR;
    uint32_t n = (uint32_t)__builtin_popcount((uint32_t)mask);
    if (width > 0) {
        NEED("address mode (0, 1 or 2)");
        uint64_t mode;
        if (tok_dec(&t, 2, &mode))
            return as_err(k, ln, t.col, "address mode must be 0, 1 or 2, got '" TOKS "'", TOKA(t));
        if (as_block_reserve(k, b, b->nd, b->na + 3 + 32))
            return as_err(k, ln, 1, "out of memory");
        uint64_t *a = b->a + b->na;
        uint64_t base;
        a[0] = 0;
        if (mode == 0) {
            for (uint32_t i = 0; i < n; i++) {
                NEED("address (one per active lane, address mode 0)");
                if (tok_hex(&t, 0, &a[1 + i]))
                    return as_err(k, ln, t.col, "address must be hex, got '" TOKS "'", TOKA(t));
            }
        } else {
            NEED("base address");
            if (tok_hex(&t, 0, &base))
                return as_err(k, ln, t.col, "base address must be hex, got '" TOKS "'", TOKA(t));
            if (mode == 1) {
                int64_t stride;
                NEED("stride (address mode 1)");
                if (tok_sdec(&t, INT32_MIN, INT32_MAX, &stride))
                    return as_err(k, ln, t.col, "stride must be a decimal integer, got '" TOKS "'",
                                  TOKA(t));
                uint32_t m = (uint32_t)mask;
                if (m && ((m >> __builtin_ctz(m)) & ((m >> __builtin_ctz(m)) + 1)))
                    return as_err(k, ln, t.col,
                                  "address mode 1 (base and stride) needs contiguous active lanes, "
                                  "but the mask is %08x", m);
                a[0] = 1;
                a[1] = base;
                a[2] = (uint64_t)stride;
            } else {
                if (n > 0)
                    a[1] = base;
                for (uint32_t i = 1; i < n; i++) {
                    int64_t d;
                    NEED("address delta (address mode 2: one per further active lane)");
                    if (tok_sdec(&t, INT64_MIN, INT64_MAX, &d))
                        return as_err(k, ln, t.col, "address delta must be a decimal integer, "
                                      "got '" TOKS "'", TOKA(t));
                    a[1 + i] = a[i] + (uint64_t)d;
                }
            }
        }
        if (s->has_addr && n > 0) {
            aoff = (uint32_t)b->na;
            if (b->na > UINT32_MAX - 40)
                return as_err(k, ln, 1, "thread block too large (more than 2^32 address words)");
            b->na += a[0] == 1 ? 3 : 1 + n;
        }
    }
    if (k->version >= 5 && next_tok(line, &p, &t) == 0) {
        int64_t imm;
        if (tok_sdec(&t, INT64_MIN, INT64_MAX, &imm))
            return as_err(k, ln, t.col, "immediate must be a decimal integer, got '" TOKS "'", TOKA(t));
    }
    if (next_tok(line, &p, &t) == 0)
        return as_err(k, ln, t.col, "unexpected '" TOKS "' at the end of the instruction "
                      "(tracer version %d)", TOKA(t), k->version);

    if (as_block_reserve(k, b, b->nd + 1, b->na))
        return as_err(k, ln, 1, "out of memory");
    if (ps->last_exit != UINT64_MAX) {
        /* An EXIT that is not the warp's last instruction did not end the
         * warp (some lanes, or none, left): it issues like a NOP. */
        uint32_t tw = nop_twin(k, b->d[ps->last_exit].sidx);
        if (tw == UINT32_MAX)
            return as_err(k, ln, 1, "out of memory");
        b->d[ps->last_exit].sidx = tw;
        ps->last_exit = UINT64_MAX;
        s = &k->st[sidx];
    }
    if (s->in.kind == TR_K_EXIT)
        ps->last_exit = b->nd;
    if (s->unknown)
        k->base.unknown_insts++;
    struct as_rec *r = &b->d[b->nd++];
    r->sidx = sidx;
    r->mask = (uint32_t)mask;
    r->aoff = aoff;
    return 0;
#undef NEED
#undef KEY
}
