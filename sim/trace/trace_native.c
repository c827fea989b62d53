/* trace_native.c — streaming parser of the native trace format.
 *
 * The file is read one line at a time (getline); nothing holds more than the
 * current line and the kernel being compiled.  Each kernel compiles to one
 * flat program (trace_prog.h) whose size is proportional to its static
 * instructions, whatever its trip counts.  Statements are line-oriented: a
 * header or loop/when opener ends with '{', '}' closes (optionally followed
 * by "else {" or "else when EXPR {"), everything else is one instruction.
 * docs/trace-format.md is the reference for the syntax and every message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "arch/arch.h"
#include "trace/trace_expr.h"
#include "trace/trace_isa.h"
#include "trace/trace_native.h"
#include "trace/trace_prog.h"

enum fr_kind { FR_KERNEL, FR_LOOP, FR_WHEN, FR_ELSE };

/* One open '{' ... '}' block. */
struct frame {
    int kind;           /* enum fr_kind                                         */
    unsigned line, col; /* where it was opened (1-based)                        */
    uint32_t op;        /* LOOP or current COND entry                           */
    uint32_t chain;     /* JUMPs to patch to the end (linked via target)        */
    int nstmts;         /* statements in the current branch/body                */
    int after_exit;     /* the current branch ended with a terminal EXIT        */
    int emits;          /* the current branch always produces an instruction    */
    int all_emit;       /* every earlier branch of a when chain did             */
    int trips_pos;      /* loop: constant trip count >= 1                       */
    int last_exit;      /* kernel: last top-level statement is EXIT             */
    uint32_t last_op;   /* kernel: its program entry                            */
};

/* Shared by a file and the files it includes. */
struct gctx {
    struct trace_file *tf;   /* output                                        */
    int kcap;                /* capacity of tf->kernels                        */
    char *err;               /* TRACE_ERR_MAX buffer                           */
    dev_t dev[TR_NATIVE_MAX_INCLUDE + 1]; /* files being read (cycle check)     */
    ino_t ino[TR_NATIVE_MAX_INCLUDE + 1]; /* ...                               */
    int depth;               /* entries in dev/ino                             */
};

/* One file being read. */
struct fctx {
    struct gctx *g;          /* shared context                                 */
    const char *path;        /* this file's name as given/resolved             */
    unsigned line;           /* current line (1-based)                         */
    /* kernel under construction */
    struct trace_kernel *k;  /* NULL outside a kernel                          */
    struct nt_prog *p;       /* its program                                    */
    uint32_t opcap, instcap, codecap, exprcap; /* array capacities             */
    struct tr_expr_launch lc;/* launch constants for expressions               */
    int has_bar;             /* a BAR instruction was seen                     */
    int bar_ids;             /* one more than the highest barrier id used      */
    int barriers_given;      /* header gave barriers=                          */
    unsigned bar_line, bar_col; /* position of barriers= in the header         */
    struct frame fr[TR_NATIVE_MAX_NEST]; /* open blocks                         */
    int nfr;                 /* entries in fr                                  */
    int loops;               /* open loops among them                          */
    uint32_t memcap;         /* capacity of p->mem                             */
    uint32_t nregions;       /* footprint regions handed out in this kernel    */
    char **arrays;           /* array= names, region k = arrays[k] (NULL: an
                                instruction's own region)                      */
    uint32_t arraycap;       /* capacity of arrays                             */
    uint32_t *itab;          /* interning table: index + 1 of a static
                                instruction in p->insts, 0 = empty slot       */
    uint32_t itabcap;        /* its slots (a power of two, or 0)               */
    int line_has_pc;         /* the current line starts with an address comment */
    uint32_t line_pc;        /* ... and its value (tr_inst.pc)                   */
};

static int perr(struct fctx *f, unsigned line, size_t col, const char *fmt, ...)
{
    char *e = f->g->err;
    int n = snprintf(e, TRACE_ERR_MAX, "%s:%u:%zu: ", f->path, line, col);
    if (n >= 0 && n < TRACE_ERR_MAX) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e + n, (size_t)(TRACE_ERR_MAX - n), fmt, ap);
        va_end(ap);
    }
    arch_msg_escape(e, TRACE_ERR_MAX);
    return -1;
}

/* Error at byte offset `at` of the current line. */
#define ERR(f, at, ...) perr((f), (f)->line, (size_t)(at) + 1, __VA_ARGS__)

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elsz)
{
    if (need <= *cap)
        return 0;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > UINT32_MAX / 2)
            return -1;
        nc *= 2;
    }
    void *np = realloc(*arr, (size_t)nc * elsz);
    if (!np)
        return -1;
    *arr = np;
    *cap = nc;
    return 0;
}

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int is_ws(char c) { return c == ' ' || c == '\t'; }

static size_t skip_ws(const char *s, size_t p)
{
    while (is_ws(s[p]))
        p++;
    return p;
}

/* Length of the whitespace-delimited token at s (for messages), capped. */
static int tok_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !is_ws(s[n]))
        n++;
    return (int)(n > 60 ? 60 : n);
}

/* Length of the word at s. */
static size_t word_len(const char *s)
{
    size_t n = 0;
    while (is_word(s[n]))
        n++;
    return n;
}

static int word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !strncmp(s, w, n);
}

/* ---------------------------------------------------------- registers */

enum { REG_BAD = -1, REG_NOTREG = -2, REG_ZERO = -3 };

/* Classify a register word.  Returns the flat id, REG_ZERO for RZ/PT/URZ/UPT,
 * REG_BAD for something register-like but invalid, REG_NOTREG otherwise.
 * *cls gets 'R', 'P', 'U' (UR) or 'Q' (UP). */
static int reg_of(const char *w, size_t n, char *cls)
{
    size_t pre;
    int base, max;
    if (n >= 2 && w[0] == 'U' && w[1] == 'R')
        pre = 2, base = TR_REG_UR, max = 62, *cls = 'U';
    else if (n >= 2 && w[0] == 'U' && w[1] == 'P')
        pre = 2, base = TR_REG_UP, max = 6, *cls = 'Q';
    else if (n >= 1 && w[0] == 'R')
        pre = 1, base = TR_REG_R, max = 254, *cls = 'R';
    else if (n >= 1 && w[0] == 'P')
        pre = 1, base = TR_REG_P, max = 6, *cls = 'P';
    else
        return REG_NOTREG;
    if (n == pre + 1 && ((*cls == 'R' || *cls == 'U') ? w[pre] == 'Z' : w[pre] == 'T'))
        return REG_ZERO;
    if (n == pre || w[pre] < '0' || w[pre] > '9')
        return REG_NOTREG;
    int v = 0;
    for (size_t i = pre; i < n; i++) {
        if (w[i] < '0' || w[i] > '9' || v > 1000)
            return REG_BAD;
        v = v * 10 + (w[i] - '0');
    }
    if (n - pre > 1 && w[pre] == '0')
        return REG_BAD; /* R01 */
    if (v > max)
        return REG_BAD;
    return base + v;
}

static const char reg_help[] = "R0..R254, RZ, P0..P6, PT, UR0..UR62, URZ, UP0..UP6, UPT";

