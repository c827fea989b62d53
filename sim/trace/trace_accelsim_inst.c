/* trace_accelsim_inst.c — one Accel-Sim instruction line -> its mask, its
 * addresses and an interned static instruction (struct tr_inst).
 *
 * Line (space separated; docs/accelsim.md):
 *   [line] PC MASK NDST {R} OPCODE NSRC {R} WIDTH [MODE ADDRESSES] [IMM]
 * This is the reader's hot path (once to validate a warp's lines when it
 * starts, once more as the engine reads them): hand-written hex and decimal
 * scanning, no allocation, no lock.  The static part (PC, registers,
 * opcode, width) is interned per kernel: every dynamic instance of a PC
 * shares one decoded tr_inst.  The table is read without a lock (statics
 * never move; a grown table replaces the old one whole, published with a
 * release store) and written under the kernel's mutex, rarely: once per
 * static instruction.
 *
 * What the format leaves out is inferred from the opcode (trace_isa): the
 * one destination register it names is widened to the group the opcode
 * writes (LDG.E.128 -> 4 registers, .64 / IMAD.WIDE / DFMA -> 2, HMMA per
 * accumulator type and shape); predicates and uniform registers are absent,
 * so no dependency goes through them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "trace/trace_accelsim_int.h"
#include "trace/trace_isa.h"

enum { OPC_MAX = 64, NDST_MAX = 4, NSRC_MAX = 32, WIDTH_MAX = 1024 };

/* Hex digit values + 1, 0 for anything else. */
static const unsigned char HEX1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int as_hexval(int c)
{
    return c >= 0 && c < 256 ? (int)HEX1[c] - 1 : -1;
}

int as_fmt_err(char *dst, const char *path, uint64_t line, size_t col, const char *fmt, ...)
{
    char msg[TRACE_ERR_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the path is cut first when the message would not fit */
    int room = TRACE_ERR_MAX - (int)strlen(msg) - 48;
    snprintf(dst, TRACE_ERR_MAX, "%.*s:%llu:%zu: %s", room > 16 ? room : 16, path,
             (unsigned long long)line, col, msg);
    arch_msg_escape(dst, TRACE_ERR_MAX);
    return -1;
}

/* ---- tokens ---------------------------------------------------------------- */

static inline int is_ws(char c) { return c == ' ' || c == '\t'; }
static inline int tok_end(char c) { return c == ' ' || c == '\t' || c == '\0'; }

/* Skip the blanks before a token; *irr is set unless they are one space. */
static inline const char *sep(const char *p, int *irr)
{
    if (p[0] == ' ' && !is_ws(p[1]))
        return p + 1;
    *irr = 1;
    while (is_ws(*p))
        p++;
    return p;
}

/* Hex token at *pp: optional 0x (unless exact), 1..16 digits, or exactly
 * `exact` digits.  Advances *pp past it. */
static inline int hex_tok(const char **pp, int exact, uint64_t *v)
{
    const unsigned char *p = (const unsigned char *)*pp;
    if (!exact && p[0] == '0' && (p[1] | 0x20) == 'x')
        p += 2;
    const unsigned char *d0 = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = HEX1[*p]) != 0) {
        x = x << 4 | (uint64_t)(d - 1);
        p++;
    }
    long n = (long)(p - d0);
    if (n == 0 || n > 16 || (exact && n != exact) || !tok_end((char)*p))
        return -1;
    *pp = (const char *)p;
    *v = x;
    return 0;
}

/* Unsigned decimal token, at most 20 digits, <= max (the general case). */
static int dec_tok_slow(const char **pp, uint64_t max, uint64_t *v)
{
    const char *p = *pp, *d0 = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = (unsigned)(*p - '0')) < 10) {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, d, &x))
            return -1;
        p++;
    }
    if (p == d0 || p - d0 > 20 || x > max || !tok_end(*p))
        return -1;
    *pp = p;
    *v = x;
    return 0;
}

/* Value of the n (1..8) leading decimal digits of the little-endian word
 * w (the digit bytes minus '0'), eight at a time: shifting the digits to the
 * top leaves zeros in front, then pairs, quads and octets are combined by
 * multiplications. */
