/* conv_sass.c — `cuobjdump -sass` listing -> native trace (docs/sass-converter.md).
 *
 * Steps: read the listing and pick one function; decode each instruction's
 * guard, opcode and branch target; mark what is reachable from address 0;
 * turn the branches into a tree of nested regions (loops from backward
 * conditional branches, skipped / if-else regions from forward ones); attach
 * executed counts (ncu SourceCounters) and memory annotations; write the
 * tree as native trace text, every instruction verbatim.
 *
 * cuobjdump's line forms (CUDA 11..13, SM 70+, 16-byte instructions):
 *         Function : _Z13val_ffma_ilp1Pfff          (function header)
 *     .headerflags @"EF_CUDA_SM90 ..."              (directive)
 *         /\*0010*\/  @P0 BRA 0xa0 ;   /\* 0x...  *\/  (instruction + encoding)
 *                                      /\* 0x...  *\/  (control-code half)
 *         ..........                                (end of function)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "convert/conv_sass.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_expr.h"
#include "trace/trace_isa.h"

enum ictl {
    C_PLAIN = CONV_SASS_PLAIN,             /* no control effect (BSSY/BSYNC/BREAK/WARPSYNC) */
    C_BRA = CONV_SASS_BRA,                 /* conditional branch                            */
    C_JMP = CONV_SASS_JMP,                 /* unconditional branch                          */
    C_EXIT = CONV_SASS_EXIT,               /* unguarded EXIT                                */
    C_EXIT_COND = CONV_SASS_EXIT_COND,     /* guarded EXIT                                  */
    C_UNSUPPORTED = CONV_SASS_UNSUPPORTED, /* RET/BRX/JMX...: not converted                 */
    C_CALL = CONV_SASS_CALL                /* CALL: continues after itself, not converted   */
};

struct sinst {
    uint32_t line;        /* line in the .sass file                            */
    uint16_t col;         /* column of the instruction text                    */
    uint16_t opcol;       /* column of the opcode                              */
    char *text;           /* guard, opcode, operands (no ';'), owned           */
    char opcode[48];      /* opcode with modifiers                             */
    int ctl;              /* enum ictl                                         */
    int pred;             /* guarded by a predicate other than @PT (@!PT too)  */
    uint32_t target;      /* branch target, instruction index                  */
    int reach;            /* on the converted path: reachable from the entry,
                             not through code that executes 0 times (counts)
                             or a side a constant --take rules out            */
    int sreach;           /* reachable from the entry by the branches alone    */
    int is_mem;           /* memory instruction (annotations allowed)          */
    int64_t count;        /* executed count from the CSV, -1 = none            */
    int annot;            /* annotation entry applied, -1 = none               */
    int has_hi;           /* the upper encoding half-line was read             */
    uint64_t hi;          /* upper 64 bits of the encoding (control bits)      */
};

enum nkind { N_ROOT, N_LOOP, N_SKIP, N_IFELSE, N_THEN, N_ELSE };

struct node {
    int kind;             /* enum nkind                                        */
    uint32_t lo, hi;      /* instruction range, inclusive                      */
    uint32_t br;          /* back edge (loop) / conditional branch (skip, if-else) */
    int first, next;      /* first child, next sibling (-1 = none)             */
    int parent;           /* enclosing node, -1 for the root                    */
};

struct annot {
    uint32_t line;        /* line in the annotation file                       */
    uint16_t col;         /* column of the key                                 */
    uint16_t acol;        /* column of the first attribute                     */
    int is_pc;            /* key is an address                                 */
    uint32_t pc;          /* address (is_pc)                                   */
    char key[48];         /* opcode prefix (!is_pc)                            */
    char attrs[256];      /* normalised attributes ("pattern=x footprint=N")   */
    char addr[200];       /* addr= expression as written ("" = none); `imm` is
                             replaced per instruction (subst_imm)            */
    int used;             /* matched an instruction                            */
};

struct ctx {
    const struct conv_sass_opts *o;
    char *err;                      /* TRACE_ERR_MAX buffer                     */
    struct sinst *in;               /* the function's instructions              */
    uint32_t n;                     /* instructions                             */
    char fname[512];                /* function name (= tr_launch.name's size)  */
    uint32_t fline;                 /* line of its "Function :" header          */
    struct node *nd;                /* region tree, nd[0] = root                */
    int nnd, ndcap;
    struct annot *an;               /* annotations                              */
    int nan;
    int *trip_used, *take_used;     /* per option: matched                      */
    int whole;                      /* reach: by the branches alone, no counts or
                                       --take (the listing reader)              */
    int64_t warps;                  /* counts: executions of the first instruction */
    uint32_t counts_lines;          /* lines of the counts CSV                  */
    char *out;                      /* output text                              */
    size_t olen, ocap;
    struct conv_sass_line_src *map; /* per output line                          */
    uint32_t nmap, mapcap;
    int oom;                        /* allocation failed while writing          */
    char *notes;                    /* what was inferred, for stderr (lines)    */
    size_t nlen, ncap;
    char taken[256];                /* branches always taken by counts: addresses */
    int ntaken;                     /* their number                             */
};

/* ---------- errors ---------- */