/* Words allowed in operands besides registers and numbers. */
static int other_word_ok(const char *w, size_t n)
{
    /* gsb0: the warpgroup's wgmma scoreboard, an operand of HGMMA and
     * WARPGROUP.DEPBAR.LE (cuBLAS's nvjet_sm90 GEMM on the H200,
     * validate/data/h200/tracer-2026-12-02/torch_matmul_bf16/module-0.sass);
     * it names no register */
    static const char *const ok[] = {"c", "cx", "desc", "gdesc", "tmem", "PR", "SRZ",
                                     "INF", "NAN", "QNAN", "CUBE", "ARRAY", "gsb0"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (word_is(w, n, ok[i]))
            return 1;
    if (n > 3 && !strncmp(w, "SR_", 3))
        return 1; /* special registers: SR_TID.X, SR_CTAID.X, SR_LANEID, ... */
    if (n > 6 && !strncmp(w, "ARRAY_", 6))
        return 1; /* texture shapes */
    if (n >= 2 && (w[0] == 'B' || (w[0] == 'S' && w[1] == 'B'))) {
        size_t i = w[0] == 'B' ? 1 : 2; /* B0..B15 convergence barriers, SB0..SB5 */
        if (i >= n)
            return 0;
        for (; i < n; i++)
            if (w[i] < '0' || w[i] > '9')
                return 0;
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------- instructions */

static int add_reg(uint16_t *arr, uint8_t *n, int max, int reg)
{
    for (int i = 0; i < *n; i++)
        if (arr[i] == reg)
            return 0;
    if (*n >= max)
        return -1;
    arr[(*n)++] = (uint16_t)reg;
    return 0;
}

static int add_src(struct fctx *f, struct tr_inst *in, int reg, size_t at)
{
    if (add_reg(in->src, &in->nsrc, TR_MAX_SRC, reg))
        return ERR(f, at, "too many source registers (at most %d)", TR_MAX_SRC);
    return 0;
}

/* Sources of one operand token tok[0..n) starting at line offset at. */
static int operand_sources(struct fctx *f, struct tr_inst *in, const char *tok, size_t n,
                           size_t at)
{
    if (tok[0] == '`')
        return 0; /* branch label `(.L_x_1) */
    size_t i = 0;
    while (i < n) {
        char c = tok[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            size_t j = i;
            while (j < n && is_word(tok[j]))
                j++;
            if (i > 0 && tok[i - 1] == '.') {
                i = j; /* operand suffix: .reuse .H1 .X4 .U32 ... */
                continue;
            }
            char cls;
            int r = reg_of(tok + i, j - i, &cls);
            if (r >= 0) {
                if (add_src(f, in, r, at + i))
                    return -1;
            } else if (r == REG_BAD) {
                return ERR(f, at + i, "bad register '%.*s' (%s)", (int)(j - i), tok + i,
                           reg_help);
            } else if (r == REG_NOTREG && !other_word_ok(tok + i, j - i)) {
                return ERR(f, at + i, "bad operand '%.*s': unknown name '%.*s'", (int)n, tok,
                           (int)(j - i), tok + i);
            }
            i = j;
        } else if (c >= '0' && c <= '9') {
            while (i < n && (is_word(tok[i]) || tok[i] == '.'))
                i++; /* number: 0x40, 1.5e3, 2D */
        } else {
            i++;
        }
    }
    return 0;
}

enum {
    AT_PATTERN = 1, AT_STRIDE = 2, AT_FOOTPRINT = 4, AT_CONFLICT = 8, AT_WIDTH = 16,
    AT_LAT = 32, AT_MASK = 64, AT_ADDR = 128, AT_ARRAY = 256,
    /* compiler control bits (docs/trace-format.md "Control bits") */
    AT_STALL = 512, AT_YIELD = 1024, AT_WBAR = 2048, AT_RBAR = 4096, AT_WAIT = 8192,
    AT_REUSE = 16384,
    AT_CTL = AT_STALL | AT_YIELD | AT_WBAR | AT_RBAR | AT_WAIT | AT_REUSE
};
enum { AT_COUNT = 15 };

/* What addr= and array= said (parse_attrs), for inst_addrs. */
struct attr_addr {
    int has_addr;            /* addr= given                                    */
    struct nt_mem m;         /* its value: is_const/value or expr              */
    size_t addr_at;          /* column of "addr" (messages)                    */
    const char *array;       /* array= name (in the line), NULL if none        */
    size_t array_len;        /* its length                                     */
    size_t array_at;         /* column of "array"                              */
};

static int store_expr(struct fctx *f, const struct tr_expr *e, uint32_t *idx);

/* addr=EXPR at s[vat]: the value runs to the next blank (no spaces inside,
 * like every attribute value) and is a whole expression in which the loop
 * indices of the instruction's enclosing loops are in scope. */
static int parse_addr(struct fctx *f, const char *s, size_t vat, size_t *end,
                      struct attr_addr *aa)
{
    size_t n = 0;
    while (s[vat + n] && !is_ws(s[vat + n]))
        n++;
    char buf[1024];
    if (n >= sizeof buf)
        return ERR(f, vat, "attribute 'addr': expression longer than %zu characters",
                   sizeof buf - 1);
    memcpy(buf, s + vat, n);
    buf[n] = '\0';
    struct tr_expr e;
    char msg[256];
    size_t pos = 0, epos = 0;
    struct tr_expr_launch lc = f->lc;
    lc.loops = f->loops;
    if (tr_expr_parse(buf, &pos, &lc, &e, msg, sizeof msg, &epos))
        return ERR(f, vat + epos, "attribute 'addr': %s", msg);
    if (buf[pos])
        return ERR(f, vat + pos, "attribute 'addr': unexpected '%.*s' in the expression (no "
                                 "spaces inside an attribute value)", tok_len(buf + pos), buf + pos);
    aa->has_addr = 1;
    aa->m.mode = NT_A_EXPR;
    aa->m.is_const = (uint8_t)e.is_const;
    aa->m.value = (uint64_t)e.value;
    if (!e.is_const && store_expr(f, &e, &aa->m.expr))
        return -1;
    *end = vat + n;
    return 0;
}

/* One control-bit attribute's value v (already a number; '-' for a counter
 * arrives as TR_SB_NONE).  The ranges are the SASS fields' widths
 * (shared/reference/modern-sm-core.md §1). */
static int ctl_attr(struct fctx *f, struct tr_inst *in, unsigned bit, uint64_t v, size_t vat)
{
    switch (bit) {
    case AT_STALL:
        if (v > 15)
            return ERR(f, vat, "stall must be between 0 and 15 cycles");
        in->stall = (uint8_t)v;
        break;
    case AT_YIELD:
        if (v > 1)
            return ERR(f, vat, "yield must be 0 or 1");
        in->yield = (uint8_t)v;
        break;
    case AT_WBAR:
    case AT_RBAR:
        if (v >= TR_NSB && v != TR_SB_NONE)
            return ERR(f, vat, "%s must be a dependence counter 0..5 or '-' (none)",
                       bit == AT_WBAR ? "wbar" : "rbar");
        *(bit == AT_WBAR ? &in->wbar : &in->rbar) = (uint8_t)v;
        break;
    case AT_WAIT:
        if (v > 0x3f)
            return ERR(f, vat, "wait must be a mask of counters 0..5 (0..0x3f)");
        in->wait = (uint8_t)v;
        break;
    default: /* AT_REUSE */
        if (v > 0xf)
            return ERR(f, vat, "reuse must be a mask of operand slots 0..3 (0..0xf)");
        in->reuse = (uint8_t)v;
        break;
    }
    in->ctl = 1;
    return 0;
}

/* Parse "key=value" attributes from s[p...]. */
static int parse_attrs(struct fctx *f, struct tr_inst *in, const struct tr_isa_info *info,
                       const char *s, size_t p, struct attr_addr *aa)
{
    static const char *const names[AT_COUNT] = {
        "pattern", "stride", "footprint", "conflict", "width", "lat", "mask", "addr", "array",
        "stall", "yield", "wbar", "rbar", "wait", "reuse"};
    unsigned seen = 0;
    size_t pat_at = 0, stride_at = 0, ctl_at = 0;
    for (;;) {
        p = skip_ws(s, p);
        if (!s[p])
            break;
        size_t kat = p;
        size_t kn = word_len(s + p);
        if (!kn || s[p + kn] != '=')
            return ERR(f, p, "unexpected '%.*s' after the operands (attributes are key=value)",
                       tok_len(s + p), s + p);
        int a = -1;
        for (int i = 0; i < AT_COUNT; i++)
            if (word_is(s + p, kn, names[i]))
                a = i;
        if (a < 0)
            return ERR(f, kat, "unknown attribute '%.*s' (expected pattern, stride, footprint, "
                               "conflict, width, lat, mask, addr, array, stall, yield, wbar, "
                               "rbar, wait or reuse)", (int)kn, s + kat);
        unsigned bit = 1u << a;
        if (seen & bit)
            return ERR(f, kat, "duplicate attribute '%s'", names[a]);
        seen |= bit;
        if (bit & (AT_PATTERN | AT_STRIDE | AT_FOOTPRINT | AT_CONFLICT | AT_WIDTH)) {
            if (!info->is_memory)
                return ERR(f, kat, "attribute '%s' applies only to memory instructions",
                           names[a]);
        }
        if (bit == AT_CONFLICT && in->space != TR_SP_SHARED)
            return ERR(f, kat, "attribute 'conflict' applies only to shared-memory instructions");
        if ((bit & (AT_ADDR | AT_ARRAY)) && in->space != TR_SP_GLOBAL &&
            in->space != TR_SP_LOCAL)
            return ERR(f, kat, "attribute '%s' applies only to global and local memory "
                               "instructions (LDG, STG, LD, ST, ATOM, RED, LDL, STL, ...)",
                       names[a]);
        p += kn + 1;
        size_t vat = p;
        if (!s[p] || is_ws(s[p]))
            return ERR(f, vat, "attribute '%s' needs a value", names[a]);
        if (bit == AT_ADDR) {
            aa->addr_at = kat;
            if (parse_addr(f, s, vat, &p, aa))
                return -1;
            continue;
        }
        if (bit == AT_ARRAY) {
            size_t vn = 0;
            while (s[p + vn] && !is_ws(s[p + vn]))
                vn++;
            if (word_len(s + p) != vn)
                return ERR(f, vat, "bad array name '%.*s' (letters, digits and _)",
                           tok_len(s + p), s + p);
            aa->array = s + p;
            aa->array_len = vn;
            aa->array_at = kat;
            p += vn;
            continue;
        }
        if (bit == AT_PATTERN) {
            size_t vn = word_len(s + p);
            static const char *const pats[] = {"coalesced", "strided", "random", "broadcast"};
            static const uint8_t pv[] = {TR_PAT_COALESCED, TR_PAT_STRIDED, TR_PAT_RANDOM,
                                         TR_PAT_BROADCAST};
            int k = -1;
            for (int i = 0; i < 4; i++)
                if (word_is(s + p, vn, pats[i]))
                    k = i;
            if (k < 0 || (s[p + vn] && !is_ws(s[p + vn])))
                return ERR(f, vat, "bad pattern '%.*s' (expected coalesced, strided, random or "
                                   "broadcast)", tok_len(s + p), s + p);
            in->pattern = pv[k];
            pat_at = kat;
            p += vn;
            continue;
        }
        if ((bit & AT_CTL) && !ctl_at)
            ctl_at = kat;
        if ((bit & (AT_WBAR | AT_RBAR)) && s[p] == '-' && (!s[p + 1] || is_ws(s[p + 1]))) {
            if (ctl_attr(f, in, bit, TR_SB_NONE, vat))
                return -1;
            p++;
            continue;
        }
        uint64_t v;
        int neg = s[p] == '-';
        size_t q = p + (size_t)neg;
        int r = tr_parse_number(s, &q, &v);
        if (r == -1 || (s[q] && !is_ws(s[q])))
            return ERR(f, vat, "bad number '%.*s' for attribute '%s'", tok_len(s + p), s + p,
                       names[a]);
        if (r == -2)
            return ERR(f, vat, "number too large '%.*s'", tok_len(s + p), s + p);
        if (neg && v != 0)
            return ERR(f, vat, "attribute '%s' must not be negative", names[a]);
        p = q;
        switch (bit) {
        case AT_STRIDE:
            if (v < 1 || v > UINT32_MAX)
                return ERR(f, vat, "stride must be between 1 and 4294967295 bytes");
            in->stride = (uint32_t)v;
            stride_at = kat;
            break;
        case AT_FOOTPRINT:
            if (v < 1)
                return ERR(f, vat, "footprint must be at least 1 byte");
            in->footprint = v;
            break;
        case AT_CONFLICT:
            if (v < 1 || v > 32)
                return ERR(f, vat, "conflict must be between 1 and 32 (ways)");
            in->conflict = (uint8_t)v;
            break;
        case AT_WIDTH:
            if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
                return ERR(f, vat, "width must be 1, 2, 4, 8 or 16 bytes");
            in->width = (uint16_t)v;
            break;
        case AT_LAT:
            if (v < 1 || v > 32767)
                return ERR(f, vat, "lat must be between 1 and 32767 cycles");
            in->latency = (int16_t)v;
            break;
        case AT_MASK:
            if (v > 0xffffffffu)
                return ERR(f, vat, "mask must fit in 32 bits");
            in->active = (uint32_t)v;
            break;
        default:
            if (ctl_attr(f, in, bit, v, vat))
                return -1;
            break;
        }
    }
    if ((seen & AT_CTL) && !(seen & AT_STALL))
        return ERR(f, ctl_at, "control bits need stall=N (yield, wbar, rbar, wait and reuse "
                              "come with it)");
    if ((seen & AT_STRIDE) && !(seen & AT_PATTERN))
        in->pattern = TR_PAT_STRIDED;
    else if ((seen & AT_STRIDE) && in->pattern != TR_PAT_STRIDED)
        return ERR(f, stride_at, "attribute 'stride' needs pattern=strided");
    else if ((seen & AT_PATTERN) && in->pattern == TR_PAT_STRIDED && !(seen & AT_STRIDE))
        return ERR(f, pat_at, "pattern=strided needs stride=BYTES");
    if ((seen & AT_ADDR) && in->pattern == TR_PAT_RANDOM && !(seen & AT_FOOTPRINT))
        return ERR(f, aa->addr_at, "pattern=random with addr= needs footprint=BYTES (the range "
                                   "[addr, addr+footprint) the lanes draw from)");
    if ((seen & AT_ARRAY) && (seen & AT_ADDR))
        return ERR(f, aa->array_at, "attribute 'array' names the region of a footprint without "
                                    "addr= (addr= gives the addresses itself)");
    if ((seen & AT_ARRAY) && !(seen & AT_FOOTPRINT))
        return ERR(f, aa->array_at, "attribute 'array' needs footprint=BYTES (the region's size)");
    return 0;
}

/* Forget the array= names (a new kernel numbers its regions afresh). */
static void free_arrays(struct fctx *f)
{
    for (uint32_t r = 0; r < f->nregions; r++)
        free(f->arrays[r]);
    free(f->arrays);
    f->arrays = NULL;
    f->arraycap = 0;
    f->nregions = 0;
    free(f->itab);
    f->itab = NULL;
    f->itabcap = 0;
}

/* --- interning -----------------------------------------------------------
 * A kernel keeps one copy of each distinct static instruction: two lines
 * that decode to the same instruction (every field but the source line,
 * and the same addresses) share one entry of p->insts, as the trips of a
 * loop do.  An unrolled trace of N lines then costs N program entries
 * (16 bytes each, plus 4 for tr_next's runs), not N instructions of
 * sizeof(struct tr_inst) bytes; tr_inst.line names the first line. */

/* The addresses of insts[i] (zero when it has none). */
static struct nt_mem inst_mem(const struct fctx *f, uint32_t i)
{
    struct nt_mem m;
    memset(&m, 0, sizeof m);
    if (f->p->mem && i < f->memcap)
        m = f->p->mem[i];
    return m;
}

static uint64_t inst_hash(const struct fctx *f, uint32_t i)
{
    const unsigned char *b = (const unsigned char *)&f->p->insts[i];
    size_t skip = offsetof(struct tr_inst, line), n = sizeof(struct tr_inst);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t k = 0; k < n; k++)
        if (k < skip || k >= skip + sizeof f->p->insts[i].line)
            h = (h ^ b[k]) * 1099511628211ull;
    struct nt_mem m = inst_mem(f, i);
    const unsigned char *mb = (const unsigned char *)&m;
    for (size_t k = 0; k < sizeof m; k++)
        h = (h ^ mb[k]) * 1099511628211ull;
    return h;
}

/* Do insts[i] and insts[j] decode alike (all but the line, same addresses)?
 * Both were built from a zeroed value (tr_isa_decode), so padding compares. */
static int inst_same(const struct fctx *f, uint32_t i, uint32_t j)
{
    const unsigned char *a = (const unsigned char *)&f->p->insts[i];
    const unsigned char *b = (const unsigned char *)&f->p->insts[j];
    size_t at = offsetof(struct tr_inst, line), end = at + sizeof f->p->insts[i].line;
    if (memcmp(a, b, at) || memcmp(a + end, b + end, sizeof(struct tr_inst) - end))
        return 0;
    struct nt_mem x = inst_mem(f, i), y = inst_mem(f, j);
    return !memcmp(&x, &y, sizeof x);
}

/* The entry of an instruction equal to insts[n] (just written), or n after
 * recording it as a new one.  UINT32_MAX: out of memory. */
static uint32_t inst_intern(struct fctx *f, uint32_t n)
{
    if ((uint64_t)(n + 1) * 2 > f->itabcap) {
        uint32_t cap = f->itabcap ? f->itabcap * 2 : 1024;
        if (cap <= f->itabcap) /* (cannot happen below 2^31 entries) */
            return UINT32_MAX;
        uint32_t *t = calloc(cap, sizeof *t);
        if (!t)
            return UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = (uint32_t)inst_hash(f, i) & (cap - 1);
            while (t[s])
                s = (s + 1) & (cap - 1);
            t[s] = i + 1;
        }
        free(f->itab);
        f->itab = t;
        f->itabcap = cap;
        /* (an entry is in the table only once it is a new instruction:
         * insts[0..n) are all distinct) */
    }
    uint32_t s = (uint32_t)inst_hash(f, n) & (f->itabcap - 1);
    while (f->itab[s]) {
        if (inst_same(f, f->itab[s] - 1, n))
            return f->itab[s] - 1;
        s = (s + 1) & (f->itabcap - 1);
    }
    f->itab[s] = n + 1;
    return n;
}

/* Region number of an array= name in this kernel (a new one the first time). */
static int array_region(struct fctx *f, const char *name, size_t n, size_t at, uint32_t *region)
{
    for (uint32_t r = 0; r < f->nregions; r++)
        if (f->arrays[r] && strlen(f->arrays[r]) == n && !strncmp(f->arrays[r], name, n)) {
            *region = r;
            return 0;
        }
    if (grow((void **)&f->arrays, &f->arraycap, f->nregions + 1, sizeof *f->arrays) ||
        !(f->arrays[f->nregions] = malloc(n + 1)))
        return ERR(f, at, "out of memory");
    memcpy(f->arrays[f->nregions], name, n);
    f->arrays[f->nregions][n] = '\0';
    *region = f->nregions++;
    return 0;
}

/* Address regions of footprint shorthands are 2^40 bytes (1 TiB) apart,
 * the first at 1 TiB: far beyond any footprint, so regions never overlap,
 * and aligned to every line and page size.  2^24 - 1 of them fit below 2^64. */
enum { REGION_SHIFT = 40 };
#define REGION_MAX ((UINT32_C(1) << (64 - REGION_SHIFT)) - 1)

/* The addresses of instruction pg->insts[idx] (docs/trace-format.md,
 * "Addresses"): addr= for global/local instructions, else the footprint
 * shorthand, else none.  Sets *has when it has some. */
static int inst_addrs(struct fctx *f, const struct tr_inst *in, uint32_t idx,
                      const struct attr_addr *aa, int *has)
{
    struct nt_mem m = aa->m;
    *has = 0;
    if (in->space != TR_SP_GLOBAL && in->space != TR_SP_LOCAL)
        return 0;
    if (!aa->has_addr && in->footprint == 0)
        return 0;
    m.range = in->footprint;
    if (!aa->has_addr) {
        /* set by both branches; the initialiser is for gcc's
         * -Wmaybe-uninitialized, which cannot see array_region's contract */
        uint32_t region = 0;
        if (aa->array) {
            if (array_region(f, aa->array, aa->array_len, aa->array_at, &region))
                return -1;
        } else {
            if (grow((void **)&f->arrays, &f->arraycap, f->nregions + 1, sizeof *f->arrays))
                return ERR(f, 0, "out of memory");
            f->arrays[f->nregions] = NULL;
            region = f->nregions++;
        }
        if (region >= REGION_MAX)
            return ERR(f, 0, "more than %" PRIu32 " footprint regions in kernel '%s'",
                       (uint32_t)REGION_MAX, f->k->launch.name);
        uint64_t w = in->width ? in->width : 4;
        m.mode = NT_A_FOOTPRINT;
        m.value = (uint64_t)(region + 1) << REGION_SHIFT;
        m.span = in->pattern == TR_PAT_STRIDED ? 32 * (uint64_t)in->stride
                 : in->pattern == TR_PAT_BROADCAST ? w : 32 * w;
        m.chunks = in->footprint / m.span ? in->footprint / m.span : 1;
    }
    struct nt_prog *pg = f->p;
    uint32_t old = f->memcap;
    if (grow((void **)&pg->mem, &f->memcap, idx + 1, sizeof *pg->mem))
        return ERR(f, 0, "out of memory");
    if (f->memcap > old)
        memset(pg->mem + old, 0, (size_t)(f->memcap - old) * sizeof *pg->mem);
    pg->mem[idx] = m;
    *has = 1;
    return 0;
}

static struct frame *top(struct fctx *f) { return &f->fr[f->nfr - 1]; }

/* A BAR's first operand, a barrier id (0x0..0xf; the hardware has 16
 * named barriers): within the header's barriers= when given, and the
 * highest id sets the default (one more than it). */
static int check_bar_id(struct fctx *f, const char *t, size_t tn, size_t at)
{
    char buf[24];
    if (tn >= sizeof buf)
        return ERR(f, at, "barrier id '%.*s' is not 0..15", (int)tn, t);
    memcpy(buf, t, tn);
    buf[tn] = '\0';
    char *end;
    errno = 0;
    unsigned long v = strtoul(buf, &end, 0);
    if (*end || errno || v > 15)
        return ERR(f, at, "barrier id '%s' is not 0..15", buf);
    int l_bars = f->k->launch.barriers;
    if (f->barriers_given && l_bars > 0 && (int)v >= l_bars) /* 0: reported at the "}" */
        return ERR(f, at, "barrier id %lu, but kernel '%s' declares barriers=%d (ids 0..%d)", v,
                   f->k->launch.name, l_bars, l_bars - 1);
    if ((int)v + 1 > f->bar_ids)
        f->bar_ids = (int)v + 1;
    return 0;
}

/* Account for a new statement in the innermost block. */
static int stmt_begin(struct fctx *f, size_t at)
{
    struct frame *fr = top(f);
    if (fr->after_exit)
        return ERR(f, at, "unreachable statement after EXIT");
    fr->nstmts++;
    if (fr->kind == FR_KERNEL)
        fr->last_exit = 0;
    return 0;
}

static int new_op(struct fctx *f, int type, int flags, uint32_t target, uint64_t arg,
                  uint32_t *idx)
{
    struct nt_prog *p = f->p;
    if (p->nops == UINT32_MAX - 1 || grow((void **)&p->ops, &f->opcap, p->nops + 1, sizeof *p->ops))
        return ERR(f, 0, "out of memory");
    struct nt_op *op = &p->ops[p->nops];
    memset(op, 0, sizeof *op);
    op->type = (uint8_t)type;
    op->flags = (uint8_t)flags;
    op->target = target;
    op->arg = arg;
    if (idx)
        *idx = p->nops;
    p->nops++;
    return 0;
}

/* Source operand slot k (0 = first source) of in is tok[0..n): remember the
 * R register it reads, if any ("-R4", "|R4|", "R4.reuse", "[R4.64+0x10]"),
 * for the register-file bank model (docs/model.md). */
static void note_slot(struct tr_inst *in, int k, const char *tok, size_t n)
{
    if (k >= 3)
        return;
    size_t i = 0;
    while (i < n && (tok[i] == '-' || tok[i] == '|' || tok[i] == '!' || tok[i] == '~' ||
                     tok[i] == '['))
        i++;
    char cls = 0;
    size_t wn = word_len(tok + i);
    if (i + wn > n)
        return;
    int r = wn ? reg_of(tok + i, wn, &cls) : REG_NOTREG;
    if (r >= TR_REG_R && r < 255 && cls == 'R')
        in->opr[k] = (uint8_t)(r - TR_REG_R);
}

/* A source operand c[BANK][OFFSET] (both hexadecimal or decimal numbers,
 * optionally negated or absolute, e.g. -c[0x3][0x200]) gives the
 * instruction its constant address: the constant caches' key (docs/model.md
 * "Front end").  An indexed offset (c[0x0][R2+0x10], LDC's) is no key. */
static void note_const(struct tr_inst *in, const char *tok, size_t n)
{
    size_t i = 0;
    while (i < n && (tok[i] == '-' || tok[i] == '|' || tok[i] == '!' || tok[i] == '~'))
        i++;
    if (in->has_c || i + 2 > n || tok[i] != 'c' || tok[i + 1] != '[')
        return;
    char buf[64];
    size_t len = n - i < sizeof buf - 1 ? n - i : sizeof buf - 1;
    memcpy(buf, tok + i, len);
    buf[len] = '\0';
    size_t q = 2;
    uint64_t bank, off;
    if (tr_parse_number(buf, &q, &bank) || buf[q] != ']' || buf[q + 1] != '[')
        return;
    q += 2;
    if (tr_parse_number(buf, &q, &off) || buf[q] != ']' || bank > 255 || off > 65535)
        return;
    in->has_c = 1;
    in->cbank = (uint8_t)bank;
    in->coff = (uint16_t)off;
}

/* DEPBAR.LE SBx, N: the warp waits until dependence counter x is at most N
 * (modern-sm-core.md §1).  s[p...] is the operand text. */
static int parse_depbar(struct fctx *f, struct tr_inst *in, const char *s, size_t p)
{
    if (s[p] != 'S' || s[p + 1] != 'B' || s[p + 2] < '0' || s[p + 2] > '5' ||
        is_word(s[p + 3]))
        return ERR(f, p, "DEPBAR.LE needs a dependence counter SB0..SB5, got '%.*s'",
                   word_len(s + p) ? (int)word_len(s + p) : tok_len(s + p), s + p);
    size_t q = skip_ws(s, p + 3);
    if (s[q] != ',')
        return ERR(f, q, "DEPBAR.LE SBx, N: expected ',' and N after the counter");
    size_t nat = skip_ws(s, q + 1);
    q = nat;
    uint64_t v;
    if (tr_parse_number(s, &q, &v) || v > 63)
        return ERR(f, nat, "DEPBAR.LE SBx, N: N must be a number 0..63, got '%.*s'",
                   tok_len(s + nat), s + nat);
    in->depbar_sb = (uint8_t)(s[p + 2] - '0');
    in->depbar_n = (uint8_t)v;
    return 0;
}

static int parse_inst(struct fctx *f, const char *s, size_t p)
{
    struct tr_inst in;
    struct tr_isa_info info;
    size_t start = p;
    int guard = -1, guarded = 0;
    if (s[p] == '@') {
        size_t gat = p;
        p++;
        if (s[p] == '!')
            p++;
        size_t n = word_len(s + p);
        char cls = 0;
        int r = reg_of(s + p, n, &cls);
        if ((r < 0 && r != REG_ZERO) || (cls != 'P' && cls != 'Q') || (s[p + n] && !is_ws(s[p + n])))
            return ERR(f, gat, "bad guard predicate '%.*s' (expected @P0..@P6, @PT, @UP0..@UP6 "
                               "or @UPT, optionally negated with !)", tok_len(s + gat), s + gat);
        guard = r;
        guarded = r != REG_ZERO;
        p = skip_ws(s, p + n);
        if (!s[p])
            return ERR(f, p, "expected an opcode after the guard predicate");
    }
    size_t oat = p;
    size_t on = 0;
    while (s[p + on] && !is_ws(s[p + on]) && s[p + on] != ';')
        on++;
    char opc[64];
    if (on >= sizeof opc)
        return ERR(f, oat, "opcode too long '%.*s'", tok_len(s + oat), s + oat);
    memcpy(opc, s + oat, on);
    opc[on] = '\0';
    for (size_t i = 0; i < on; i++) {
        char c = opc[i];
        int shape_x = c == 'x' && i > 0 && i + 1 < on && opc[i - 1] >= '0' && opc[i - 1] <= '9' &&
                      opc[i + 1] >= '0' && opc[i + 1] <= '9'; /* HGMMA.64x64x16 */
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || shape_x) ||
            (i == 0 && !(c >= 'A' && c <= 'Z')) || (c == '.' && (i + 1 == on || opc[i + 1] == '.')))
            return ERR(f, oat, "bad opcode '%s'", opc);
    }
    if (!tr_isa_decode(opc, &in, &info))
        return ERR(f, oat, "unknown opcode '%.*s'", (int)tr_isa_base_len(opc), opc);
    in.line = f->line;
    in.has_pc = (uint8_t)f->line_has_pc;
    in.pc = f->line_has_pc ? f->line_pc : 0;
    if (guarded && add_src(f, &in, guard, start))
        return -1;
    p += on;

    /* Operands: comma-separated tokens without spaces. */
    int idx = 0, chain = 1, op0_pred = 0, main_done = 0, nslot = 0;
    p = skip_ws(s, p);
    size_t ops_at = p;
    while (s[p] && s[p] != ';') {
        size_t tat = p, tn = 0;
        while (s[p + tn] && s[p + tn] != ',' && !is_ws(s[p + tn]))
            tn++;
        /* key=value: the operands are over */
        size_t wn = word_len(s + tat);
        if (idx == 0 && wn && s[tat + wn] == '=')
            break;
        if (tn > 1 && s[tat + tn - 1] == ';')
            tn--;
        const char *t = s + tat;
        if (in.kind == TR_K_BARRIER && idx == 0 && tn && t[0] >= '0' && t[0] <= '9' &&
            check_bar_id(f, t, tn, tat))
            return -1;
        char cls = 0;
        size_t rn = word_len(t);
        int r = rn == tn ? reg_of(t, rn, &cls) : REG_NOTREG;
        int bare = rn == tn && (r >= 0 || r == REG_ZERO);
        int is_pred = bare && (cls == 'P' || cls == 'Q');
        int dst = 0;
        if (idx < info.ndst_ops && chain) {
            if (idx == 0) {
                if (r == REG_BAD)
                    return ERR(f, tat, "bad register '%.*s' (%s)", (int)tn, t, reg_help);
                if (!bare && !word_is(t, tn, "PR"))
                    return ERR(f, tat, "destination '%.*s' is not a register", (int)tn, t);
                dst = 1;
                op0_pred = is_pred;
            } else if (is_pred || (idx == 1 && op0_pred && bare)) {
                dst = 1;
            } else {
                chain = 0;
            }
        }
        if (dst) {
            if (r >= 0) {
                int nregs = 1;
                if ((cls == 'R' || cls == 'U') && !main_done) {
                    nregs = info.dst_regs;
                    main_done = 1;
                }
                int lim = cls == 'R' ? 254 : 62, num = r - (cls == 'R' ? TR_REG_R : TR_REG_UR);
                /* Tensor accumulators are only as aligned as their fragment
                 * layout needs; everything else must be naturally aligned. */
                if (nregs > 1 && num % nregs && in.pipe != PIPE_TENSOR)
                    return ERR(f, tat, "misaligned %d-bit destination '%.*s' (a %d-register "
                               "group starts at a multiple of %d)", 32 * nregs, (int)tn, t,
                               nregs, nregs);
                if (nregs > 1 && num + nregs - 1 > lim)
                    return ERR(f, tat, "%d-bit destination '%.*s' runs past %s%d", 32 * nregs,
                               (int)tn, t, cls == 'R' ? "R" : "UR", lim);
                for (int i = 0; i < nregs; i++)
                    if (add_reg(in.dst, &in.ndst, TR_MAX_DST, r + i))
                        return ERR(f, tat, "too many destination registers (at most %d)",
                                   TR_MAX_DST);
            } else if ((cls == 'R' || cls == 'U') && !main_done) {
                main_done = 1; /* RZ/URZ: the result is discarded */
            }
        } else {
            if (operand_sources(f, &in, t, tn, tat))
                return -1;
            note_slot(&in, nslot++, t, tn);
            note_const(&in, t, tn);
        }
        p = skip_ws(s, tat + tn);
        if (s[p] == ';')
            break;
        if (s[p] != ',')
            break;
        p = skip_ws(s, p + 1);
        if (!s[p] || s[p] == ';')
            return ERR(f, p, "expected an operand after ','");
        idx++;
    }
    if (s[p] == ';')
        p++;
    struct attr_addr aa;
    memset(&aa, 0, sizeof aa);
    if (parse_attrs(f, &in, &info, s, p, &aa))
        return -1;
    if (!strncmp(opc, "DEPBAR.LE", 9) && (opc[9] == '\0' || opc[9] == '.') &&
        parse_depbar(f, &in, s, ops_at))
        return -1;

    /* Control-flow rules for EXIT. */
    int terminal = 0;
    if (in.kind == TR_K_EXIT) {
        if (f->loops)
            return ERR(f, oat, "EXIT inside a loop (a warp leaves a loop only by finishing its "
                               "trips; use 'when' around the loop)");
        if (!guarded)
            terminal = 1;
        else
            in.kind = TR_K_NOP; /* predicated-off EXIT; may become terminal at '}' */
    }
    if (in.kind == TR_K_BARRIER)
        f->has_bar = 1;

    if (stmt_begin(f, start))
        return -1;
    struct nt_prog *pg = f->p;
    if (pg->ninsts == UINT32_MAX - 1 ||
        grow((void **)&pg->insts, &f->instcap, pg->ninsts + 1, sizeof *pg->insts))
        return ERR(f, 0, "out of memory");
    memcpy(&pg->insts[pg->ninsts], &in, sizeof in);
    int has_addr;
    if (inst_addrs(f, &in, pg->ninsts, &aa, &has_addr))
        return -1;
    uint32_t at = inst_intern(f, pg->ninsts);
    if (at == UINT32_MAX)
        return ERR(f, 0, "out of memory");
    if (at != pg->ninsts && has_addr)
        memset(&pg->mem[pg->ninsts], 0, sizeof *pg->mem); /* the slot stays free */
    uint32_t opi;
    if (new_op(f, NT_INST, (terminal ? NT_F_EXIT : 0) | (has_addr ? NT_F_ADDR : 0), 0, at,
               &opi))
        return -1;
    if (at == pg->ninsts)
        pg->ninsts++;
    struct frame *fr = top(f);
    fr->emits = 1;
    if (terminal)
        fr->after_exit = 1;
    if (fr->kind == FR_KERNEL) {
        fr->last_exit = (in.kind == TR_K_EXIT || (guarded && !strncmp(opc, "EXIT", 4) &&
                                                  tr_isa_base_len(opc) == 4));
        fr->last_op = opi;
    }
    return 0;
}