static inline uint64_t swar8(uint64_t t, int n)
{
    t <<= 8 * (8 - n);
    t = (t & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;          /* 10 * 2^8 + 1  */
    t = (t & 0x00FF00FF00FF00FFull) * 6553601 >> 16;      /* 100 * 2^16 + 1 */
    return (t & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32; /* 10^4 * 2^32 + 1 */
}

/* Unsigned decimal token, at most 20 digits, <= max.  The line buffers
 * have 8 bytes of slack after the text (as_lr), so a word can always be
 * loaded; up to 16 digits cannot overflow. */
static inline int dec_tok(const char **pp, uint64_t max, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    int total = 0;
    for (;;) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w - 0x3030303030303030ull;
        /* high bit of a byte: not a digit (only the first one counts) */
        uint64_t nd = ((t + 0x7676767676767676ull) | t) & 0x8080808080808080ull;
        int n = nd ? __builtin_ctzll(nd) >> 3 : 8;
        if (n == 0)
            break;
        static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000,
                                          10000000, 100000000};
        x = x * pow10[n] + swar8(t, n);
        p += n;
        total += n;
        if (n < 8)
            break;
        if (total >= 16)
            return dec_tok_slow(pp, max, v);
    }
    if (total == 0 || x > max || !tok_end(*p))
        return -1;
    *pp = p;
    *v = x;
    return 0;
}

/* Signed decimal token in [lo, hi]. */
static inline int sdec_tok(const char **pp, int64_t lo, int64_t hi, int64_t *v)
{
    const char *p = *pp;
    int neg = 0;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        p++;
    }
    uint64_t m;
    if (dec_tok(&p, (uint64_t)INT64_MAX + (uint64_t)neg, &m))
        return -1;
    int64_t x = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    if (x < lo || x > hi)
        return -1;
    *pp = p;
    *v = x;
    return 0;
}

/* R0..R255 -> 0..255 (R255 is RZ). */
static inline int reg_tok(const char **pp, uint16_t *r)
{
    const char *p = *pp;
    if (p[0] != 'R')
        return -1;
    p++;
    const char *d0 = p;
    uint64_t v;
    if (dec_tok(&p, 255, &v) || p - d0 > 3)
        return -1;
    *pp = p;
    *r = (uint16_t)v;
    return 0;
}

/* Error about the token at tok: "<what>, got '<token>'" (40 chars at most). */
static int tok_err(const struct as_kernel *k, char *err, uint64_t ln, const char *line,
                   const char *tok, const char *what)
{
    size_t n = 0;
    while (!tok_end(tok[n]))
        n++;
    return as_fmt_err(err, k->path, ln, (size_t)(tok - line) + 1, "%s, got '%.*s'", what,
                      (int)(n > 40 ? 40 : n), tok);
}

/* ---- lines ----------------------------------------------------------------- */

int as_parse_line(const struct as_kernel *k, const char *line, uint64_t ln,
                  struct as_line *pl, uint64_t *addr, char *err)
{
    const char *p = line;
    int irr = 0;
    uint64_t v;
#define NEED(what)                                                                   \
    do {                                                                             \
        if (!*p)                                                                     \
            return as_fmt_err(err, k->path, ln, (size_t)(p - line) + 1,              \
                              "instruction line ends before its %s", what);          \
    } while (0)
#define SEP(what)                                                                    \
    do {                                                                             \
        p = sep(p, &irr);                                                            \
        NEED(what);                                                                  \
    } while (0)