static int ferr(struct ctx *c, const char *file, uint32_t line, uint32_t col, const char *fmt, ...)
{
    char msg[TRACE_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (snprintf(c->err, TRACE_ERR_MAX, "%s:%u:%u: %s", file, line, col, msg) >= TRACE_ERR_MAX)
        c->err[TRACE_ERR_MAX - 1] = 0; /* a long path: the message is cut, still one line */
    return -1;
}

static int serr(struct ctx *c, const struct sinst *in, uint32_t col, const char *fmt, ...)
{
    char msg[TRACE_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (snprintf(c->err, TRACE_ERR_MAX, "%s:%u:%u: %s", c->o->sass_path, in->line,
                 col ? col : in->col, msg) >= TRACE_ERR_MAX)
        c->err[TRACE_ERR_MAX - 1] = 0;
    return -1;
}

static int uerr(struct ctx *c, const char *fmt, ...)
{
    char msg[TRACE_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (snprintf(c->err, TRACE_ERR_MAX, "smsim: %s", msg) >= TRACE_ERR_MAX)
        c->err[TRACE_ERR_MAX - 1] = 0;
    return -1;
}

/* ---------- small text helpers ---------- */

static char *read_file(const char *path, size_t *len, char *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    if (!buf || ferror(f)) {
        snprintf(err, TRACE_ERR_MAX, "%s: read error: %s", path,
                 buf ? strerror(errno) : "out of memory");
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    if (memchr(buf, 0, n)) {
        snprintf(err, TRACE_ERR_MAX, "%s:1:1: NUL byte in file (not a text listing?)", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Next line of buf at *pos (NUL-terminated in place, '\r' stripped); NULL at end. */
static char *next_line(char *buf, size_t len, size_t *pos)
{
    if (*pos >= len)
        return NULL;
    char *s = buf + *pos;
    char *e = memchr(s, '\n', len - *pos);
    if (e) {
        *e = 0;
        *pos = (size_t)(e - buf) + 1;
    } else {
        *pos = len;
        e = buf + len;
    }
    if (e > s && e[-1] == '\r')
        e[-1] = 0;
    return s;
}

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

/* Bare hex digits (the address inside the address comment). */
static int parse_hexdigits(const char *s, size_t *i, uint64_t *v)
{
    size_t p = *i;
    uint64_t x = 0;
    size_t d = 0;
    for (;; p++, d++) {
        int c = s[p], h;
        if (c >= '0' && c <= '9')
            h = c - '0';
        else if (c >= 'a' && c <= 'f')
            h = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            h = c - 'A' + 10;
        else
            break;
        if (x >> 60)
            return -1;
        x = x * 16 + (uint64_t)h;
    }
    if (!d)
        return -1;
    *v = x;
    *i = p;
    return 0;
}

/* "0x" followed by hex digits. */
static int parse_hex(const char *s, size_t *i, uint64_t *v)
{
    size_t p = *i;
    if (s[p] != '0' || (s[p + 1] != 'x' && s[p + 1] != 'X'))
        return -1;
    p += 2;
    if (parse_hexdigits(s, &p, v))
        return -1;
    *i = p;
    return 0;
}

/* ---------- reading the listing ---------- */

/* "Function : NAME" -> NAME (in place), or NULL. */
static char *function_name(char *s)
{
    size_t i = skip_ws(s, 0);
    if (strncmp(s + i, "Function", 8))
        return NULL;
    i = skip_ws(s, i + 8);
    if (s[i] != ':')
        return NULL;
    i = skip_ws(s, i + 1);
    char *name = s + i;
    size_t e = strlen(name);
    while (e && (name[e - 1] == ' ' || name[e - 1] == '\t'))
        name[--e] = 0;
    return e ? name : NULL;
}

/* Split guard/opcode/operands of one instruction; set ctl and target. */
static int decode_inst(struct ctx *c, struct sinst *in)
{
    const char *t = in->text;
    size_t i = 0;
    int guard = 0, never = 0;
    if (t[0] == '@') {
        size_t g = 1;
        if (t[g] == '!')
            g++;
        size_t ge = g;
        while (t[ge] && t[ge] != ' ' && t[ge] != '\t')
            ge++;
        if (ge - g == 2 && !strncmp(t + g, "PT", 2))
            never = (t[1] == '!');           /* @PT: always, @!PT: never */
        else
            guard = 1;
        in->pred = guard || never;
        i = skip_ws(t, ge);
    }
    size_t os = i;
    /* a lower-case x only between digits: shapes such as HGMMA.64x64x16 */
    while ((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= '0' && t[i] <= '9') || t[i] == '_' ||
           t[i] == '.' || (t[i] == 'x' && i > os && t[i - 1] >= '0' && t[i - 1] <= '9' &&
                           t[i + 1] >= '0' && t[i + 1] <= '9'))
        i++;
    in->opcol = (uint16_t)(in->col + os);
    if (i == os || (t[i] && t[i] != ' ' && t[i] != '\t'))
        return serr(c, in, in->opcol, "bad SASS line: expected an opcode, got '%.*s'",
                    (int)strcspn(t + os, " \t"), t + os);
    if (i - os >= sizeof in->opcode)
        return serr(c, in, in->opcol, "opcode too long '%.*s'", (int)(i - os), t + os);
    memcpy(in->opcode, t + os, i - os);
    in->opcode[i - os] = 0;

    struct tr_inst ti;
    struct tr_isa_info info;
    if (!tr_isa_decode(in->opcode, &ti, &info))
        return serr(c, in, in->opcol,
                    "unknown opcode '%s' (base name '%.*s' is not in the SASS table, "
                    "sim/trace/trace_isa.c)",
                    in->opcode, (int)tr_isa_base_len(in->opcode), in->opcode);
    in->is_mem = info.is_memory;
    size_t bl = tr_isa_base_len(in->opcode);
    const char *ops = t + i;
    in->ctl = C_PLAIN;
    if (never)
        return 0; /* @!PT: issued, never takes effect */
#define BASE(s) (bl == sizeof(s) - 1 && !strncmp(in->opcode, s, bl))
    if (BASE("EXIT")) {
        in->ctl = guard ? C_EXIT_COND : C_EXIT;
    } else if (BASE("BRA")) {
        /* Last operand is the target; a predicate operand (BRA.U !UP0, ...)
         * or a register (BRA.DIV UR4, ...) makes it conditional. */
        const char *last = strrchr(ops, ',');
        int extra = last != NULL;
        size_t p = last ? (size_t)(last - t) + 1 : i;
        p = skip_ws(t, p);
        uint64_t v;
        size_t q = p;
        if (parse_hex(t, &q, &v) || t[skip_ws(t, q)])
            return serr(c, in, (uint32_t)(in->col + p),
                        "cannot read the branch target '%s' (expected 0xADDR)", t + p);
        if (v % 16)
            return serr(c, in, (uint32_t)(in->col + p),
                        "branch target 0x%" PRIx64 " is not a multiple of 16", v);
        in->target = (uint32_t)(v / 16);
        if (v / 16 > UINT32_MAX)
            in->target = UINT32_MAX;
        in->ctl = (guard || extra) ? C_BRA : C_JMP;
    } else if (BASE("CALL")) {
        in->ctl = C_CALL;
    } else if (BASE("RET") || BASE("BRX") || BASE("BRXU") || BASE("JMP") ||
               BASE("JMX") || BASE("JMXU") || BASE("RTT") || BASE("KILL")) {
        in->ctl = C_UNSUPPORTED;
    }
#undef BASE
    return 0;
}

/* Read the listing, keep the one function matching kernel_re. */
static int read_sass(struct ctx *c)
{
    const struct conv_sass_opts *o = c->o;
    regex_t re;
    const char *want = o->kernel_name ? o->kernel_name : o->kernel_re;
    int rc = o->kernel_name ? 0 : regcomp(&re, o->kernel_re, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char m[128];
        regerror(rc, &re, m, sizeof m);
        return uerr(c, "--kernel '%s': bad regular expression: %s", o->kernel_re, m);
    }
    size_t len, pos = 0;
    char *buf = read_file(o->sass_path, &len, c->err);
    if (!buf) {
        if (!o->kernel_name)
            regfree(&re);
        return -1;
    }
    char names[TRACE_ERR_MAX / 2] = "";
    int nfunc = 0, nmatch = 0, in_func = 0, status = 0;
    uint32_t cap = 0, line = 0;
    char *s;
    while ((s = next_line(buf, len, &pos)) != NULL && !status) {
        line++;
        char *name = function_name(s);
        if (name) {
            nfunc++;
            if (strlen(names) + strlen(name) + 4 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         names[0] ? ", " : "", name);
            in_func = o->kernel_name ? !strcmp(name, o->kernel_name)
                                     : regexec(&re, name, 0, NULL, 0) == 0;
            if (in_func && ++nmatch == 1) {
                /* a conversion's name goes into the trace's kernel name (tr_launch) */
                if (strlen(name) >= sizeof c->fname) {
                    status = ferr(c, o->sass_path, line, 1, "function name too long '%s'", name);
                    break;
                }
                strcpy(c->fname, name);
                c->fline = line;
            }
            if (nmatch > 1 && in_func) {
                status = ferr(c, o->sass_path, line, 1,
                              "--kernel '%s' matches more than one function ('%s' and '%s')",
                              want, c->fname, name);
                break;
            }
            continue;
        }
        if (!in_func || nmatch != 1)
            continue;
        size_t i = skip_ws(s, 0);
        if (!s[i])
            continue;
        if (!strncmp(s + i, "Fatbin", 6)) { /* next section: the function is over */
            in_func = 0;
            continue;
        }
        if (s[i] == '.') /* .headerflags, .section, labels, the "....." end marker */
            continue;
        if (s[i] == '/' && s[i + 1] == '*' && s[skip_ws(s, i + 2)] == '0' &&
            s[skip_ws(s, i + 2) + 1] == 'x') {
            /* The upper encoding half-line of the instruction above: its bits
             * 105..125 are the compiler's control bits (emit_ctl). */
            size_t q = skip_ws(s, i + 2);
            uint64_t hi;
            if (c->n && !c->in[c->n - 1].has_hi && !parse_hex(s, &q, &hi)) {
                c->in[c->n - 1].hi = hi;
                c->in[c->n - 1].has_hi = 1;
            }
            continue;
        }
        uint64_t addr;
        size_t p = i + 2;
        if (s[i] != '/' || s[i + 1] != '*' || parse_hexdigits(s, &p, &addr) || s[p] != '*' ||
            s[p + 1] != '/') {
            status = ferr(c, o->sass_path, line, (uint32_t)i + 1,
                          "bad SASS line: expected '/*ADDR*/ INSTRUCTION ;', an encoding "
                          "comment '/* 0x... */' or a directive");
            break;
        }
        size_t ts = skip_ws(s, p + 2);
        char *semi = strchr(s + ts, ';');
        if (!s[ts] || s[ts] == ';') {
            status = ferr(c, o->sass_path, line, (uint32_t)ts + 1,
                          "bad SASS line: expected an instruction after the address");
            break;
        }
        if (!semi) {
            status = ferr(c, o->sass_path, line, (uint32_t)strlen(s) + 1,
                          "bad SASS line: expected ';' after the instruction");
            break;
        }
        size_t rest = skip_ws(s, (size_t)(semi - s) + 1);
        if (s[rest] && strncmp(s + rest, "/*", 2)) {
            status = ferr(c, o->sass_path, line, (uint32_t)rest + 1,
                          "bad SASS line: unexpected '%s' after ';'", s + rest);
            break;
        }
        size_t te = (size_t)(semi - s);
        while (te > ts && (s[te - 1] == ' ' || s[te - 1] == '\t'))
            te--;
        if (addr != (uint64_t)c->n * 16) {
            status = ferr(c, o->sass_path, line, (uint32_t)i + 1,
                          "address 0x%" PRIx64 " out of sequence (expected 0x%" PRIx32 ")",
                          addr, c->n * 16);
            break;
        }
        if (ts > 60000 || te - ts > 4000) {
            status = ferr(c, o->sass_path, line, (uint32_t)i + 1, "line too long");
            break;
        }
        if (c->n == cap) {
            cap = cap ? cap * 2 : 256;
            struct sinst *ni = realloc(c->in, cap * sizeof *ni);
            if (!ni) {
                status = uerr(c, "out of memory");
                break;
            }
            c->in = ni;
        }
        struct sinst *in = &c->in[c->n];
        memset(in, 0, sizeof *in);
        in->line = line;
        in->col = (uint16_t)(ts + 1);
        in->count = -1;
        in->annot = -1;
        in->text = malloc(te - ts + 1);
        if (!in->text) {
            status = uerr(c, "out of memory");
            break;
        }
        memcpy(in->text, s + ts, te - ts);
        in->text[te - ts] = 0;
        c->n++;
        if (decode_inst(c, in))
            status = -1;
    }
    free(buf);
    if (!o->kernel_name)
        regfree(&re);
    if (status)
        return -1;
    if (!nmatch)
        return ferr(c, o->sass_path, 1, 1, "kernel '%s' not found (functions: %s)", want,
                    nfunc ? names : "none");
    if (!c->n)
        return ferr(c, o->sass_path, c->fline, 1, "function '%s' has no instructions", c->fname);
    return 0;
}

/* ---------- reachability and regions ---------- */

static const char *addr_s(uint32_t idx, char buf[16])
{
    snprintf(buf, 16, "0x%04" PRIx32, idx * 16);
    return buf;
}

/* The successors of instruction i (the one rule of the listing's control
 * flow, docs/sass-converter.md "Reachability"): the branch target of a
 * BRA, then the next instruction unless i is an unconditional BRA, an
 * unguarded EXIT or an unsupported transfer (RET, BRX, ...: where it goes
 * is not followed).  A CALL continues after itself: its callee is not
 * followed.  Returns how many (0..2); a successor may be >= n (a target
 * outside the function, or running past its end). */
static int succ_of(const struct sinst *in, uint32_t i, uint32_t succ[2])
{
    int ns = 0;
    if (in->ctl == C_BRA || in->ctl == C_JMP)
        succ[ns++] = in->target;
    if (in->ctl != C_JMP && in->ctl != C_EXIT && in->ctl != C_UNSUPPORTED)
        succ[ns++] = i + 1;
    return ns;
}

/* A call, return or indirect jump where the listing's path needs it. */
static int unsupported(struct ctx *c, uint32_t i)
{
    char a[16];
    return serr(c, &c->in[i], c->in[i].opcol, "unsupported control flow '%s' at %s (calls, "
                "returns and indirect jumps are not converted)", c->in[i].opcode, addr_s(i, a));
}

/* printf onto a growing buffer (*buf: *len used of *cap allocated, kept
 * NUL-terminated); *oom set when it cannot grow.  The written trace and
 * the inference notes both grow this way. */
static void vappend(char **buf, size_t *len, size_t *cap, int *oom, const char *fmt, va_list ap)
{
    for (;;) {
        va_list aq;
        va_copy(aq, ap);
        int w = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, aq);
        va_end(aq);
        if (w < 0) {
            *oom = 1;
            return;
        }
        if (*buf && (size_t)w < *cap - *len) {
            *len += (size_t)w;
            return;
        }
        size_t nc = (*cap + (size_t)w + 1) * 2;
        char *nb = realloc(*buf, nc);
        if (!nb) {
            *oom = 1;
            return;
        }
        *buf = nb;
        *cap = nc;
    }
}

static void append(char **buf, size_t *len, size_t *cap, int *oom, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vappend(buf, len, cap, oom, fmt, ap);
    va_end(ap);
}

/* What was inferred from the counts or constant options, one line for the
 * caller to print (result.notes). */
static void note(struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vappend(&c->notes, &c->nlen, &c->ncap, &c->oom, fmt, ap);
    va_end(ap);
    append(&c->notes, &c->nlen, &c->ncap, &c->oom, "\n");
}

/* A --take value that is a constant (no block/warp): 1 with *v, else 0. */
static int take_const(struct ctx *c, const char *value, int64_t *v)
{
    const struct tr_launch *l = &c->o->launch;
    struct tr_expr_launch el = {
        .blocks = (int64_t)l->grid[0] * l->grid[1] * l->grid[2],
        .warps = ((int64_t)l->block[0] * l->block[1] * l->block[2] + 31) / 32,
        .gx = l->grid[0], .gy = l->grid[1], .gz = l->grid[2]};
    struct tr_expr e;
    char msg[200];
    size_t pos = 0, ep = 0;
    if (tr_expr_parse(value, &pos, &el, &e, msg, sizeof msg, &ep) || value[pos] || !e.is_const)
        return 0;
    *v = e.value;
    return 1;
}

/* Mark what executes.  Two walks from address 0 on succ_of's graph: `sreach`
 * by the branches alone, and `reach`, the converted path, which in addition
 * does not enter an instruction the counts show executing 0 times, nor the
 * side of a forward branch or guarded EXIT that a constant --take rules out
 * (c->whole: the listing reader, whose path is the branches' alone).  Code
 * off the converted path needs no option and may hold anything
 * (CALL.REL.NOINC to a slow path, loops without trip counts); a call or an
 * unsupported instruction on it is an error when it is written (emit_seq),
 * or, for the listing reader, after the walk (conv_sass_listing_read).
 * Hence a conversion reads the counts first. */
static int reach(struct ctx *c)
{
    uint32_t *stack = malloc((size_t)c->n * sizeof *stack);
    if (!stack)
        return uerr(c, "out of memory");
    int status = 0;
    for (int prune = 0; prune <= 1 && !status; prune++) {
        uint32_t sp = 0;
        stack[sp++] = 0;
        if (prune)
            c->in[0].reach = 1;
        else
            c->in[0].sreach = 1;
        int cut = prune && !c->whole; /* counts and constant --take apply */
        while (sp && !status) {
            uint32_t i = stack[--sp];
            struct sinst *in = &c->in[i];
            uint32_t succ[2];
            int ns = succ_of(in, i, succ);
            int jump = in->ctl == C_BRA || in->ctl == C_JMP; /* succ[0] is the target */
            char a[16];
            const struct conv_sass_ctl *t = NULL;
            int64_t tv;
            if (cut && ((in->ctl == C_BRA && in->target > i) || in->ctl == C_EXIT_COND))
                for (int k = 0; k < c->o->ntakes && !t; k++)
                    if (c->o->takes[k].pc == i * 16)
                        t = &c->o->takes[k];
            if (t && take_const(c, t->value, &tv)) {
                if (tv && in->ctl == C_EXIT_COND) {
                    ns = 0; /* every warp leaves */
                } else if (tv) {
                    ns = 1; /* always taken: the target alone */
                } else if (in->ctl == C_BRA) {
                    succ[0] = succ[1]; /* never taken: the next instruction alone */
                    ns = 1;
                    jump = 0;
                }
            }
            for (int k = 0; k < ns && !status; k++) {
                if (succ[k] >= c->n) {
                    if (prune && k == 0 && jump)
                        status = serr(c, in, 0, "branch target 0x%" PRIx64 " is outside the "
                                      "function", (uint64_t)in->target * 16);
                    else if (prune)
                        status = serr(c, in, 0, "execution runs past the end of the function "
                                      "after %s", addr_s(i, a));
                    continue;
                }
                struct sinst *s = &c->in[succ[k]];
                if (cut && c->o->counts_path && s->count == 0)
                    continue; /* executes 0 times: not on the path */
                int *m = prune ? &s->reach : &s->sreach;
                if (!*m) {
                    *m = 1;
                    stack[sp++] = succ[k];
                }
            }
        }
    }
    free(stack);
    if (status)
        return status;
    uint32_t off = 0, unsup = 0;
    char list[160] = "";
    for (uint32_t i = 0; i < c->n; i++)
        if (c->in[i].sreach && !c->in[i].reach) {
            off++;
            if ((c->in[i].ctl == C_UNSUPPORTED || c->in[i].ctl == C_CALL) && unsup++ < 4)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s %s",
                         list[0] ? ", " : "", addr_s(i, (char[16]){0}), c->in[i].opcode);
        }
    if (off)
        note(c, "%u instruction%s off the converted path (%s)%s%s%s", off, off == 1 ? "" : "s",
             c->o->counts_path ? "executed 0 times, or reached only through such code"
                               : "ruled out by a constant --take",
             unsup ? ", not converted: " : "", list, unsup > 4 ? ", ..." : "");
    return 0;
}

static int add_node(struct ctx *c, int kind, uint32_t lo, uint32_t hi, uint32_t br)
{
    if (c->nnd == c->ndcap) {
        c->ndcap = c->ndcap ? c->ndcap * 2 : 32;
        struct node *nn = realloc(c->nd, (size_t)c->ndcap * sizeof *nn);
        if (!nn)
            return uerr(c, "out of memory");
        c->nd = nn;
    }
    struct node *d = &c->nd[c->nnd++];
    d->kind = kind;
    d->lo = lo;
    d->hi = hi;
    d->br = br;
    d->first = d->next = d->parent = -1;
    return 0;
}

static int rank(int kind)
{
    return kind == N_ROOT ? 0 : kind == N_IFELSE || kind == N_SKIP ? 1
         : kind == N_THEN || kind == N_ELSE ? 2 : 3;
}

static int node_cmp(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi > y->hi ? -1 : 1;
    return rank(x->kind) - rank(y->kind);
}

static const char *kind_s(int k)
{
    return k == N_LOOP ? "loop" : k == N_SKIP ? "region skipped by the branch"
         : k == N_IFELSE ? "if/else" : k == N_THEN ? "then-part" : k == N_ELSE ? "else-part"
         : "function";
}

/* Build the region tree from the reachable branches. */
static int build_tree(struct ctx *c)
{
    if (add_node(c, N_ROOT, 0, c->n - 1, 0))
        return -1;
    char a[16], b[16];
    for (uint32_t i = 0; i < c->n; i++) {
        struct sinst *in = &c->in[i];
        if (!in->reach)
            continue;
        if (in->ctl == C_BRA && in->target <= i) {
            if (add_node(c, N_LOOP, in->target, i, i))
                return -1;
        } else if (in->ctl == C_BRA && in->target > i + 1) {
            uint32_t t = in->target;
            struct sinst *j = &c->in[t - 1];
            if (t - 1 > i && j->reach && j->ctl == C_JMP && j->target > t) {
                if (add_node(c, N_IFELSE, i + 1, j->target - 1, i) ||
                    add_node(c, N_THEN, i + 1, t - 1, i) ||
                    add_node(c, N_ELSE, t, j->target - 1, i))
                    return -1;
            } else if (add_node(c, N_SKIP, i + 1, t - 1, i)) {
                return -1;
            }
        } else if (in->ctl == C_JMP && in->target < i) {
            return serr(c, in, in->opcol,
                        "unconditional backward branch at %s (a loop left only by a forward "
                        "branch) is not supported", addr_s(i, a));
        } else if (in->ctl == C_JMP && in->target > i + 1) {
            /* Forward jump: what it skips must be dead, or be the else-part of
             * an if/else whose then-part it ends (checked when that is built). */
            int is_then_end = 0;
            for (uint32_t k = 0; k < i && !is_then_end; k++)
                is_then_end = c->in[k].reach && c->in[k].ctl == C_BRA && c->in[k].target == i + 1;
            if (!is_then_end)
                for (uint32_t k = i + 1; k < in->target; k++)
                    if (c->in[k].reach)
                        return serr(c, &c->in[k], 0,
                                    "unstructured control flow: %s is reached by a branch into "
                                    "the code skipped by the BRA at %s",
                                    addr_s(k, a), addr_s(i, b));
        }
    }
    qsort(c->nd + 1, (size_t)c->nnd - 1, sizeof *c->nd, node_cmp);
    /* Laminar check and tree links (a stack of open nodes). */
    int stack[256], sp = 0;
    stack[sp++] = 0;
    int last_child[256];
    last_child[0] = -1;
    for (int k = 1; k < c->nnd; k++) {
        struct node *d = &c->nd[k];
        while (sp > 1 && c->nd[stack[sp - 1]].hi < d->lo)
            sp--;
        struct node *p = &c->nd[stack[sp - 1]];
        if (d->hi > p->hi) {
            const struct sinst *in = &c->in[d->br];
            return serr(c, in, in->opcol,
                        "the %s %s..%s overlaps the %s %s..%s without nesting (unstructured "
                        "control flow, e.g. a break out of a loop)",
                        kind_s(d->kind), addr_s(d->lo, a), addr_s(d->hi, b), kind_s(p->kind),
                        addr_s(p->lo, (char[16]){0}), addr_s(p->hi, (char[16]){0}));
        }
        if (sp >= 256)
            return serr(c, &c->in[d->br], 0, "regions nested deeper than 255");
        d->parent = stack[sp - 1];
        if (last_child[sp - 1] < 0)
            p->first = k;
        else
            c->nd[last_child[sp - 1]].next = k;
        last_child[sp - 1] = k;
        stack[sp] = k;
        last_child[sp] = -1;
        sp++;
    }
    return 0;
}

/* ---------- executed counts (ncu SourceCounters CSV) ---------- */

/* Split one CSV line into at most maxf fields (in place). */
static int csv_split(char *s, char **f, int maxf)
{
    int n = 0;
    char *p = s;
    for (;;) {
        if (n == maxf)
            return n;
        if (*p == '"') {
            char *w = ++p, *start = p;
            for (; *p; p++) {
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p++;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p;
            }
            char *after = p;
            *w = 0;
            f[n++] = start;
            p = after;
            while (*p && *p != ',')
                p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',')
                p++;
        }
        if (*p != ',') {
            *p = 0;
            return n;
        }
        *p++ = 0;
    }
}

/* Opcode of an ncu "Source" cell: "@P0   BRA 0x7f..." -> "BRA". */
static void src_opcode(const char *s, char *op, size_t n)
{
    size_t i = skip_ws(s, 0);
    if (s[i] == '@') {
        while (s[i] && s[i] != ' ' && s[i] != '\t')
            i++;
        i = skip_ws(s, i);
    }
    size_t k = 0;
    while (s[i] && s[i] != ' ' && s[i] != '\t' && s[i] != ';' && k + 1 < n)
        op[k++] = s[i++];
    op[k] = 0;
}

static int read_counts(struct ctx *c)
{
    const char *path = c->o->counts_path;
    size_t len, pos = 0;
    char *buf = read_file(path, &len, c->err);
    if (!buf)
        return -1;
    char *s, *f[128];
    uint32_t line = 0;
    int acol = -1, scol = -1, ecol = -1, status = 0;
    uint64_t base = 0;
    int have_base = 0, two_col = 0;
    uint64_t total = 0;
    while ((s = next_line(buf, len, &pos)) != NULL && !status) {
        line++;
        if (!s[skip_ws(s, 0)])
            continue;
        int nf = csv_split(s, f, 128);
        if (acol < 0 && nf == 2 && !strcmp(f[0], "pc") && !strcmp(f[1], "count")) {
            /* the plain form: function-relative offsets, no opcode to check */
            acol = 0;
            ecol = 1;
            two_col = have_base = 1;
            continue;
        }
        if (acol < 0) {
            for (int k = 0; k < nf; k++) {
                if (!strcmp(f[k], "Address"))
                    acol = k;
                else if (!strcmp(f[k], "Source"))
                    scol = k;
                else if (!strcmp(f[k], "Instructions Executed"))
                    ecol = k;
            }
            if (acol >= 0 && (scol < 0 || ecol < 0))
                status = ferr(c, path, line, 1,
                              "counts CSV mismatch: no '%s' column (expected ncu's SourceCounters "
                              "export: Address, Source, Instructions Executed)",
                              scol < 0 ? "Source" : "Instructions Executed");
            continue; /* the "Kernel Name" line, then the header */
        }
        int need = acol > scol ? acol : scol;
        need = ecol > need ? ecol : need;
        if (nf <= need) {
            status = ferr(c, path, line, 1, "counts CSV mismatch: row has %d fields, expected %d",
                          nf, need + 1);
            break;
        }
        uint64_t addr, cnt = 0;
        size_t p = 0;
        if (parse_hex(f[acol], &p, &addr) || f[acol][p]) {
            status = ferr(c, path, line, 1, "counts CSV mismatch: bad address '%s'", f[acol]);
            break;
        }
        const char *e = f[ecol];
        int digits = 0;
        for (; *e; e++) {
            if (*e == ',' || *e == ' ')
                continue;
            if (*e < '0' || *e > '9' || cnt > (UINT64_MAX - 9) / 10) {
                digits = -1;
                break;
            }
            cnt = cnt * 10 + (uint64_t)(*e - '0');
            digits++;
        }
        if (digits <= 0) {
            status = ferr(c, path, line, 1, "counts CSV mismatch: bad '%s' value '%s'",
                          two_col ? "count" : "Instructions Executed", f[ecol]);
            break;
        }
        if (!have_base) {
            base = addr;
            have_base = 1;
        }
        uint64_t off = addr - base;
        if (addr < base || off % 16 || off / 16 >= c->n) {
            status = ferr(c, path, line, 1,
                          "counts CSV mismatch: address %s (offset 0x%" PRIx64 ") is not an "
                          "instruction of '%s' in %s (%u instructions)",
                          f[acol], off, c->fname, c->o->sass_path, c->n);
            break;
        }
        struct sinst *in = &c->in[off / 16];
        char op[48];
        if (!two_col)
            src_opcode(f[scol], op, sizeof op);
        if (!two_col && strcmp(op, in->opcode)) {
            status = ferr(c, path, line, 1,
                          "counts CSV mismatch: offset 0x%04" PRIx64 " is '%s' here but '%s' in "
                          "%s:%u (wrong kernel or binary?)",
                          off, op, in->opcode, c->o->sass_path, in->line);
            break;
        }
        if (in->count >= 0) {
            status = ferr(c, path, line, 1, "counts CSV mismatch: offset 0x%04" PRIx64
                          " appears twice", off);
            break;
        }
        in->count = (int64_t)cnt;
        total += cnt;
    }
    free(buf);
    if (status)
        return -1;
    if (acol < 0)
        return ferr(c, path, 1, 1,
                    "counts CSV mismatch: no 'Address' column (expected ncu's SourceCounters "
                    "export)");
    c->counts_lines = line;
    c->warps = c->in[0].count;
    if (c->warps <= 0)
        return ferr(c, path, 1, 1, "counts CSV mismatch: the first instruction never executed");
    (void)total;
    return 0;
}

/* After reach(): every instruction on the converted path has a count. */
static int check_counts(struct ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->in[i].reach && c->in[i].count < 0)
            return ferr(c, c->o->counts_path, c->counts_lines ? c->counts_lines : 1, 1,
                        "counts CSV mismatch: no count for %s '%s' (%s:%u)",
                        addr_s(i, (char[16]){0}), c->in[i].opcode, c->o->sass_path,
                        c->in[i].line);
    return 0;
}

/* ---------- annotations ---------- */

int64_t conv_sass_imm(const char *t)
{
    int skip_next = 0;
    for (size_t j = 0; t[j]; j++) {
        if (t[j] != '[')
            continue;
        size_t w = j;
        while (w > 0 && ((t[w - 1] >= 'a' && t[w - 1] <= 'z') || (t[w - 1] >= 'A' && t[w - 1] <= 'Z')))
            w--;
        size_t wl = j - w;
        const char *end = strchr(t + j, ']');
        if (!end)
            return 0;
        int is_cbank = (wl == 1 && t[w] == 'c') || (wl == 2 && !strncmp(t + w, "cx", 2));
        int is_desc = (wl == 4 && !strncmp(t + w, "desc", 4)) ||
                      (wl == 5 && !strncmp(t + w, "gdesc", 5));
        int follows = j > 0 && t[j - 1] == ']';
        if (is_cbank || is_desc || (follows && skip_next)) {
            skip_next = is_cbank; /* c[bank][offset]: the second group is the offset */
            j = (size_t)(end - t);
            continue;
        }
        /* the address: add up its numeric terms ("R6.64+0x200c", "R4.64+-0x400",
         * "R1+UR4+0x10"); registers and their suffixes are skipped */
        int64_t sum = 0;
        for (size_t k = j + 1; t + k < end;) {
            int neg = 0;
            while (t[k] == '+' || t[k] == '-') {
                neg ^= t[k] == '-';
                k++;
            }
            size_t e = k;
            while (t + e < end && t[e] != '+' && t[e] != '-')
                e++;
            if (t[k] >= '0' && t[k] <= '9') {
                uint64_t v = strtoull(t + k, NULL, 0);
                sum = neg ? (int64_t)((uint64_t)sum - v) : (int64_t)((uint64_t)sum + v);
            }
            k = e > k ? e : k + 1;
        }
        return sum;
    }
    return 0;
}

/* expr with every word `imm` replaced by the literal v (hex, negative in
 * parentheses) into out; -1 when it does not fit. */
static int subst_imm(const char *expr, int64_t v, char *out, size_t n)
{
    char lit[32];
    if (v < 0)
        snprintf(lit, sizeof lit, "(-0x%" PRIx64 ")", (uint64_t)0 - (uint64_t)v);
    else
        snprintf(lit, sizeof lit, "0x%" PRIx64, (uint64_t)v);
    size_t o = 0;
    for (size_t i = 0; expr[i];) {
        int wstart = i == 0 || !(isalnum((unsigned char)expr[i - 1]) || expr[i - 1] == '_');
        if (wstart && !strncmp(expr + i, "imm", 3) &&
            !(isalnum((unsigned char)expr[i + 3]) || expr[i + 3] == '_')) {
            size_t l = strlen(lit);
            if (o + l >= n)
                return -1;
            memcpy(out + o, lit, l);
            o += l;
            i += 3;
            continue;
        }
        if (o + 1 >= n)
            return -1;
        out[o++] = expr[i++];
    }
    out[o] = 0;
    return 0;
}

static int ann_value(struct ctx *c, const char *key, const char *v, uint32_t line, uint32_t col,
                     char *out, size_t n)
{
    const char *path = c->o->annot_path;
    if (!strcmp(key, "addr")) {
        /* Checked here with imm = 0 and every loop index in scope (whether the
         * instruction is inside that many loops the reader checks when the
         * trace is read back, at this line); written per instruction. */
        const struct tr_launch *l = &c->o->launch;
        struct tr_expr_launch el = {
            .blocks = (int64_t)l->grid[0] * l->grid[1] * l->grid[2],
            .warps = ((int64_t)l->block[0] * l->block[1] * l->block[2] + 31) / 32,
            .gx = l->grid[0], .gy = l->grid[1], .gz = l->grid[2], .loops = TR_MAX_DEPTH};
        char t[256];
        struct tr_expr e;
        char msg[200];
        size_t pos = 0, ep = 0;
        if (strlen(v) >= n || subst_imm(v, 0, t, sizeof t))
            return ferr(c, path, line, col, "attribute 'addr': expression too long");
        if (tr_expr_parse(t, &pos, &el, &e, msg, sizeof msg, &ep))
            return ferr(c, path, line, col, "attribute 'addr': %s", msg);
        if (t[pos])
            return ferr(c, path, line, col, "attribute 'addr': unexpected '%s'", t + pos);
        snprintf(out, n, "%s", v);
        return 0;
    }
    if (!strcmp(key, "array")) {
        /* a region name shared by the instructions that give it (the native
         * reader checks footprint/addr/space, reported at this line) */
        for (const char *q = v; *q; q++)
            if (!isalnum((unsigned char)*q) && *q != '_')
                return ferr(c, path, line, col, "bad array name '%s' (letters, digits and _)", v);
        snprintf(out, n, "%s", v);
        return 0;
    }
    if (!strcmp(key, "pattern")) {
        if (strcmp(v, "coalesced") && strcmp(v, "strided") && strcmp(v, "random") &&
            strcmp(v, "broadcast"))
            return ferr(c, path, line, col,
                        "bad pattern '%s' (expected coalesced, strided, random or broadcast)", v);
        snprintf(out, n, "%s", v);
        return 0;
    }
    const struct tr_launch *l = &c->o->launch;
    struct tr_expr_launch el = {
        .blocks = (int64_t)l->grid[0] * l->grid[1] * l->grid[2],
        .warps = ((int64_t)l->block[0] * l->block[1] * l->block[2] + 31) / 32,
        .gx = l->grid[0], .gy = l->grid[1], .gz = l->grid[2]};
    struct tr_expr e;
    char msg[200];
    size_t pos = 0, ep = 0;
    if (tr_expr_parse(v, &pos, &el, &e, msg, sizeof msg, &ep))
        return ferr(c, path, line, col + (uint32_t)ep, "attribute '%s': %s", key, msg);
    if (v[pos])
        return ferr(c, path, line, col + (uint32_t)pos, "attribute '%s': unexpected '%s'", key,
                    v + pos);
    if (!e.is_const)
        return ferr(c, path, line, col,
                    "attribute '%s' must not depend on block or warp (launch constants only: "
                    "blocks, warps, gx, gy, gz)", key);
    if (e.value < 1)
        return ferr(c, path, line, col, "attribute '%s' must be at least 1 (got %" PRId64 ")",
                    key, e.value);
    snprintf(out, n, "%" PRId64, e.value);
    return 0;
}

static int read_annot(struct ctx *c)
{
    const char *path = c->o->annot_path;
    size_t len, pos = 0;
    char *buf = read_file(path, &len, c->err);
    if (!buf)
        return -1;
    char *s;
    uint32_t line = 0;
    int cap = 0, status = 0;
    while ((s = next_line(buf, len, &pos)) != NULL && !status) {
        line++;
        char *hash = strchr(s, '#');
        if (hash)
            *hash = 0;
        size_t i = skip_ws(s, 0);
        if (!s[i])
            continue;
        if (c->nan == cap) {
            cap = cap ? cap * 2 : 16;
            struct annot *na = realloc(c->an, (size_t)cap * sizeof *na);
            if (!na) {
                status = uerr(c, "out of memory");
                break;
            }
            c->an = na;
        }
        struct annot *a = &c->an[c->nan];
        memset(a, 0, sizeof *a);
        a->line = line;
        a->col = (uint16_t)(i + 1);
        size_t ke = i;
        while (s[ke] && s[ke] != ' ' && s[ke] != '\t')
            ke++;
        uint64_t pc;
        size_t p = i;
        if (s[i] == '0' && !parse_hex(s, &p, &pc) && p == ke) {
            if (pc % 16 || pc / 16 >= c->n) {
                status = ferr(c, path, line, a->col,
                              "address 0x%" PRIx64 " is not an instruction of '%s'", pc, c->fname);
                break;
            }
            a->is_pc = 1;
            a->pc = (uint32_t)(pc / 16);
        } else {
            int ok = ke > i && ke - i < sizeof a->key && s[i] >= 'A' && s[i] <= 'Z';
            for (size_t k = i; ok && k < ke; k++)
                ok = (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
                     s[k] == '_' || s[k] == '.';
            if (!ok) {
                status = ferr(c, path, line, a->col,
                              "expected an instruction address (0x...) or an opcode, got '%.*s'",
                              (int)(ke - i), s + i);
                break;
            }
            memcpy(a->key, s + i, ke - i);
            struct tr_inst ti;
            struct tr_isa_info info;
            if (!tr_isa_decode(a->key, &ti, &info)) {
                status = ferr(c, path, line, a->col, "unknown opcode '%s'", a->key);
                break;
            }
            if (!info.is_memory) {
                status = ferr(c, path, line, a->col,
                              "'%s' is not a memory instruction (annotations describe memory "
                              "accesses only)", a->key);
                break;
            }
        }
        size_t q = skip_ws(s, ke);
        if (!s[q]) {
            status = ferr(c, path, line, (uint32_t)q + 1, "expected key=value after '%.*s'",
                          (int)(ke - i), s + i);
            break;
        }
        a->acol = (uint16_t)(q + 1);
        unsigned seen = 0;
        size_t ol = 0;
        while (s[q] && !status) {
            size_t te = q;
            while (s[te] && s[te] != ' ' && s[te] != '\t')
                te++;
            char tok[200];
            if (te - q >= sizeof tok) {
                status = ferr(c, path, line, (uint32_t)q + 1, "attribute too long");
                break;
            }
            memcpy(tok, s + q, te - q);
            tok[te - q] = 0;
            char *eq = strchr(tok, '=');
            static const char *const keys[] = {"pattern", "stride", "footprint", "conflict",
                                               "width", "addr", "array"};
            int k = -1;
            if (eq) {
                *eq = 0;
                for (int j = 0; j < 7; j++)
                    if (!strcmp(tok, keys[j]))
                        k = j;
            }
            if (k < 0) {
                status = ferr(c, path, line, (uint32_t)q + 1,
                              "unknown annotation '%s' (annotations describe memory accesses "
                              "only: pattern, stride, footprint, conflict, width, addr, array)",
                              tok);
                break;
            }
            if (seen & (1u << k)) {
                status = ferr(c, path, line, (uint32_t)q + 1, "duplicate attribute '%s'", tok);
                break;
            }
            seen |= 1u << k;
            char val[200];
            if (!eq[1]) {
                status = ferr(c, path, line, (uint32_t)q + 1, "attribute '%s' needs a value", tok);
                break;
            }
            if (ann_value(c, tok, eq + 1, line, (uint32_t)(q + (size_t)(eq - tok) + 2), val,
                          sizeof val)) {
                status = -1;
                break;
            }
            if (k == 5) { /* addr: kept apart, `imm` differs per instruction */
                snprintf(a->addr, sizeof a->addr, "%s", val);
                q = skip_ws(s, te);
                continue;
            }
            int w = snprintf(a->attrs + ol, sizeof a->attrs - ol, "%s%s=%s", ol ? " " : "", tok,
                             val);
            if (w < 0 || (size_t)w >= sizeof a->attrs - ol) {
                status = ferr(c, path, line, (uint32_t)q + 1, "too many attributes");
                break;
            }
            ol += (size_t)w;
            q = skip_ws(s, te);
        }
        if (!status)
            c->nan++;
    }
    free(buf);
    if (status)
        return -1;
    /* Attach: an address entry wins, else the longest matching opcode prefix
     * (whole modifiers: "LDG.E" matches LDG.E.128, not LDG.EL). */
    for (int k = 0; k < c->nan; k++)
        for (int j = 0; j < k; j++) {
            struct annot *x = &c->an[k], *y = &c->an[j];
            if (x->is_pc == y->is_pc && (x->is_pc ? x->pc == y->pc : !strcmp(x->key, y->key)))
                return ferr(c, path, x->line, x->col, "duplicate annotation (first at line %u)",
                            y->line);
        }
    for (uint32_t i = 0; i < c->n; i++) {
        struct sinst *in = &c->in[i];
        if (!in->sreach) /* an entry for code off the converted path is not stale */
            continue;
        int best = -1;
        size_t blen = 0;
        for (int k = 0; k < c->nan; k++) {
            struct annot *a = &c->an[k];
            if (a->is_pc) {
                if (a->pc == i) {
                    if (!in->is_mem)
                        return ferr(c, path, a->line, a->col,
                                    "0x%04x is '%s', not a memory instruction (annotations "
                                    "describe memory accesses only)", i * 16, in->opcode);
                    best = k;
                    blen = SIZE_MAX;
                }
                continue;
            }
            size_t kl = strlen(a->key);
            if (blen != SIZE_MAX && kl > blen && !strncmp(in->opcode, a->key, kl) &&
                (in->opcode[kl] == 0 || in->opcode[kl] == '.')) {
                best = k;
                blen = kl;
            }
        }
        if (best >= 0) {
            in->annot = best;
            c->an[best].used = 1;
        }
    }
    for (int k = 0; k < c->nan; k++)
        if (!c->an[k].used)
            return ferr(c, path, c->an[k].line, c->an[k].col,
                        "annotation matches no reachable instruction of '%s'", c->fname);
    return 0;
}

/* ---------- options ---------- */

static const struct conv_sass_ctl *find_ctl(const struct conv_sass_ctl *v, int n, int *used,
                                            uint32_t i)
{
    for (int k = 0; k < n; k++)
        if (v[k].pc == i * 16) {
            used[k] = 1;
            return &v[k];
        }
    return NULL;
}

/* ---------- writing ---------- */

static void put(struct ctx *c, const char *fmt, ...)
{
    if (c->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    vappend(&c->out, &c->olen, &c->ocap, &c->oom, fmt, ap);
    va_end(ap);
}

/* Start an output line; records where it came from. */
static void begin_line(struct ctx *c, const struct conv_sass_line_src *src)
{
    if (c->nmap == c->mapcap) {
        uint32_t nc = c->mapcap ? c->mapcap * 2 : 256;
        struct conv_sass_line_src *nm = realloc(c->map, nc * sizeof *nm);
        if (!nm) {
            c->oom = 1;
            return;
        }
        c->map = nm;
        c->mapcap = nc;
    }
    struct conv_sass_line_src z = {0};
    c->map[c->nmap++] = src ? *src : z;
}

static void indent(struct ctx *c, int depth)
{
    put(c, "%*s", 2 * depth + 2, "");
}

static void line_at(struct ctx *c, const struct sinst *in, int depth, const char *fmt, ...)
{
    struct conv_sass_line_src src = {.sass_line = in ? in->line : 0, .out_col = 1,
                                .sass_col = in ? in->col : 1};
    begin_line(c, &src);
    indent(c, depth);
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(c, "%s\n", buf);
}

/* The control bits of an instruction as native-trace attributes
 * (docs/trace-format.md "Control bits").  ctrl = hi >> 41 (bits 105..125 of
 * the 128-bit instruction; layout in shared/reference/modern-sm-core.md §1,
 * checked on the committed H200 SASS, docs/sass-converter.md): 0-3 stall,
 * 4 yield, 5-7 write counter, 8-10 read counter, 11-16 wait mask, 17-20 reuse.
 * The encoded bit 4 is set where the compiler wants the warp to keep issuing
 * (every stall-1 instruction of the committed SASS has it) and clear where it
 * may switch: the attribute is its inverse, yield=1 meaning "switch". */
static void emit_ctl(struct ctx *c, uint64_t hi)
{
    unsigned ctrl = (unsigned)(hi >> 41);
    unsigned wb = (ctrl >> 5) & 7, rb = (ctrl >> 8) & 7, wait = (ctrl >> 11) & 0x3f;
    unsigned reuse = (ctrl >> 17) & 0xf;
    put(c, " stall=%u", ctrl & 15);
    if (!((ctrl >> 4) & 1))
        put(c, " yield=1");
    if (wb != TR_SB_NONE)
        put(c, " wbar=%u", wb);
    if (rb != TR_SB_NONE)
        put(c, " rbar=%u", rb);
    if (wait)
        put(c, " wait=0x%02x", wait);
    if (reuse)
        put(c, " reuse=0x%x", reuse);
}

static void emit_inst(struct ctx *c, uint32_t i, int depth, const char *override_text,
                      const char *note)
{
    struct sinst *in = &c->in[i];
    struct conv_sass_line_src src = {.sass_line = in->line, .sass_col = in->col};
    size_t start = c->olen;
    indent(c, depth);
    put(c, "/*%04" PRIx32 "*/ ", i * 16);
    src.out_col = (uint16_t)(c->olen - start + 1);
    if (override_text)
        src.sass_line = 0;
    put(c, "%s ;", override_text ? override_text : in->text);
    if (in->annot >= 0 && !override_text) {
        const struct annot *a = &c->an[in->annot];
        put(c, " ");
        src.attr_col = (uint16_t)(c->olen - start + 1);
        src.annot_line = a->line;
        src.annot_col = a->acol;
        put(c, "%s", a->attrs);
        if (a->addr[0]) {
            char e[1024]; /* the annotation's < 200 characters, each imm at most 21 */
            if (subst_imm(a->addr, conv_sass_imm(in->text), e, sizeof e))
                c->oom = 1; /* cannot happen: see the bound above */
            else
                put(c, "%saddr=%s", a->attrs[0] ? " " : "", e);
        }
    }
    if (in->has_hi)
        emit_ctl(c, in->hi);
    if (note)
        put(c, "  # %s", note);
    put(c, "\n");
    begin_line(c, &src);
}

/* Executions of a node's body (counts): the root runs once per warp, a loop
 * body as often as its back edge, a region as often as its first direct
 * instruction (one outside any child), else as its parent. */
static int64_t node_exec(struct ctx *c, int k)
{
    const struct node *d = &c->nd[k];
    if (d->kind == N_ROOT)
        return c->warps;
    if (d->kind == N_LOOP)
        return c->in[d->br].count;
    if (c->in[d->lo].count == 0)
        return 0; /* its entry never executes (counts; -1 = no counts) */
    int ch = d->first;
    for (uint32_t i = d->lo; i <= d->hi; i++) {
        while (ch >= 0 && c->nd[ch].hi < i)
            ch = c->nd[ch].next;
        if (ch >= 0 && c->nd[ch].lo <= i) {
            i = c->nd[ch].hi;
            continue;
        }
        if (c->in[i].reach)
            return c->in[i].count;
    }
    return node_exec(c, d->parent);
}

static int emit_node(struct ctx *c, int k, int depth, int in_loop, int *exited);

/* Emit [lo, hi] of node k (its children in place).  *exited: the sequence
 * ended with an unguarded EXIT. */
static int emit_seq(struct ctx *c, int k, uint32_t lo, uint32_t hi, int depth, int in_loop,
                    int *exited)
{
    int ch = c->nd[k].first;
    char a[16], b[16];
    *exited = 0;
    for (uint32_t i = lo; i <= hi;) {
        while (ch >= 0 && c->nd[ch].lo < i)
            ch = c->nd[ch].next;
        if (ch >= 0 && c->nd[ch].lo == i) {
            int ex = 0;
            if (emit_node(c, ch, depth, in_loop, &ex))
                return -1;
            i = c->nd[ch].hi + 1;
            ch = c->nd[ch].next;
            if (ex) {
                *exited = 1;
                return 0;
            }
            continue;
        }
        struct sinst *in = &c->in[i];
        if (!in->reach) {
            i++;
            continue;
        }
        if (in->ctl == C_UNSUPPORTED || in->ctl == C_CALL)
            return unsupported(c, i);
        if (in->ctl == C_EXIT_COND) {
            const struct conv_sass_ctl *t = find_ctl(c->o->takes, c->o->ntakes, c->take_used, i);
            int64_t tv = 0;
            int tconst = t && take_const(c, t->value, &tv);
            if ((tconst && tv) ||
                (!t && in->count > 0 && i + 1 < c->n && c->in[i + 1].count == 0)) {
                /* every warp that gets here leaves: the stream ends */
                if (in_loop)
                    return serr(c, in, in->opcol,
                                "%s at %s: every warp leaves at a guarded EXIT inside a loop "
                                "(not supported in a native trace)", t ? "--take" : "counts",
                                addr_s(i, a));
                char nt[160];
                snprintf(nt, sizeof nt, "%s: every warp leaves (%s)", in->text,
                         t ? "--take" : "counts: the next instruction executes 0 times");
                emit_inst(c, i, depth, "EXIT", nt);
                if (!t)
                    note(c, "%s %s: every warp leaves (counts: %" PRId64 " executions, the "
                         "next instruction 0)", addr_s(i, a), in->text, in->count);
                *exited = 1;
                return 0;
            }
            if (tconst) { /* a constant 0: a lane exit, as without --take */
                emit_inst(c, i, depth, NULL, NULL);
                i++;
                continue;
            }
            if (!t && in->count >= 0 && i + 1 < c->n && c->in[i + 1].count != in->count)
                return serr(c, in, in->opcol,
                            "counts: %" PRId64 " of %" PRId64 " warp-executions leave at the "
                            "guarded EXIT at %s; give --take %s=EXPR (the warps that leave)",
                            in->count - c->in[i + 1].count, in->count, addr_s(i, a),
                            addr_s(i, b));
            if (t) {
                if (in_loop)
                    return serr(c, in, in->opcol,
                                "--take %s: a guarded EXIT inside a loop cannot end warps in a "
                                "native trace", addr_s(i, a));
                line_at(c, in, depth, "when %s {  # %s %s: these warps leave (--take)", t->value,
                        addr_s(i, a), in->text);
                char note[96];
                snprintf(note, sizeof note, "%s taken: the warp leaves", in->text);
                emit_inst(c, i, depth + 1, "EXIT", note);
                line_at(c, in, depth, "}");
            }
            emit_inst(c, i, depth, NULL, NULL);
            i++;
            continue;
        }
        if (in->ctl == C_EXIT && in_loop)
            return serr(c, in, in->opcol, "EXIT inside the loop ending at %s is not supported",
                        addr_s(in_loop - 1, a));
        emit_inst(c, i, depth, NULL, NULL);
        if (in->ctl == C_EXIT) {
            *exited = 1;
            return 0;
        }
        if (in->ctl == C_JMP && in->target > i) {
            i = in->target; /* what it skips is dead (checked in build_tree) */
            continue;
        }
        i++;
    }
    return 0;
}

static int emit_node(struct ctx *c, int k, int depth, int in_loop, int *exited)
{
    const struct node *d = &c->nd[k];
    struct sinst *br = &c->in[d->br];
    char a[16], b[16], e[16];
    *exited = 0;
    if (d->kind == N_LOOP) {
        const struct conv_sass_ctl *t = find_ctl(c->o->trips, c->o->ntrips, c->trip_used, d->br);
        char trips[160], why[200];
        if (t) {
            snprintf(trips, sizeof trips, "%s", t->value);
            snprintf(why, sizeof why, "--trip %s=%s", addr_s(d->br, a), t->value);
        } else if (br->count >= 0) {
            int64_t parent = node_exec(c, d->parent);
            if (parent <= 0 || br->count % parent || br->count / parent < 1)
                return serr(c, br, br->opcol,
                            "counts: the back edge at %s executes %" PRId64 " times for %" PRId64
                            " entries of its enclosing block (not a whole number of trips per "
                            "entry); give --trip %s=N",
                            addr_s(d->br, a), br->count, parent, addr_s(d->br, b));
            snprintf(trips, sizeof trips, "%" PRId64, br->count / parent);
            snprintf(why, sizeof why, "trips from counts: %" PRId64 " / %" PRId64, br->count,
                     parent);
            note(c, "%s loop %s..%s: %s trips (counts: back edge %" PRId64 " / %" PRId64
                 " entries)", addr_s(d->br, e), addr_s(d->lo, a), addr_s(d->hi, b), trips,
                 br->count, parent);
        } else {
            return serr(c, br, br->opcol,
                        "the loop %s..%s has no trip count (give --trip %s=N or --counts)",
                        addr_s(d->lo, a), addr_s(d->br, b), addr_s(d->br, e));
        }
        line_at(c, br, depth, "loop %s {  # %s..%s, %s", trips, addr_s(d->lo, a),
                addr_s(d->hi, b), why);
        int ex;
        if (emit_seq(c, k, d->lo, d->hi, depth + 1, (int)d->br + 1, &ex))
            return -1;
        line_at(c, br, depth, "}");
        return 0;
    }
    /* Forward branch at d->br: SKIP (region d) or IFELSE (children THEN, ELSE). */
    const struct conv_sass_ctl *t = find_ctl(c->o->takes, c->o->ntakes, c->take_used, d->br);
    int then_k = -1, else_k = -1;
    if (d->kind == N_IFELSE) {
        then_k = d->first;
        else_k = c->nd[then_k].next;
    }
    enum { KEEP_THEN, KEEP_ELSE, WHEN } mode = KEEP_THEN;
    const char *why = "default: not taken";
    int64_t tv;
    if (t && take_const(c, t->value, &tv)) {
        /* a constant: one side only, the other is off the path (reach) */
        mode = tv ? KEEP_ELSE : KEEP_THEN;
        why = tv ? "--take: always taken" : "--take: never taken";
    } else if (t) {
        mode = WHEN;
    } else if (br->count >= 0) {
        int64_t ct = node_exec(c, d->kind == N_IFELSE ? then_k : k);
        int64_t ce = d->kind == N_IFELSE ? node_exec(c, else_k) : br->count - ct;
        if (ct == br->count && (d->kind != N_IFELSE || ce == 0)) {
            mode = KEEP_THEN;
            why = "counts: never taken";
        } else if (ct == 0) {
            mode = KEEP_ELSE;
            why = "counts: always taken";
            if (c->ntaken++ < 16) /* listed in emit(), one line for all */
                snprintf(c->taken + strlen(c->taken), sizeof c->taken - strlen(c->taken),
                         "%s%s", c->ntaken > 1 ? ", " : "", addr_s(d->br, a));
        } else {
            return serr(c, br, br->opcol,
                        "counts: the branch at %s is taken in %" PRId64 " of %" PRId64
                        " warp-executions; give --take %s=EXPR (the warps that take it)",
                        addr_s(d->br, a), br->count - ct, br->count, addr_s(d->br, b));
        }
    }
    if (d->kind == N_SKIP) {
        if (mode == KEEP_THEN)
            return emit_seq(c, k, d->lo, d->hi, depth, in_loop, exited);
        if (mode == KEEP_ELSE) {
            line_at(c, br, depth, "# %s..%s dropped: the branch at %s is always taken (%s)",
                    addr_s(d->lo, a), addr_s(d->hi, b), addr_s(d->br, e), why);
            return 0;
        }
        line_at(c, br, depth, "when !(%s) {  # %s..%s: skipped by the warps taking %s (--take)",
                t->value, addr_s(d->lo, a), addr_s(d->hi, b), addr_s(d->br, e));
        int ex;
        if (emit_seq(c, k, d->lo, d->hi, depth + 1, in_loop, &ex))
            return -1;
        line_at(c, br, depth, "}");
        return 0;
    }
    const struct node *tn = &c->nd[then_k], *en = &c->nd[else_k];
    if (mode == KEEP_THEN) {
        if (emit_seq(c, then_k, tn->lo, tn->hi, depth, in_loop, exited))
            return -1;
        line_at(c, br, depth, "# else-part %s..%s dropped: the branch at %s is not taken (%s)",
                addr_s(en->lo, a), addr_s(en->hi, b), addr_s(d->br, e), why);
        return 0;
    }
    if (mode == KEEP_ELSE) {
        line_at(c, br, depth, "# then-part %s..%s dropped: the branch at %s is always taken (%s)",
                addr_s(tn->lo, a), addr_s(tn->hi, b), addr_s(d->br, e), why);
        return emit_seq(c, else_k, en->lo, en->hi, depth, in_loop, exited);
    }
    int ex;
    line_at(c, br, depth, "when !(%s) {  # then-part %s..%s (warps not taking %s, --take)",
            t->value, addr_s(tn->lo, a), addr_s(tn->hi, b), addr_s(d->br, e));
    if (emit_seq(c, then_k, tn->lo, tn->hi, depth + 1, in_loop, &ex))
        return -1;
    line_at(c, br, depth, "} else {  # else-part %s..%s", addr_s(en->lo, a), addr_s(en->hi, b));
    if (emit_seq(c, else_k, en->lo, en->hi, depth + 1, in_loop, &ex))
        return -1;
    line_at(c, br, depth, "}");
    return 0;
}

static int emit(struct ctx *c)
{
    const struct conv_sass_opts *o = c->o;
    const struct tr_launch *l = &o->launch;
    begin_line(c, NULL);
    put(c, "# Generated by `smsim sass2trace` from %s, function %s\n", o->sass_path, c->fname);
    begin_line(c, NULL);
    put(c, "# (instructions verbatim from the listing; see docs/sass-converter.md)\n");
    if (o->counts_path) {
        begin_line(c, NULL);
        put(c, "# counts: %s (%" PRId64 " warps profiled)\n", o->counts_path, c->warps);
    }
    if (o->annot_path) {
        begin_line(c, NULL);
        put(c, "# annotations: %s\n", o->annot_path);
    }
    begin_line(c, NULL);
    put(c, "kernel %s grid=(%u,%u,%u) block=(%u,%u,%u) regs=%d smem_static=%d smem_dynamic=%d",
        c->fname, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
        l->regs, l->smem_static, l->smem_dynamic);
    if (o->barriers >= 0)
        put(c, " barriers=%d", o->barriers);
    put(c, " {\n");
    int ex;
    if (emit_seq(c, 0, 0, c->n - 1, 0, 0, &ex))
        return -1;
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < c->n; i++)
        dropped += !c->in[i].sreach;
    if (dropped) {
        begin_line(c, NULL);
        put(c, "  # %u unreachable instructions dropped (the BRA-to-itself after EXIT, NOP "
               "padding)\n", dropped);
    }
    begin_line(c, NULL);
    put(c, "}\n");
    if (c->ntaken)
        note(c, "%d forward branch%s always taken (counts: the code skipped executes 0 times): "
             "%s%s", c->ntaken, c->ntaken == 1 ? "" : "es", c->taken,
             c->ntaken > 16 ? ", ..." : "");
    for (int k = 0; k < o->ntrips; k++)
        if (!c->trip_used[k])
            return uerr(c, "--trip 0x%" PRIx32 ": no loop closes there (give the address of a "
                           "loop's backward branch)", o->trips[k].pc);
    for (int k = 0; k < o->ntakes; k++)
        if (!c->take_used[k])
            return uerr(c, "--take 0x%" PRIx32 ": not a forward conditional branch or guarded "
                           "EXIT that is converted", o->takes[k].pc);
    if (c->oom)
        return uerr(c, "out of memory");
    return 0;
}

/* ---------- API ---------- */

int conv_sass_convert(const struct conv_sass_opts *o, struct conv_sass_result *r,
                      char err[TRACE_ERR_MAX])
{
    memset(r, 0, sizeof *r);
    struct ctx c = {.o = o, .err = err};
    int status = -1;
    c.trip_used = calloc((size_t)o->ntrips + 1, sizeof(int));
    c.take_used = calloc((size_t)o->ntakes + 1, sizeof(int));
    if (!c.trip_used || !c.take_used) {
        uerr(&c, "out of memory");
        goto done;
    }
    if (read_sass(&c) || (o->counts_path && read_counts(&c)) || reach(&c) || build_tree(&c))
        goto done;
    if (o->counts_path && check_counts(&c))
        goto done;
    if (o->annot_path && read_annot(&c))
        goto done;
    if (emit(&c))
        goto done;
    r->text = c.out;
    r->len = c.olen;
    c.out = NULL;
    r->map = c.map;
    r->nmap = c.nmap;
    c.map = NULL;
    r->notes = c.notes;
    c.notes = NULL;
    snprintf(r->name, sizeof r->name, "%s", c.fname);
    snprintf(r->sass_path, sizeof r->sass_path, "%s", o->sass_path);
    snprintf(r->annot_path, sizeof r->annot_path, "%s", o->annot_path ? o->annot_path : "");
    snprintf(r->counts_path, sizeof r->counts_path, "%s", o->counts_path ? o->counts_path : "");
    if (o->counts_path) {
        uint64_t tot = 0;
        for (uint32_t i = 0; i < c.n; i++)
            tot += c.in[i].count > 0 ? (uint64_t)c.in[i].count : 0;
        r->counts_total = tot;
        r->counts_warps = (uint64_t)c.warps;
    }
    status = 0;
done:
    for (uint32_t i = 0; i < c.n; i++)
        free(c.in[i].text);
    free(c.in);
    free(c.nd);
    free(c.an);
    free(c.trip_used);
    free(c.take_used);
    free(c.out);
    free(c.map);
    free(c.notes);
    return status;
}

int conv_sass_listing_read(const struct conv_sass_opts *o, struct conv_sass_listing *l,
                           char err[TRACE_ERR_MAX])
{
    memset(l, 0, sizeof *l);
    struct ctx c = {.o = o, .err = err, .whole = 1};
    int status = -1;
    if (read_sass(&c) || (o->counts_path && read_counts(&c)) || reach(&c))
        goto done;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct sinst *s = &c.in[i];
        if (s->reach && (s->ctl == C_UNSUPPORTED || (s->ctl == C_CALL && !o->calls_skipped))) {
            unsupported(&c, i);
            goto done;
        }
    }
    if (o->counts_path && check_counts(&c))
        goto done;
    l->in = calloc(c.n, sizeof *l->in);
    if (!l->in) {
        uerr(&c, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < c.n; i++) {
        struct conv_sass_insn *d = &l->in[i];
        const struct sinst *s = &c.in[i];
        d->line = s->line;
        d->col = s->col;
        d->text = s->text;
        c.in[i].text = NULL; /* moved */
        memcpy(d->opcode, s->opcode, sizeof d->opcode);
        d->flow = s->ctl;
        d->pred = s->pred;
        d->target = s->target;
        d->reach = s->reach;
        d->count = s->count;
    }
    l->n = c.n;
    snprintf(l->name, sizeof l->name, "%s", c.fname);
    l->warps = o->counts_path ? c.warps : 0;
    status = 0;
done:
    for (uint32_t i = 0; i < c.n; i++)
        free(c.in[i].text);
    free(c.in);
    return status;
}

void conv_sass_listing_free(struct conv_sass_listing *l)
{
    for (uint32_t i = 0; l->in && i < l->n; i++)
        free(l->in[i].text);
    free(l->in);
    memset(l, 0, sizeof *l);
}

int conv_sass_succ(const struct conv_sass_listing *l, uint32_t i, uint32_t succ[2])
{
    struct sinst s = {.ctl = l->in[i].flow, .target = l->in[i].target};
    return succ_of(&s, i, succ);
}

void conv_sass_result_free(struct conv_sass_result *r)
{
    free(r->text);
    free(r->map);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

uint64_t conv_sass_kernel_insts(struct trace_kernel *k)
{
    uint64_t blocks = tr_grid_blocks(&k->launch), tot = 0;
    uint32_t warps = tr_warps_per_block(&k->launch);
    for (uint64_t b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < warps; w++) {
            uint64_t n = tr_warp_insts(k, (uint32_t)b, w);
            tot = (n > UINT64_MAX - tot) ? UINT64_MAX : tot + n;
        }
    return tot;
}

/* "path:L:C: msg" of the native reader -> the .sass / annotation position. */
static void map_error(const struct conv_sass_result *r, const char *path, char err[TRACE_ERR_MAX])
{
    size_t pl = strlen(path);
    if (strncmp(err, path, pl) || err[pl] != ':')
        return;
    char *end;
    unsigned long line = strtoul(err + pl + 1, &end, 10);
    if (*end != ':')
        return;
    unsigned long col = strtoul(end + 1, &end, 10);
    if (strncmp(end, ": ", 2) || line == 0 || line > r->nmap)
        return;
    const struct conv_sass_line_src *m = &r->map[line - 1];
    char msg[TRACE_ERR_MAX];
    snprintf(msg, sizeof msg, "%s", end + 2);
    int w = 0;
    if (m->annot_line && col >= m->attr_col)
        w = snprintf(err, TRACE_ERR_MAX, "%s:%u:%lu: %s", r->annot_path, m->annot_line,
                     col - m->attr_col + m->annot_col, msg);
    else if (m->sass_line)
        w = snprintf(err, TRACE_ERR_MAX, "%s:%u:%lu: %s", r->sass_path, m->sass_line,
                     col >= m->out_col ? col - m->out_col + m->sass_col : m->sass_col, msg);
    if (w >= TRACE_ERR_MAX)
        err[TRACE_ERR_MAX - 1] = 0;
}

int conv_sass_verify(const struct conv_sass_result *r, const char *path, uint64_t *total,
                     char err[TRACE_ERR_MAX])
{
    struct trace_file *t = trace_open(path, err);
    if (!t) {
        map_error(r, path, err);
        return -1;
    }
    uint64_t tot = 0, warps = 0;
    for (int k = 0; k < t->nkernels; k++) {
        struct trace_kernel *kk = t->kernels[k];
        tot += conv_sass_kernel_insts(kk);
        warps += tr_grid_blocks(&kk->launch) * tr_warps_per_block(&kk->launch);
    }
    trace_close(t);
    *total = tot;
    if (r->counts_warps && r->counts_warps == warps && r->counts_total != tot) {
        snprintf(err, TRACE_ERR_MAX,
                 "%s:1:1: counts CSV mismatch: the counts add up to %" PRIu64 " warp-instructions "
                 "over %" PRIu64 " warps, the converted trace executes %" PRIu64
                 " for the same launch (a branch or loop is not what the counts show)",
                 r->counts_path, r->counts_total, warps, tot);
        return -1;
    }
    return 0;
}