/* ---------------------------------------------------------- control */

/* Parse an expression; stores a literal (flags NT_F_CONST) or a new
 * dynamic expression in *flags and *arg. */
static int parse_ctl_expr(struct fctx *f, const char *s, size_t *p, int *flags, uint64_t *arg,
                          int64_t *cval, int *is_const)
{
    struct tr_expr e;
    char msg[256];
    size_t epos = 0;
    if (tr_expr_parse(s, p, &f->lc, &e, msg, sizeof msg, &epos))
        return ERR(f, epos, "%s", msg);
    *is_const = e.is_const;
    if (e.is_const) {
        *cval = e.value;
        *flags = NT_F_CONST;
        *arg = (uint64_t)e.value;
        return 0;
    }
    uint32_t idx;
    if (store_expr(f, &e, &idx))
        return -1;
    *flags = 0;
    *arg = idx;
    f->p->dynamic = 1; /* control depends on block/warp: counts differ per warp */
    return 0;
}

/* Append a dynamic expression's code to the program; *idx = its entry. */
static int store_expr(struct fctx *f, const struct tr_expr *e, uint32_t *idx)
{
    struct nt_prog *pg = f->p;
    if (grow((void **)&pg->code, &f->codecap, pg->ncode + (uint32_t)e->n, sizeof *pg->code) ||
        grow((void **)&pg->exprs, &f->exprcap, pg->nexprs + 1, sizeof *pg->exprs))
        return ERR(f, 0, "out of memory");
    memcpy(pg->code + pg->ncode, e->code, (size_t)e->n * sizeof e->code[0]);
    pg->exprs[pg->nexprs].off = pg->ncode;
    pg->exprs[pg->nexprs].n = (uint32_t)e->n;
    pg->ncode += (uint32_t)e->n;
    *idx = pg->nexprs++;
    return 0;
}