    while (is_ws(*p))
        p++;
    if (k->lineinfo) {
        NEED("source line number (-enable lineinfo = 1)");
        if (dec_tok(&p, UINT32_MAX, &v))
            return tok_err(k, err, ln, line, p,
                           "expected the source line number (-enable lineinfo = 1)");
        while (is_ws(*p))
            p++;
    }
    NEED("PC");
    const char *key = p;
    if (hex_tok(&p, 0, &v))
        return tok_err(k, err, ln, line, p, "PC must be hex");
    pl->pc = (uint32_t)v;
    SEP("active mask");
    const char *mask_at = p;
    uint64_t mask;
    if (hex_tok(&p, 8, &mask))
        return tok_err(k, err, ln, line, p, "active mask must be 8 hex digits");
    const char *key2 = p; /* the key skips the mask */
    SEP("destination count");
    if (*p - '0' >= 0 && *p - '0' <= NDST_MAX && tok_end(p[1])) { /* the usual one digit */
        pl->nd = (uint8_t)(*p++ - '0');
    } else {
        if (dec_tok(&p, NDST_MAX, &v))
            return tok_err(k, err, ln, line, p, "destination count must be 0..4");
        pl->nd = (uint8_t)v;
    }
    for (int i = 0; i < pl->nd; i++) {
        SEP("destination register");
        if (reg_tok(&p, &pl->dreg[i]))
            return tok_err(k, err, ln, line, p, "expected a destination register R0..R255");
    }
    SEP("opcode");
    pl->opc = p;
    pl->opccol = (uint32_t)(p - line) + 1;
    if (*p >= 'A' && *p <= 'Z') {
        p++;
        /* a lower-case x only between digits: shapes such as HGMMA.64x64x16 */
        while ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
               (*p == 'x' && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9'))
            p++;
    }
    pl->opclen = (uint32_t)(p - pl->opc);
    if (pl->opclen == 0 || pl->opclen >= OPC_MAX || !tok_end(*p))
        return tok_err(k, err, ln, line, pl->opc,
                       "expected an opcode (upper case, e.g. LDG.E.128)");
    SEP("source count");
    if (dec_tok(&p, NSRC_MAX, &v))
        return tok_err(k, err, ln, line, p, "source count must be 0..32");
    pl->ns = (uint8_t)v;
    for (int i = 0; i < pl->ns; i++) {
        SEP("source register");
        if (reg_tok(&p, &pl->sreg[i]))
            return tok_err(k, err, ln, line, p, "expected a source register R0..R255");
    }
    SEP("memory width");
    if (dec_tok(&p, WIDTH_MAX, &v))
        return tok_err(k, err, ln, line, p, "memory width must be bytes 0..1024");
    pl->width = (uint16_t)v;
    const char *key_end = p;

    /* The key: PC and the static fields after the mask, single-spaced. */
    size_t l1 = (size_t)(mask_at - 1 - key), l2 = (size_t)(key_end - key2);
    if (!irr && l1 + l2 < sizeof pl->keybuf) {
        /* "PC" + " NDST ... WIDTH": two pieces of the line */
        memcpy(pl->keybuf, key, l1);
        memcpy(pl->keybuf + l1, key2, l2);
        pl->key = pl->keybuf;
        pl->keylen = (uint32_t)(l1 + l2);
    } else {
        /* other separators: rebuild with single spaces */
        size_t n = 0;
        const char *q = key;
        int first = 1;
        while (q < key_end && n + 2 < sizeof pl->keybuf) {
            while (is_ws(*q))
                q++;
            const char *t = q;
            while (!tok_end(*q))
                q++;
            if (t == mask_at)
                continue;
            if (!first)
                pl->keybuf[n++] = ' ';
            first = 0;
            size_t tl = (size_t)(q - t);
            if (n + tl >= sizeof pl->keybuf)
                tl = sizeof pl->keybuf - 1 - n;
            memcpy(pl->keybuf + n, t, tl);
            n += tl;
        }
        pl->key = pl->keybuf;
        pl->keylen = (uint32_t)n;
    }
    pl->mask = (uint32_t)mask;
    pl->naddr = 0;

    /* Addresses. */
    uint32_t n = (uint32_t)__builtin_popcount(pl->mask);
    if (pl->width > 0) {
        SEP("address mode (0, 1 or 2)");
        uint64_t mode;
        if (dec_tok(&p, 2, &mode))
            return tok_err(k, err, ln, line, p, "address mode must be 0, 1 or 2");
        if (mode == 0) {
            for (uint32_t i = 0; i < n; i++) {
                SEP("address (one per active lane, address mode 0)");
                if (hex_tok(&p, 0, &addr[i]))
                    return tok_err(k, err, ln, line, p, "address must be hex");
            }
        } else {
            uint64_t base;
            SEP("base address");
            if (hex_tok(&p, 0, &base))
                return tok_err(k, err, ln, line, p, "base address must be hex");
            if (mode == 1) {
                int64_t stride;
                SEP("stride (address mode 1)");
                const char *st = p;
                if (sdec_tok(&p, INT32_MIN, INT32_MAX, &stride))
                    return tok_err(k, err, ln, line, p, "stride must be a decimal integer");
                uint32_t m = pl->mask;
                if (m && ((m >> __builtin_ctz(m)) & ((m >> __builtin_ctz(m)) + 1)))
                    return as_fmt_err(err, k->path, ln, (size_t)(st - line) + 1,
                                      "address mode 1 (base and stride) needs contiguous "
                                      "active lanes, but the mask is %08x", m);
                for (uint32_t i = 0; i < n; i++)
                    addr[i] = base + (uint64_t)(stride * (int64_t)i);
            } else {
                if (n > 0)
                    addr[0] = base;
                for (uint32_t i = 1; i < n; i++) {
                    int64_t d;
                    SEP("address delta (address mode 2: one per further active lane)");
                    if (sdec_tok(&p, INT64_MIN, INT64_MAX, &d))
                        return tok_err(k, err, ln, line, p,
                                       "address delta must be a decimal integer");
                    addr[i] = addr[i - 1] + (uint64_t)d;
                }
            }
        }
        pl->naddr = n;
    }
    while (is_ws(*p))
        p++;
    if (k->version >= 5 && *p) {
        int64_t imm;
        if (sdec_tok(&p, INT64_MIN, INT64_MAX, &imm))
            return tok_err(k, err, ln, line, p, "immediate must be a decimal integer");
        while (is_ws(*p))
            p++;
    }
    if (*p) {
        size_t tl = 0;
        while (!tok_end(p[tl]))
            tl++;
        return as_fmt_err(err, k->path, ln, (size_t)(p - line) + 1,
                          "unexpected '%.*s' at the end of the instruction (tracer version %d)",
                          (int)(tl > 40 ? 40 : tl), p, k->version);
    }
    return 0;
#undef NEED
#undef SEP
}

/* ---- static instructions --------------------------------------------------- */

static uint32_t key_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, s, n);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 29;
    return (uint32_t)h;
}