/* Expect "{" and the end of the line at s[p]. */
static int expect_open(struct fctx *f, const char *s, size_t p, const char *what)
{
    p = skip_ws(s, p);
    if (s[p] != '{')
        return s[p] ? ERR(f, p, "expected '{' after %s, got '%.*s'", what, tok_len(s + p), s + p)
                    : ERR(f, p, "expected '{' at the end of the line after %s", what);
    p = skip_ws(s, p + 1);
    if (s[p])
        return ERR(f, p, "unexpected '%.*s' after '{' (one statement per line)", tok_len(s + p),
                   s + p);
    return 0;
}

static int push_frame(struct fctx *f, int kind, size_t at)
{
    if (f->nfr >= TR_NATIVE_MAX_NEST)
        return ERR(f, at, "blocks nested deeper than %d", TR_NATIVE_MAX_NEST - 1);
    struct frame *fr = &f->fr[f->nfr++];
    memset(fr, 0, sizeof *fr);
    fr->kind = kind;
    fr->line = f->line;
    fr->col = (unsigned)at + 1;
    fr->chain = UINT32_MAX;
    fr->all_emit = 1;
    return 0;
}

static int parse_loop(struct fctx *f, const char *s, size_t at)
{
    if (f->loops >= TR_MAX_DEPTH)
        return ERR(f, at, "loops nested deeper than %d", TR_MAX_DEPTH);
    if (stmt_begin(f, at))
        return -1;
    size_t p = at + 4, eat = skip_ws(s, p);
    int flags, is_const;
    uint64_t arg;
    int64_t v = 0;
    if (parse_ctl_expr(f, s, &p, &flags, &arg, &v, &is_const))
        return -1;
    if (is_const && v < 1)
        return ERR(f, eat, "trip count must be at least 1 (got %lld)", (long long)v);
    if (is_const && v > (int64_t)UINT32_MAX)
        return ERR(f, eat, "trip count too large (at most 4294967295)");
    if (expect_open(f, s, p, "the trip count"))
        return -1;
    uint32_t opi;
    if (new_op(f, NT_LOOP, flags, 0, arg, &opi) || push_frame(f, FR_LOOP, at))
        return -1;
    top(f)->op = opi;
    top(f)->trips_pos = is_const;
    f->loops++;
    return 0;
}