/* Index of the static with this key in table t, or UINT32_MAX. */
static uint32_t lookup(const struct as_kernel *k, const struct as_ht *t, uint32_t h,
                       const char *key, uint32_t n)
{
    if (!t)
        return UINT32_MAX;
    for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
        uint32_t v = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
        if (v == 0)
            return UINT32_MAX;
        const struct as_static *s = as_st(k, v - 1);
        if (s->hash == h && s->keylen == n && !memcmp(s->key, key, n))
            return v - 1;
    }
}

static void ht_put(struct as_ht *t, uint32_t h, uint32_t idx)
{
    uint32_t i = h & t->mask;
    while (t->slot[i])
        i = (i + 1) & t->mask;
    __atomic_store_n(&t->slot[i], idx + 1, __ATOMIC_RELEASE);
}

/* Room for one more static in the table (under mu).  0 or -1. */
static int ht_room(struct as_kernel *k)
{
    struct as_ht *t = k->ht;
    if (t && (uint64_t)(k->nst + 2) * 2 <= (uint64_t)t->mask + 1)
        return 0;
    uint32_t cap = t ? (t->mask + 1) * 2 : 1024;
    struct as_ht *nt = calloc(1, sizeof *nt + (size_t)cap * sizeof nt->slot[0]);
    if (!nt)
        return -1;
    nt->mask = cap - 1;
    nt->old = t;
    for (uint32_t i = 0; i < k->nst; i++) {
        const struct as_static *s = as_st(k, i);
        if (s->keylen)
            ht_put(nt, s->hash, i);
    }
    __atomic_store_n(&k->ht, nt, __ATOMIC_RELEASE);
    return 0;
}