/* "when EXPR {" at s[at] (at points at "when"); for "else when" the
 * statement is not counted again. */
static int parse_when_cond(struct fctx *f, const char *s, size_t at, uint32_t *opi)
{
    size_t p = at + 4;
    int flags, is_const;
    uint64_t arg;
    int64_t v;
    if (parse_ctl_expr(f, s, &p, &flags, &arg, &v, &is_const))
        return -1;
    if (expect_open(f, s, p, "the condition"))
        return -1;
    return new_op(f, NT_COND, flags, 0, arg, opi);
}

static void patch_chain(struct nt_prog *pg, uint32_t chain, uint32_t to)
{
    while (chain != UINT32_MAX) {
        uint32_t next = pg->ops[chain].target;
        pg->ops[chain].target = to;
        chain = next;
    }
}

static int finish_kernel(struct fctx *f, size_t at);

/* "}" at s[at], possibly followed by "else {" or "else when EXPR {". */
static int parse_close(struct fctx *f, const char *s, size_t at)
{
    struct nt_prog *pg = f->p;
    struct frame *fr = top(f);
    size_t p = skip_ws(s, at + 1);
    size_t eln = word_len(s + p);
    int has_else = word_is(s + p, eln, "else");
    if (!has_else && s[p])
        return ERR(f, p, "unexpected '%.*s' after '}'", tok_len(s + p), s + p);
    if (has_else) {
        if (fr->kind != FR_WHEN)
            return ERR(f, p, "'else' without a matching 'when'");
        size_t q = skip_ws(s, p + 4);
        size_t wn = word_len(s + q);
        uint32_t j;
        if (new_op(f, NT_JUMP, 0, fr->chain, 0, &j))
            return -1;
        fr->chain = j;
        pg->ops[fr->op].target = pg->nops; /* false -> the else branch */
        fr->all_emit &= fr->emits;
        fr->emits = 0;
        fr->nstmts = 0;
        fr->after_exit = 0;
        if (word_is(s + q, wn, "when")) {
            uint32_t c;
            if (parse_when_cond(f, s, q, &c))
                return -1;
            fr->op = c;
            return 0;
        }
        if (expect_open(f, s, q, "'else'"))
            return -1;
        fr->kind = FR_ELSE;
        return 0;
    }
    switch (fr->kind) {
    case FR_KERNEL:
        return finish_kernel(f, at);
    case FR_LOOP: {
        if (fr->nstmts == 0)
            return perr(f, fr->line, fr->col, "empty loop body");
        uint32_t e;
        if (new_op(f, NT_ENDLOOP, 0, fr->op + 1, 0, &e))
            return -1;
        pg->ops[fr->op].target = pg->nops;
        if (!fr->emits)
            pg->ops[fr->op].flags |= NT_F_MAYBE_EMPTY;
        int child_emits = fr->trips_pos && fr->emits;
        f->nfr--;
        f->loops--;
        if (child_emits)
            top(f)->emits = 1;
        return 0;
    }
    case FR_WHEN:
        pg->ops[fr->op].target = pg->nops;
        patch_chain(pg, fr->chain, pg->nops);
        f->nfr--;
        return 0;
    default: { /* FR_ELSE */
        patch_chain(pg, fr->chain, pg->nops);
        int all = fr->all_emit && fr->emits;
        f->nfr--;
        if (all)
            top(f)->emits = 1;
        return 0;
    }
    }
}

/* ---------------------------------------------------------- kernels */

static const char *const hdr_names[] = {"grid", "block", "regs", "smem_static",
                                        "smem_dynamic", "barriers"};
enum { H_GRID, H_BLOCK, H_REGS, H_SSTATIC, H_SDYN, H_BARRIERS, H_COUNT };

/* A header number, allowing a leading '-' so negatives get a clear message. */
static int hdr_number(struct fctx *f, const char *s, size_t *p, int64_t *out, const char *field)
{
    size_t at = *p, q = at;
    int neg = s[q] == '-';
    if (neg)
        q++;
    uint64_t v;
    int r = tr_parse_number(s, &q, &v);
    if (r == -1)
        return ERR(f, at, "bad number '%.*s' for '%s'", tok_len(s + at), s + at, field);
    if (r == -2 || v > (uint64_t)INT64_MAX)
        return ERR(f, at, "number too large for '%s'", field);
    *out = neg ? -(int64_t)v : (int64_t)v;
    *p = q;
    return 0;
}

static int hdr_dims(struct fctx *f, const char *s, size_t *p, uint32_t d[3], const char *field)
{
    int64_t v[3] = {1, 1, 1};
    size_t at[3] = {*p, *p, *p};
    size_t q = *p;
    if (s[q] == '(') {
        q++;
        for (int i = 0; i < 3; i++) {
            q = skip_ws(s, q);
            at[i] = q;
            if (hdr_number(f, s, &q, &v[i], field))
                return -1;
            q = skip_ws(s, q);
            if (s[q] == ')') {
                q++;
                break;
            }
            if (s[q] != ',' || i == 2)
                return ERR(f, q, "bad %s dimensions: expected (X), (X,Y) or (X,Y,Z)", field);
            q++;
        }
    } else {
        if (hdr_number(f, s, &q, &v[0], field))
            return -1;
    }
    for (int i = 0; i < 3; i++) {
        if (v[i] < 1)
            return ERR(f, at[i], "%s dimension %c must be at least 1 (got %lld)", field,
                       "xyz"[i], (long long)v[i]);
        if (v[i] > (int64_t)UINT32_MAX)
            return ERR(f, at[i], "%s dimension %c too large", field, "xyz"[i]);
        d[i] = (uint32_t)v[i];
    }
    *p = q;
    return 0;
}

static int parse_kernel(struct fctx *f, const char *s, size_t at)
{
    size_t p = skip_ws(s, at + 6);
    char name[sizeof ((struct tr_launch *)0)->name];
    size_t nat = p, nn = 0;
    if (s[p] == '"') {
        p++;
        while (s[p + nn] && s[p + nn] != '"')
            nn++;
        if (!s[p + nn])
            return ERR(f, nat, "unterminated string");
        if (nn == 0)
            return ERR(f, nat, "empty kernel name");
        if (nn >= sizeof name)
            return ERR(f, nat, "kernel name too long (at most %zu characters)", sizeof name - 1);
        memcpy(name, s + p, nn);
        p += nn + 1;
    } else {
        while (is_word(s[p + nn]) || s[p + nn] == '$' || s[p + nn] == '.' || s[p + nn] == ':')
            nn++;
        if (nn == 0 || s[p + nn] == '=' || (s[p] >= '0' && s[p] <= '9'))
            return ERR(f, nat, "expected a kernel name after 'kernel'");
        if (nn >= sizeof name)
            return ERR(f, nat, "kernel name too long (at most %zu characters)", sizeof name - 1);
        memcpy(name, s + p, nn);
        p += nn;
    }
    name[nn] = '\0';

    int64_t num[H_COUNT] = {0};
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    unsigned seen = 0;
    size_t fat[H_COUNT] = {0};
    for (;;) {
        p = skip_ws(s, p);
        if (s[p] == '{' || !s[p])
            break;
        size_t kat = p, kn = word_len(s + p);
        if (!kn || s[p + kn] != '=')
            return ERR(f, kat, "expected key=value or '{' in the kernel header, got '%.*s'",
                       tok_len(s + kat), s + kat);
        int h = -1;
        for (int i = 0; i < H_COUNT; i++)
            if (word_is(s + p, kn, hdr_names[i]))
                h = i;
        if (h < 0)
            return ERR(f, kat, "unknown header field '%.*s' (expected grid, block, regs, "
                               "smem_static, smem_dynamic or barriers)", (int)kn, s + kat);
        if (seen & (1u << h))
            return ERR(f, kat, "duplicate header field '%s'", hdr_names[h]);
        seen |= 1u << h;
        fat[h] = kat;
        p += kn + 1;
        if (h == H_GRID || h == H_BLOCK) {
            if (hdr_dims(f, s, &p, h == H_GRID ? grid : block, hdr_names[h]))
                return -1;
        } else {
            size_t vat = p;
            if (hdr_number(f, s, &p, &num[h], hdr_names[h]))
                return -1;
            int64_t v = num[h];
            if (h == H_REGS && (v < 1 || v > 255))
                return ERR(f, vat, "regs must be between 1 and 255 (got %lld)", (long long)v);
            if ((h == H_SSTATIC || h == H_SDYN) && v < 0)
                return ERR(f, vat, "%s must not be negative (got %lld)", hdr_names[h],
                           (long long)v);
            if ((h == H_SSTATIC || h == H_SDYN) && v > INT32_MAX)
                return ERR(f, vat, "%s too large (at most 2147483647 bytes)", hdr_names[h]);
            if (h == H_BARRIERS && (v < 0 || v > 16))
                return ERR(f, vat, "barriers must be between 0 and 16 (got %lld)", (long long)v);
        }
        if (s[p] && !is_ws(s[p]) && s[p] != '{')
            return ERR(f, p, "unexpected '%.*s' in the value of '%s'", tok_len(s + p), s + p,
                       hdr_names[h]);
    }
    if (expect_open(f, s, p, "the kernel header"))
        return -1;
    for (int h = 0; h < 3; h++)
        if (!(seen & (1u << h)))
            return ERR(f, at, "kernel '%s': missing header field '%s'", name, hdr_names[h]);
    uint64_t blocks = (uint64_t)grid[0] * grid[1];
    if (blocks > UINT32_MAX || blocks * grid[2] > UINT32_MAX)
        return ERR(f, fat[H_GRID] + 5, "grid has more than 4294967295 blocks");
    blocks *= grid[2];
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > UINT32_MAX)
        return ERR(f, fat[H_BLOCK] + 6, "block has more than 4294967295 threads");

    f->k = calloc(1, sizeof *f->k);
    f->p = calloc(1, sizeof *f->p);
    if (!f->k || !f->p)
        return ERR(f, at, "out of memory");
    f->opcap = f->instcap = f->codecap = f->exprcap = f->memcap = 0;
    free_arrays(f);
    struct tr_launch *l = &f->k->launch;
    memcpy(l->name, name, nn + 1);
    memcpy(l->grid, grid, sizeof grid);
    memcpy(l->block, block, sizeof block);
    l->regs = (int)num[H_REGS];
    l->smem_static = (int)num[H_SSTATIC];
    l->smem_dynamic = (int)num[H_SDYN];
    l->barriers = (int)num[H_BARRIERS];
    f->k->ops = &nt_trace_ops;
    f->k->mt_safe = 1; /* cursors only: the program is read-only after parsing */
    f->k->impl = f->p;
    f->p->blocks = blocks;
    f->p->warps = tr_warps_per_block(l);
    f->p->gx = grid[0];
    f->p->gy = grid[1];
    f->lc.blocks = (int64_t)blocks;
    f->lc.warps = f->p->warps;
    f->lc.gx = grid[0];
    f->lc.gy = grid[1];
    f->lc.gz = grid[2];
    f->has_bar = 0;
    f->bar_ids = 0;
    f->barriers_given = (seen >> H_BARRIERS) & 1;
    f->bar_line = f->line;
    f->bar_col = (unsigned)fat[H_BARRIERS] + 1;
    f->nfr = 0;
    f->loops = 0;
    return push_frame(f, FR_KERNEL, at);
}