/* A new static slot (under mu), zeroed; NULL if out of memory. */
static struct as_static *st_new(struct as_kernel *k, uint32_t *idx)
{
    uint32_t j = k->nst + AS_ST_CHUNK0;
    int c = 31 - __builtin_clz(j) - 8;
    if (c >= AS_ST_CHUNKS)
        return NULL;
    if (!k->chunk[c] && !(k->chunk[c] = calloc((size_t)AS_ST_CHUNK0 << c, sizeof(struct as_static))))
        return NULL;
    *idx = k->nst++;
    struct as_static *s = as_st(k, *idx);
    memset(s, 0, sizeof *s);
    s->nop_twin = UINT32_MAX;
    s->first = UINT64_MAX;
    return s;
}

void as_statics_free(struct as_kernel *k)
{
    for (uint32_t i = 0; i < k->nst; i++)
        free(as_st(k, i)->key);
    for (int c = 0; c < AS_ST_CHUNKS; c++) {
        free(k->chunk[c]);
        k->chunk[c] = NULL;
    }
    struct as_ht *t = k->ht;
    while (t) {
        struct as_ht *o = t->old;
        free(t);
        t = o;
    }
    k->ht = NULL;
    k->nst = 0;
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

/* Decode the static part of a parsed line into *s. */
static void make_static(struct as_static *s, const struct as_line *pl, uint64_t ln)
{
    char opc[OPC_MAX];
    memcpy(opc, pl->opc, pl->opclen);
    opc[pl->opclen] = '\0';
    struct tr_isa_info info;
    int known = tr_isa_decode(opc, &s->in, &info);
    struct tr_inst *in = &s->in;
    in->line = (uint32_t)(ln > UINT32_MAX ? UINT32_MAX : ln);
    in->has_pc = 1;
    in->pc = pl->pc;
    if (!known) {
        s->unknown = 1;
        if (pl->width > 0) {
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
    const uint16_t *dreg = pl->dreg;
    if (writes && pl->nd > 0 && dreg[0] < 255)
        for (int i = 0; i < regs && dreg[0] + i < 255; i++)
            add_reg(in->dst, &in->ndst, TR_MAX_DST, (uint16_t)(TR_REG_R + dreg[0] + i));
    for (int i = 1; writes && i < pl->nd; i++)
        add_reg(in->dst, &in->ndst, TR_MAX_DST, (uint16_t)(TR_REG_R + dreg[i]));
    for (int i = 0; i < pl->ns; i++)
        add_reg(in->src, &in->nsrc, TR_MAX_SRC, (uint16_t)(TR_REG_R + pl->sreg[i]));
    int memkind = in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC;
    if (pl->width > 0 && memkind && in->space != TR_SP_NONE) {
        /* The line's width is authoritative (the tracer derives it from the
         * opcode as Accel-Sim does); addresses replace the pattern. */
        in->width = pl->width;
        in->pattern = TR_PAT_ADDRESSES;
        s->has_addr = 1;
    }
    tr_inst_seal(in); /* registers final: the engine reads the masks */
}

uint32_t as_intern(struct as_kernel *k, const struct as_line *pl, uint64_t ln)
{
    uint32_t h = key_hash(pl->key, pl->keylen);
    uint32_t idx = lookup(k, __atomic_load_n(&k->ht, __ATOMIC_ACQUIRE), h, pl->key, pl->keylen);
    if (idx != UINT32_MAX)
        return idx;
    pthread_mutex_lock(&k->mu);
    idx = lookup(k, k->ht, h, pl->key, pl->keylen);
    if (idx == UINT32_MAX && ht_room(k) == 0) {
        char *key = malloc(pl->keylen + 1);
        uint32_t i;
        struct as_static *s = key ? st_new(k, &i) : NULL;
        if (s) {
            memcpy(key, pl->key, pl->keylen);
            key[pl->keylen] = '\0';
            make_static(s, pl, ln);
            s->key = key;
            s->keylen = pl->keylen;
            s->hash = h;
            if (s->in.kind == TR_K_EXIT) {
                /* An EXIT that is not its warp's last line issues as a NOP:
                 * its twin is made now, so the lookup path never writes. */
                uint32_t ti;
                struct as_static *tw = st_new(k, &ti);
                s = as_st(k, i); /* (chunks never move; for clarity) */
                if (tw) {
                    *tw = *s;
                    tw->in.kind = TR_K_NOP;
                    tw->key = NULL;
                    tw->keylen = 0;
                    s->nop_twin = ti;
                }
            }
            if (s->in.kind != TR_K_EXIT || s->nop_twin != UINT32_MAX) {
                ht_put(k->ht, h, i);
                idx = i;
            }
        } else {
            free(key);
        }
    }
    pthread_mutex_unlock(&k->mu);
    return idx;
}

/* ---- unknown opcodes --------------------------------------------------------- */

static size_t base_len(const struct as_static *s)
{
    return tr_isa_base_len(s->in.opcode);
}

uint32_t as_unknown_names(const struct as_kernel *k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < k->nst; i++) {
        const struct as_static *s = as_st(k, i);
        if (!s->unknown || !s->keylen)
            continue;
        int dup = 0;
        for (uint32_t j = 0; j < i && !dup; j++) {
            const struct as_static *o = as_st(k, j);
            dup = o->unknown && o->keylen && base_len(o) == base_len(s) &&
                  !strncmp(o->in.opcode, s->in.opcode, base_len(s));
        }
        n += !dup;
    }
    return n;
}

struct uname {
    const struct as_static *s; /* the instance read first in the file */
    uint64_t first;            /* its position                        */
};

static int uname_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct uname *)a)->first, y = ((const struct uname *)b)->first;
    return x < y ? -1 : x > y;
}