static void drop_kernel(struct fctx *f)
{
    free_arrays(f);
    if (f->k) {
        nt_prog_free(f->p);
        free(f->k);
    }
    f->k = NULL;
    f->p = NULL;
}

static int finish_kernel(struct fctx *f, size_t at)
{
    struct frame *fr = top(f);
    struct nt_prog *pg = f->p;
    struct tr_launch *l = &f->k->launch;
    if (!fr->last_exit)
        return ERR(f, at, "kernel '%s' does not end with EXIT (the last statement of a kernel "
                          "body must be EXIT)", l->name);
    struct nt_op *last = &pg->ops[fr->last_op];
    if (pg->insts[last->arg].kind != TR_K_EXIT) {
        /* a guarded final EXIT still ends the warp; an earlier line that
         * shares its entry (interning) keeps its own kind */
        int shared = 0;
        for (uint32_t i = 0; i < pg->nops && !shared; i++)
            shared = i != fr->last_op && pg->ops[i].type == NT_INST &&
                     pg->ops[i].arg == last->arg;
        if (shared) {
            if (pg->ninsts == UINT32_MAX - 1 ||
                grow((void **)&pg->insts, &f->instcap, pg->ninsts + 1, sizeof *pg->insts))
                return ERR(f, at, "out of memory");
            pg->insts[pg->ninsts] = pg->insts[last->arg];
            if (last->flags & NT_F_ADDR) {
                if (grow((void **)&pg->mem, &f->memcap, pg->ninsts + 1, sizeof *pg->mem))
                    return ERR(f, at, "out of memory");
                pg->mem[pg->ninsts] = pg->mem[last->arg];
            }
            last->arg = pg->ninsts++;
        }
    }
    struct tr_inst *in = &pg->insts[last->arg];
    last->flags |= NT_F_EXIT;
    in->kind = TR_K_EXIT;
    uint32_t lo = UINT32_MAX, hi = 0; /* the code's address span */
    for (uint32_t i = 0; i < pg->ninsts; i++) {
        tr_inst_seal(&pg->insts[i]);
        if (pg->insts[i].has_pc) {
            lo = pg->insts[i].pc < lo ? pg->insts[i].pc : lo;
            hi = pg->insts[i].pc > hi ? pg->insts[i].pc : hi;
        }
    }
    f->k->code_bytes = lo <= hi ? (uint64_t)(hi - lo) + 16 : 0;
    if (nt_prog_runs(pg))
        return ERR(f, 0, "out of memory");
    if (f->barriers_given && l->barriers == 0 && f->has_bar)
        return perr(f, f->bar_line, f->bar_col, "barriers=0 but kernel '%s' executes BAR",
                    l->name);
    if (!f->barriers_given)
        l->barriers = f->has_bar ? (f->bar_ids > 1 ? f->bar_ids : 1) : 0;
    f->nfr--;

    /* Exact hint when no control depends on block or warp; a total of 2^64
     * or more saturates (not 0, "unknown": the run refuses it up front). */
    f->k->warp_insts_hint = 0;
    if (!pg->dynamic) {
        uint64_t per = nt_count(pg, 0, 0), w = (uint64_t)pg->warps * pg->blocks, h;
        if (__builtin_mul_overflow(per, w, &h) || per == UINT64_MAX)
            h = UINT64_MAX;
        f->k->warp_insts_hint = h;
    }
    /* Trim slack so memory is what the program needs. */
    if (pg->nops) {
        void *t = realloc(pg->ops, pg->nops * sizeof *pg->ops);
        if (t)
            pg->ops = t;
    }
    if (pg->ninsts) {
        void *t = realloc(pg->insts, pg->ninsts * sizeof *pg->insts);
        if (t)
            pg->insts = t;
    }

    struct gctx *g = f->g;
    if (g->tf->nkernels >= g->kcap) {
        int nc = g->kcap ? g->kcap * 2 : 4;
        void *t = realloc(g->tf->kernels, (size_t)nc * sizeof *g->tf->kernels);
        if (!t)
            return ERR(f, at, "out of memory");
        g->tf->kernels = t;
        g->kcap = nc;
    }
    g->tf->kernels[g->tf->nkernels++] = f->k;
    f->k = NULL;
    f->p = NULL;
    return 0;
}

/* ---------------------------------------------------------- files */

static int parse_file(struct gctx *g, const char *path, FILE *fp);

static int parse_include(struct fctx *f, const char *s, size_t at)
{
    size_t p = skip_ws(s, at + 7);
    if (s[p] != '"')
        return ERR(f, p, "expected a quoted file name after 'include'");
    size_t sat = p, n = 0;
    p++;
    while (s[p + n] && s[p + n] != '"')
        n++;
    if (!s[p + n])
        return ERR(f, sat, "unterminated string");
    if (n == 0)
        return ERR(f, sat, "empty file name after 'include'");
    size_t rest = skip_ws(s, p + n + 1);
    if (s[rest])
        return ERR(f, rest, "unexpected '%.*s' after the file name", tok_len(s + rest), s + rest);
    /* Resolve relative to the including file's directory. */
    const char *slash = strrchr(f->path, '/');
    size_t dlen = (s[p] == '/' || !slash) ? 0 : (size_t)(slash - f->path) + 1;
    char *full = malloc(dlen + n + 1);
    if (!full)
        return ERR(f, sat, "out of memory");
    memcpy(full, f->path, dlen);
    memcpy(full + dlen, s + p, n);
    full[dlen + n] = '\0';
    struct gctx *g = f->g;
    if (g->depth >= TR_NATIVE_MAX_INCLUDE + 1) {
        free(full);
        return ERR(f, sat, "includes nested deeper than %d", TR_NATIVE_MAX_INCLUDE);
    }
    FILE *fp = fopen(full, "r");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st)) {
        int e = errno;
        if (fp)
            fclose(fp);
        ERR(f, sat, "cannot open include \"%.*s\": %s", (int)n, s + p, strerror(e));
        free(full);
        return -1;
    }
    for (int i = 0; i < g->depth; i++) {
        if (g->dev[i] == st.st_dev && g->ino[i] == st.st_ino) {
            fclose(fp);
            ERR(f, sat, "include cycle: \"%.*s\" is already being read", (int)n, s + p);
            free(full);
            return -1;
        }
    }
    g->dev[g->depth] = st.st_dev;
    g->ino[g->depth] = st.st_ino;
    g->depth++;
    int r = parse_file(g, full, fp);
    g->depth--;
    fclose(fp);
    free(full);
    return r;
}

/* Blank out comments: '#' to the end of the line, and C-style block
 * comments that open and close within the line. */
static int strip_comments(struct fctx *f, char *s)
{
    int instr = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '"')
            instr = !instr;
        if (instr)
            continue;
        if (s[i] == '#') {
            s[i] = '\0';
            break;
        }
        if (s[i] == '/' && s[i + 1] == '*') {
            char *e = strstr(s + i + 2, "*/");
            if (!e)
                return ERR(f, i, "unterminated comment '/*' (comments do not span lines)");
            memset(s + i, ' ', (size_t)(e + 2 - (s + i)));
        }
    }
    /* trailing blanks */
    size_t n = strlen(s);
    while (n && (is_ws(s[n - 1]) || s[n - 1] == '\r'))
        s[--n] = '\0';
    return 0;
}

/* An instruction's address: a comment of 1-8 hex digits that starts the
 * line, "/ *0250* /" without the spaces, as sass2trace writes it; kept as tr_inst.pc
 * (per-instruction counters, --source-csv). */
static void line_address(struct fctx *f, const char *s)
{
    size_t p = skip_ws(s, 0), n = 0;
    uint32_t v = 0;
    f->line_has_pc = 0;
    if (s[p] != '/' || s[p + 1] != '*')
        return;
    for (p += 2; n < 9; n++, p++) {
        int d = s[p] >= '0' && s[p] <= '9'   ? s[p] - '0'
                : s[p] >= 'a' && s[p] <= 'f' ? s[p] - 'a' + 10
                : s[p] >= 'A' && s[p] <= 'F' ? s[p] - 'A' + 10
                                             : -1;
        if (d < 0)
            break;
        v = v << 4 | (uint32_t)d;
    }
    if (n >= 1 && n <= 8 && s[p] == '*' && s[p + 1] == '/') {
        f->line_has_pc = 1;
        f->line_pc = v;
    }
}

static int parse_line(struct fctx *f, char *s)
{
    line_address(f, s);
    if (strip_comments(f, s))
        return -1;
    size_t p = skip_ws(s, 0);
    if (!s[p])
        return 0;
    size_t wn = word_len(s + p);
    int endw = !s[p + wn] || is_ws(s[p + wn]) || s[p + wn] == '"' || s[p + wn] == '(';
    if (!f->k) {
        if (word_is(s + p, wn, "kernel") && endw)
            return parse_kernel(f, s, p);
        if (word_is(s + p, wn, "include") && endw)
            return parse_include(f, s, p);
        if (s[p] == '}')
            return ERR(f, p, "unexpected '}' outside a kernel");
        return ERR(f, p, "expected 'kernel' or 'include', got '%.*s'", tok_len(s + p), s + p);
    }
    if (s[p] == '}')
        return parse_close(f, s, p);
    if (word_is(s + p, wn, "loop") && endw)
        return parse_loop(f, s, p);
    if (word_is(s + p, wn, "when") && endw) {
        if (stmt_begin(f, p))
            return -1;
        uint32_t c;
        if (parse_when_cond(f, s, p, &c) || push_frame(f, FR_WHEN, p))
            return -1;
        top(f)->op = c;
        return 0;
    }
    if (word_is(s + p, wn, "else") && endw)
        return ERR(f, p, "'else' must follow the '}' of a when on the same line ('} else {')");
    if (word_is(s + p, wn, "kernel") && endw)
        return ERR(f, p, "'kernel' inside a kernel body (missing '}'?)");
    if (word_is(s + p, wn, "include") && endw)
        return ERR(f, p, "'include' inside a kernel body (includes go between kernels)");
    if (s[p] == '@' || (s[p] >= 'A' && s[p] <= 'Z'))
        return parse_inst(f, s, p);
    return ERR(f, p, "expected an instruction, 'loop', 'when' or '}', got '%.*s'",
               tok_len(s + p), s + p);
}

/* One line of fp into buf (newline dropped, NUL-terminated).  Returns its
 * length; RL_EOF at the end of the file; RL_LONG for a line of cap bytes or
 * more (it stops reading there: a file of NUL bytes or without newlines
 * would otherwise grow a buffer until memory runs out); RL_ERROR on a read
 * error (errno set: a read error must not end the file quietly).  *nul is
 * where the line's first NUL byte is, or -1. */
enum { RL_EOF = -1, RL_LONG = -2, RL_ERROR = -3 };
static long read_line(FILE *fp, char *buf, size_t cap, long *nul)
{
    size_t n = 0;
    int c;
    *nul = -1;
    while ((c = getc_unlocked(fp)) != EOF && c != '\n') {
        if (n + 1 >= cap) {
            if (*nul >= 0)
                break; /* the NUL byte is the better message */
            return RL_LONG;
        }
        if (c == '\0' && *nul < 0)
            *nul = (long)n;
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    if (c == EOF) {
        if (ferror(fp))
            return RL_ERROR;
        if (n == 0)
            return RL_EOF;
    }
    return (long)n;
}

/* A carriage return before the end of a line: old Mac OS line endings (\r
 * alone), which would make the whole file one line, and a message quoting
 * it would be overwritten on a terminal.  (CRLF's final \r is fine.) */
static int check_cr(struct fctx *f, unsigned line, const char *s, size_t len)
{
    const char *cr = memchr(s, '\r', len);
    if (cr && (size_t)(cr - s) + 1 < len)
        return perr(f, line, (size_t)(cr - s) + 1,
                    "carriage return (\\r) inside a line: old Mac line endings? (lines end "
                    "with \\n or \\r\\n)");
    return 0;
}

static int parse_file(struct gctx *g, const char *path, FILE *fp)
{
    struct fctx *f = calloc(1, sizeof *f);
    char *line = malloc(TR_NATIVE_MAX_LINE + 1);
    if (!f || !line) {
        free(f);
        free(line);
        snprintf(g->err, TRACE_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    f->g = g;
    f->path = path;
    long len, nul;
    int rc = 0;
    errno = 0;
    while ((len = read_line(fp, line, TR_NATIVE_MAX_LINE + 1, &nul)) >= 0) {
        f->line++;
        if (nul >= 0) {
            rc = ERR(f, (size_t)nul, "NUL byte in line (not a text trace?)");
            break;
        }
        /* a UTF-8 byte-order mark (some Windows editors write one) */
        if (f->line == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
            len -= 3;
            memmove(line, line + 3, (size_t)len + 1);
        }
        if ((rc = check_cr(f, f->line, line, (size_t)len)))
            break;
        if ((rc = parse_line(f, line)))
            break;
    }
    if (!rc && len == RL_LONG && !(rc = check_cr(f, f->line + 1, line, TR_NATIVE_MAX_LINE)))
        rc = perr(f, f->line + 1, 1, "line longer than %d bytes (not a text trace?)",
                  TR_NATIVE_MAX_LINE);
    if (!rc && len == RL_ERROR) {
        snprintf(g->err, TRACE_ERR_MAX, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    if (!rc && f->k) {
        struct frame *fr = top(f);
        static const char *const what[] = {"kernel", "loop", "when", "else"};
        if (fr->kind == FR_KERNEL)
            rc = perr(f, fr->line, fr->col, "unterminated kernel '%s' (missing '}' at end of file)",
                      f->k->launch.name);
        else
            rc = perr(f, fr->line, fr->col, "unterminated %s (missing '}' at end of file)",
                      what[fr->kind]);
    }
    drop_kernel(f);
    free(line);
    free(f);
    return rc;
}

/* Parse the open stream fp as the top-level file `path`, whose identity
 * (dev, ino) starts the include-cycle check; closes fp. */
static int open_stream(const char *path, FILE *fp, dev_t dev, ino_t ino, struct trace_file *out,
                       char err[TRACE_ERR_MAX])
{
    struct gctx *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        fclose(fp);
        return -1;
    }
    g->tf = out;
    g->kcap = out->nkernels;
    g->err = err;
    g->dev[0] = dev;
    g->ino[0] = ino;
    g->depth = 1;
    int rc = parse_file(g, path, fp);
    fclose(fp);
    if (!rc && out->nkernels == 0) {
        snprintf(err, TRACE_ERR_MAX, "%s:1:1: no kernel in trace", path);
        rc = -1;
    }
    free(g);
    return rc;
}

int trace_native_open(const char *path, struct trace_file *out, char err[TRACE_ERR_MAX])
{
    FILE *fp = fopen(path, "r");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st)) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        if (fp)
            fclose(fp);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(EISDIR));
        fclose(fp);
        return -1;
    }
    return open_stream(path, fp, st.st_dev, st.st_ino, out, err);
}

int trace_native_open_mem(const char *path, const char *text, size_t len, struct trace_file *out,
                          char err[TRACE_ERR_MAX])
{
    /* fmemopen() of 0 bytes is allowed since glibc 2.22; it reads as empty */
    FILE *fp = fmemopen((void *)text, len, "r");
    if (!fp) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    /* no file: (0, 0) is no real file's identity, so only includes enter the
     * cycle check */
    return open_stream(path, fp, 0, 0, out, err);
}

int tr_native_stats(const struct trace_kernel *k, struct tr_native_stats *st)
{
    if (!k || k->ops != &nt_trace_ops)
        return -1;
    const struct nt_prog *p = k->impl;
    st->insts = p->ninsts;
    st->ops = p->nops;
    st->exprs = p->nexprs;
    st->dynamic = p->dynamic;
    st->bytes = p->nops * sizeof *p->ops + p->ninsts * sizeof *p->insts +
                p->ncode * sizeof *p->code + p->nexprs * sizeof *p->exprs +
                (p->mem ? p->ninsts * sizeof *p->mem : 0);
    return 0;
}