void as_warn_flush(struct as_kernel *k)
{
    struct as_shared *sh = k->sh;
    struct uname *u = NULL;
    size_t nu = 0, cap = 0;
    for (uint32_t i = 0; i < k->nst; i++) {
        const struct as_static *s = as_st(k, i);
        uint64_t f = __atomic_load_n(&s->first, __ATOMIC_RELAXED);
        if (!s->unknown || !s->keylen || f == UINT64_MAX)
            continue;
        size_t bl = base_len(s), j;
        for (j = 0; j < nu; j++)
            if (base_len(u[j].s) == bl && !strncmp(u[j].s->in.opcode, s->in.opcode, bl))
                break;
        if (j < nu) {
            if (f < u[j].first) {
                u[j].s = s;
                u[j].first = f;
            }
            continue;
        }
        if (nu == cap) {
            size_t c = cap ? cap * 2 : 8;
            struct uname *p = realloc(u, c * sizeof *p);
            if (!p)
                break;
            u = p;
            cap = c;
        }
        u[nu].s = s;
        u[nu].first = f;
        nu++;
    }
    if (nu > 1)
        qsort(u, nu, sizeof *u, uname_cmp);
    pthread_mutex_lock(&sh->mu);
    for (size_t j = 0; j < nu; j++) {
        const struct as_static *s = u[j].s;
        size_t bl = base_len(s);
        int done = 0;
        for (int i = 0; i < sh->nwarned && !done; i++)
            done = strlen(sh->warned[i]) == bl && !strncmp(sh->warned[i], s->in.opcode, bl);
        if (done)
            continue;
        if (sh->nwarned == sh->capwarned) {
            int c = sh->capwarned ? sh->capwarned * 2 : 8;
            char **p = realloc(sh->warned, (size_t)c * sizeof *p);
            if (!p)
                break;
            sh->warned = p;
            sh->capwarned = c;
        }
        char *name = malloc(bl + 1);
        if (!name)
            break;
        memcpy(name, s->in.opcode, bl);
        name[bl] = '\0';
        sh->warned[sh->nwarned++] = name;
        fprintf(sh->warn,
                "%s:%llu:%llu: warning: unknown opcode '%s' (not in the SASS table): modelled as %s\n",
                k->path, (unsigned long long)(u[j].first >> 20),
                (unsigned long long)(u[j].first & 0xfffff), name,
                s->in.kind == TR_K_LOAD ? "a global load on the LSU pipe (it carries addresses)"
                                        : "an ALU-pipe instruction with fixed latency");
    }
    pthread_mutex_unlock(&sh->mu);
    free(u);
}
