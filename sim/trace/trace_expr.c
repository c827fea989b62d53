/* trace_expr.c — integer expressions over block/warp indices.
 *
 * Recursive descent with C precedence emits postfix code; every operation
 * whose operands are constants is folded on the spot, so an expression that
 * does not mention block, warp, bx, by, bz or a loop index (i0..i7, only in
 * addr= expressions) ends as a single literal.
 * Evaluation walks the code with a fixed stack of TR_EXPR_MAX entries (code
 * length bounds stack depth), so it cannot overflow and never allocates.
 * Parsing recurses per parenthesis, min/max argument, conditional and prefix
 * operator, which emit no code of their own ("((((1))))", "- - - 1"), so
 * their nesting is capped separately (NEST_MAX): found by fuzzing, a few
 * thousand '(' in one line overflowed the C stack.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include "trace/trace_expr.h"

enum {
    OP_PUSH, OP_BLOCK, OP_WARP, OP_BX, OP_BY, OP_BZ,
    OP_NEG, OP_NOT, OP_BNOT,
    OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_SHL, OP_SHR,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_BAND, OP_BXOR, OP_BOR, OP_LAND, OP_LOR, OP_MIN, OP_MAX,
    OP_TERN,
    OP_ITER /* loop index: code.val = K of iK */
};

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

int tr_parse_number(const char *s, size_t *pos, uint64_t *out)
{
    size_t p = *pos;
    uint64_t v = 0;
    int base = 10, ndig = 0, overflow = 0;
    if (s[p] == '0' && (s[p + 1] == 'x' || s[p + 1] == 'X')) {
        base = 16;
        p += 2;
    }
    for (;; p++) {
        char c = s[p];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else if (c == '_' && ndig > 0 && is_word(s[p + 1]) && s[p + 1] != '_')
            continue;
        else
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            overflow = 1;
        v = v * (uint64_t)base + (uint64_t)d;
        ndig++;
    }
    if (ndig == 0)
        return -1;
    int shift = 0;
    if (s[p] == 'K')
        shift = 10, p++;
    else if (s[p] == 'M')
        shift = 20, p++;
    else if (s[p] == 'G')
        shift = 30, p++;
    if (is_word(s[p]))
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        overflow = 1;
    if (overflow)
        return -2;
    *out = v << shift;
    *pos = p;
    return 0;
}

/* Arithmetic with defined results for every input (wraps, x/0 = x%0 = 0). */
static int64_t apply2(int op, int64_t a, int64_t b)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case OP_MUL: return (int64_t)(ua * ub);
    case OP_DIV:
        if (b == 0) return 0;
        if (b == -1) return (int64_t)(0 - ua);
        return a / b;
    case OP_MOD:
        if (b == 0 || b == -1) return 0;
        return a % b;
    case OP_ADD: return (int64_t)(ua + ub);
    case OP_SUB: return (int64_t)(ua - ub);
    case OP_SHL: return (int64_t)(ua << (ub & 63));
    case OP_SHR: {
        unsigned sh = (unsigned)(ub & 63);
        return a < 0 ? (int64_t)~(~ua >> sh) : (int64_t)(ua >> sh);
    }
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_BAND: return (int64_t)(ua & ub);
    case OP_BXOR: return (int64_t)(ua ^ ub);
    case OP_BOR: return (int64_t)(ua | ub);
    case OP_LAND: return a && b;
    case OP_LOR: return a || b;
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    default: return 0;
    }
}

static int64_t apply1(int op, int64_t a)
{
    switch (op) {
    case OP_NEG: return (int64_t)(0 - (uint64_t)a);
    case OP_NOT: return !a;
    case OP_BNOT: return (int64_t)~(uint64_t)a;
    default: return a;
    }
}

int64_t tr_expr_eval(const struct tr_expr_op *code, int n, const struct tr_expr_env *env)
{
    int64_t st[TR_EXPR_MAX];
    int sp = 0;
    for (int i = 0; i < n; i++) {
        int op = code[i].op;
        switch (op) {
        case OP_PUSH: st[sp++] = code[i].val; break;
        case OP_BLOCK: st[sp++] = env->block; break;
        case OP_WARP: st[sp++] = env->warp; break;
        case OP_BX: st[sp++] = env->block % env->gx; break;
        case OP_BY: st[sp++] = (env->block / env->gx) % env->gy; break;
        case OP_BZ: st[sp++] = env->block / (env->gx * env->gy); break;
        case OP_ITER: {
            int k = (int)code[i].val;
            st[sp++] = (int64_t)env->trips[k] - (int64_t)env->left[k];
            break;
        }
        case OP_NEG: case OP_NOT: case OP_BNOT:
            st[sp - 1] = apply1(op, st[sp - 1]);
            break;
        case OP_TERN:
            sp -= 2;
            st[sp - 1] = st[sp - 1] ? st[sp] : st[sp + 1];
            break;
        default:
            sp--;
            st[sp - 1] = apply2(op, st[sp - 1], st[sp]);
            break;
        }
    }
    return sp > 0 ? st[sp - 1] : 0;
}

/* ------------------------------------------------------- value bounds */

struct iv {
    int64_t lo, hi;
};

static const struct iv IV_FULL = { INT64_MIN, INT64_MAX };
static const struct iv IV_BOOL = { 0, 1 };

static struct iv iv_pt(int64_t v) { return (struct iv){ v, v }; }
static int64_t mn(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t mx(int64_t a, int64_t b) { return a > b ? a : b; }
/* 1: every value is non-zero, 0: every value is 0, -1: either */
static int iv_truth(struct iv a)
{
    if (a.lo == 0 && a.hi == 0)
        return 0;
    return a.lo > 0 || a.hi < 0 ? 1 : -1;
}
static struct iv iv_known(int t) { return t < 0 ? IV_BOOL : iv_pt(t); }
static struct iv iv_join(struct iv a, struct iv b)
{
    return (struct iv){ mn(a.lo, b.lo), mx(a.hi, b.hi) };
}

/* The corners of a x b for an operation monotone in each operand on the
 * box (multiplication; division by a range without 0), or IV_FULL when one
 * overflows (the evaluator wraps there, to any value). */
static struct iv iv_corners(int op, struct iv a, struct iv b)
{
    int64_t v[4], x[2] = { a.lo, a.hi }, y[2] = { b.lo, b.hi };
    for (int i = 0; i < 4; i++) {
        int64_t p = x[i >> 1], q = y[i & 1];
        if (op == OP_MUL) {
            if (__builtin_mul_overflow(p, q, &v[i]))
                return IV_FULL;
        } else {
            if (p == INT64_MIN && q == -1)
                return IV_FULL;
            v[i] = p / q;
        }
    }
    return (struct iv){ mn(mn(v[0], v[1]), mn(v[2], v[3])), mx(mx(v[0], v[1]), mx(v[2], v[3])) };
}

static int64_t ashr(int64_t a, unsigned sh)
{
    uint64_t ua = (uint64_t)a;
    return a < 0 ? (int64_t)~(~ua >> sh) : (int64_t)(ua >> sh);
}

/* Smallest 2^k - 1 >= v (v >= 0). */
static int64_t fill_ones(int64_t v)
{
    int64_t m = 0;
    while (m < v)
        m = m * 2 + 1;
    return m;
}

static struct iv iv2(int op, struct iv a, struct iv b)
{
    struct iv r;
    switch (op) {
    case OP_ADD:
        if (__builtin_add_overflow(a.lo, b.lo, &r.lo) || __builtin_add_overflow(a.hi, b.hi, &r.hi))
            return IV_FULL;
        return r;
    case OP_SUB:
        if (__builtin_sub_overflow(a.lo, b.hi, &r.lo) || __builtin_sub_overflow(a.hi, b.lo, &r.hi))
            return IV_FULL;
        return r;
    case OP_MUL:
        return iv_corners(OP_MUL, a, b);
    case OP_DIV: {
        /* x / 0 is 0; otherwise monotone on each sign of the divisor */
        int have = 0;
        r = iv_pt(0);
        if (b.lo <= 0 && b.hi >= 0)
            have = 1;
        if (b.lo <= -1) {
            struct iv q = iv_corners(OP_DIV, a, (struct iv){ b.lo, mn(b.hi, -1) });
            r = have ? iv_join(r, q) : q;
            have = 1;
        }
        if (b.hi >= 1) {
            struct iv q = iv_corners(OP_DIV, a, (struct iv){ mx(b.lo, 1), b.hi });
            r = have ? iv_join(r, q) : q;
        }
        return r;
    }
    case OP_MOD: {
        /* |a % b| < |b| and <= |a|, with a's sign; 0 for b = 0 or -1 */
        if (b.lo == INT64_MIN || a.lo == INT64_MIN)
            return IV_FULL;
        int64_t m = mx(b.lo < 0 ? -b.lo : b.lo, b.hi < 0 ? -b.hi : b.hi);
        if (m <= 1)
            return iv_pt(0);
        r.lo = a.lo >= 0 ? 0 : mx(a.lo, -(m - 1));
        r.hi = a.hi <= 0 ? 0 : mn(a.hi, m - 1);
        return r;
    }
    case OP_SHL:
        if (a.lo < 0 || b.lo < 0 || b.hi > 62 || a.hi > (INT64_MAX >> b.hi))
            return IV_FULL;
        return (struct iv){ a.lo << b.lo, a.hi << b.hi };
    case OP_SHR: {
        /* the count is masked to 0..63; for a fixed count the shift is
         * monotone in a, and a's sign fixes which count is extreme */
        unsigned s0 = 0, s1 = 63;
        if (b.lo >= 0 && b.hi <= 63) {
            s0 = (unsigned)b.lo;
            s1 = (unsigned)b.hi;
        }
        r.lo = mn(ashr(a.lo, s0), ashr(a.lo, s1));
        r.hi = mx(ashr(a.hi, s0), ashr(a.hi, s1));
        return r;
    }
    case OP_LT: return a.hi < b.lo ? iv_pt(1) : a.lo >= b.hi ? iv_pt(0) : IV_BOOL;
    case OP_LE: return a.hi <= b.lo ? iv_pt(1) : a.lo > b.hi ? iv_pt(0) : IV_BOOL;
    case OP_GT: return a.lo > b.hi ? iv_pt(1) : a.hi <= b.lo ? iv_pt(0) : IV_BOOL;
    case OP_GE: return a.lo >= b.hi ? iv_pt(1) : a.hi < b.lo ? iv_pt(0) : IV_BOOL;
    case OP_EQ:
    case OP_NE: {
        int t = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo ? 1
                : a.hi < b.lo || b.hi < a.lo ? 0 : -1;
        if (op == OP_NE && t >= 0)
            t = !t;
        return iv_known(t);
    }
    case OP_BAND:
        if (a.lo >= 0 && b.lo >= 0)
            return (struct iv){ 0, mn(a.hi, b.hi) };
        if (a.lo >= 0 || b.lo >= 0)
            return (struct iv){ 0, a.lo >= 0 ? a.hi : b.hi };
        return IV_FULL;
    case OP_BOR:
    case OP_BXOR:
        if (a.lo >= 0 && b.lo >= 0)
            return (struct iv){ 0, fill_ones(mx(a.hi, b.hi)) };
        return IV_FULL;
    case OP_LAND: {
        int x = iv_truth(a), y = iv_truth(b);
        return iv_known(x == 0 || y == 0 ? 0 : x == 1 && y == 1 ? 1 : -1);
    }
    case OP_LOR: {
        int x = iv_truth(a), y = iv_truth(b);
        return iv_known(x == 1 || y == 1 ? 1 : x == 0 && y == 0 ? 0 : -1);
    }
    case OP_MIN: return (struct iv){ mn(a.lo, b.lo), mn(a.hi, b.hi) };
    case OP_MAX: return (struct iv){ mx(a.lo, b.lo), mx(a.hi, b.hi) };
    default: return IV_FULL;
    }
}

void tr_expr_range(const struct tr_expr_op *code, int n, const struct tr_expr_box *box,
                   int64_t *lo, int64_t *hi)
{
    struct iv st[TR_EXPR_MAX];
    int sp = 0;
    int64_t gx = box->gx > 0 ? box->gx : 1, gy = box->gy > 0 ? box->gy : 1;
    int64_t b0 = box->block_lo, b1 = box->block_hi;
    for (int i = 0; i < n; i++) {
        int op = code[i].op;
        struct iv v;
        switch (op) {
        case OP_PUSH: st[sp++] = iv_pt(code[i].val); break;
        case OP_BLOCK: st[sp++] = (struct iv){ b0, b1 }; break;
        case OP_WARP: st[sp++] = (struct iv){ box->warp_lo, box->warp_hi }; break;
        case OP_BX:
            /* within one row of the grid bx follows block, else any column */
            st[sp++] = b0 / gx == b1 / gx ? (struct iv){ b0 % gx, b1 % gx }
                                          : (struct iv){ 0, gx - 1 };
            break;
        case OP_BY: {
            int64_t r0 = b0 / gx, r1 = b1 / gx;
            st[sp++] = r0 / gy == r1 / gy ? (struct iv){ r0 % gy, r1 % gy }
                                          : (struct iv){ 0, gy - 1 };
            break;
        }
        case OP_BZ:
            st[sp++] = (struct iv){ b0 / (gx * gy), b1 / (gx * gy) };
            break;
        case OP_ITER: st[sp++] = IV_FULL; break;
        case OP_NEG:
            v = st[sp - 1];
            st[sp - 1] = v.lo == INT64_MIN ? IV_FULL : (struct iv){ -v.hi, -v.lo };
            break;
        case OP_NOT: {
            int t = iv_truth(st[sp - 1]);
            st[sp - 1] = iv_known(t < 0 ? -1 : !t);
            break;
        }
        case OP_BNOT:
            v = st[sp - 1];
            st[sp - 1] = (struct iv){ ~v.hi, ~v.lo };
            break;
        case OP_TERN: {
            sp -= 2;
            int t = iv_truth(st[sp - 1]);
            st[sp - 1] = t == 1 ? st[sp] : t == 0 ? st[sp + 1] : iv_join(st[sp], st[sp + 1]);
            break;
        }
        default:
            sp--;
            st[sp - 1] = iv2(op, st[sp - 1], st[sp]);
            break;
        }
    }
    struct iv r = sp > 0 ? st[sp - 1] : iv_pt(0);
    *lo = r.lo;
    *hi = r.hi;
}

/* ------------------------------------------------------------------ parser */

struct ps {
    const char *s;                  /* text                                   */
    size_t pos;                     /* cursor                                 */
    const struct tr_expr_launch *l; /* launch constants                       */
    struct tr_expr *e;              /* output                                 */
    char *msg;                      /* error message buffer                   */
    size_t msgsz;                   /* its size                               */
    size_t errpos;                  /* error position                         */
    int depth;                      /* nesting of ( ?: min max and prefix ops */
};

/* Deepest nesting of parentheses, conditionals, min/max and prefix
 * operators: far beyond any expression whose code fits TR_EXPR_MAX
 * operations, and a few kB of C stack. */
enum { NEST_MAX = 64 };

static int fail(struct ps *p, size_t at, const char *m)
{
    snprintf(p->msg, p->msgsz, "%s", m);
    p->errpos = at;
    return -1;
}

static void skip_ws(struct ps *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
        p->pos++;
}

static int emit(struct ps *p, int op, int64_t val)
{
    if (p->e->n >= TR_EXPR_MAX)
        return fail(p, p->pos, "expression too long (at most 64 operations)");
    p->e->code[p->e->n].op = (uint8_t)op;
    p->e->code[p->e->n].val = val;
    p->e->n++;
    return 0;
}

static int is_lit(const struct ps *p, int start, int end)
{
    return end - start == 1 && p->e->code[start].op == OP_PUSH;
}

/* Fold a binary op whose operands occupy [a, b) and [b, n). */
static int binop(struct ps *p, int op, int a, int b, size_t oppos)
{
    struct tr_expr *e = p->e;
    if ((op == OP_DIV || op == OP_MOD) && is_lit(p, b, e->n) && e->code[b].val == 0)
        return fail(p, oppos, "division by zero");
    if (is_lit(p, a, b) && is_lit(p, b, e->n)) {
        e->code[a].val = apply2(op, e->code[a].val, e->code[b].val);
        e->n = a + 1;
        return 0;
    }
    return emit(p, op, 0);
}

static int parse_ternary(struct ps *p);

/* Enter one nesting level at s[at], or fail when that is too deep. */
static int nest(struct ps *p, size_t at)
{
    if (p->depth >= NEST_MAX) {
        char m[64];
        snprintf(m, sizeof m, "expression nested deeper than %d levels", NEST_MAX);
        return fail(p, at, m);
    }
    p->depth++;
    return 0;
}

static int accept(struct ps *p, const char *tok)
{
    skip_ws(p);
    size_t n = strlen(tok);
    if (strncmp(p->s + p->pos, tok, n))
        return 0;
    p->pos += n;
    return 1;
}

static int parse_primary(struct ps *p)
{
    skip_ws(p);
    size_t at = p->pos;
    char c = p->s[at];
    if (c >= '0' && c <= '9') {
        uint64_t v;
        int r = tr_parse_number(p->s, &p->pos, &v);
        if (r == 0 && v > (uint64_t)INT64_MAX)
            r = -2;
        if (r) {
            size_t end = at;
            while (is_word(p->s[end]))
                end++;
            char m[96];
            snprintf(m, sizeof m, "%s '%.*s'", r == -2 ? "number too large" : "bad number",
                     (int)(end - at > 40 ? 40 : end - at), p->s + at);
            return fail(p, at, m);
        }
        return emit(p, OP_PUSH, (int64_t)v);
    }
    if (c == '(') {
        p->pos++;
        if (parse_ternary(p))
            return -1;
        if (!accept(p, ")"))
            return fail(p, p->pos, "expected ')' in expression");
        return 0;
    }
    if (is_word(c)) {
        size_t end = at;
        while (is_word(p->s[end]))
            end++;
        size_t len = end - at;
        const char *w = p->s + at;
        p->pos = end;
#define IS(x) (len == sizeof(x) - 1 && !strncmp(w, x, len))
        if (IS("block")) return emit(p, OP_BLOCK, 0);
        if (IS("warp")) return emit(p, OP_WARP, 0);
        if (IS("bx")) return emit(p, OP_BX, 0);
        if (IS("by")) return emit(p, OP_BY, 0);
        if (IS("bz")) return emit(p, OP_BZ, 0);
        if (IS("blocks")) return emit(p, OP_PUSH, p->l->blocks);
        if (IS("warps")) return emit(p, OP_PUSH, p->l->warps);
        if (IS("gx")) return emit(p, OP_PUSH, p->l->gx);
        if (IS("gy")) return emit(p, OP_PUSH, p->l->gy);
        if (IS("gz")) return emit(p, OP_PUSH, p->l->gz);
        if (len == 2 && w[0] == 'i' && w[1] >= '0' && w[1] <= '9') {
            int k = w[1] - '0';
            if (k < p->l->loops)
                return emit(p, OP_ITER, k);
            char m[200];
            if (p->l->loops == 0)
                snprintf(m, sizeof m, "loop index '%.*s' out of scope: no enclosing loop here "
                         "(i0..i7 name the trips of an instruction's enclosing loops, in addr= "
                         "only)", (int)len, w);
            else if (p->l->loops == 1)
                snprintf(m, sizeof m, "loop index '%.*s' out of scope: this instruction is "
                         "inside 1 loop (i0)", (int)len, w);
            else
                snprintf(m, sizeof m, "loop index '%.*s' out of scope: this instruction is "
                         "inside %d loops (i0..i%d)", (int)len, w, p->l->loops,
                         p->l->loops - 1);
            return fail(p, at, m);
        }
        if (IS("min") || IS("max")) {
            int op = IS("min") ? OP_MIN : OP_MAX;
            if (!accept(p, "("))
                return fail(p, p->pos, "expected '(' after min/max");
            int a = p->e->n;
            if (parse_ternary(p))
                return -1;
            if (!accept(p, ","))
                return fail(p, p->pos, "expected ',' in min/max");
            int b = p->e->n;
            if (parse_ternary(p))
                return -1;
            if (!accept(p, ")"))
                return fail(p, p->pos, "expected ')' in expression");
            return binop(p, op, a, b, at);
        }
#undef IS
        char m[200];
        snprintf(m, sizeof m,
                 "unknown name '%.*s' in expression (expected block, warp, bx, by, bz, "
                 "blocks, warps, gx, gy, gz, min, max%s)", (int)(len > 40 ? 40 : len), w,
                 p->l->loops ? ", i0..i7" : "");
        return fail(p, at, m);
    }
    if (c == '\0' || c == '{' || c == '}')
        return fail(p, at, "expected an expression");
    char m[64];
    snprintf(m, sizeof m, "unexpected '%c' in expression", c);
    return fail(p, at, m);
}

static int parse_unary(struct ps *p)
{
    skip_ws(p);
    char c = p->s[p->pos];
    int op = c == '-' ? OP_NEG : c == '!' ? OP_NOT : c == '~' ? OP_BNOT : c == '+' ? -1 : -2;
    if (op == -2)
        return parse_primary(p);
    if (nest(p, p->pos))
        return -1;
    p->pos++;
    int a = p->e->n;
    int r = parse_unary(p);
    p->depth--;
    if (r)
        return -1;
    if (op == -1)
        return 0;
    if (is_lit(p, a, p->e->n)) {
        p->e->code[a].val = apply1(op, p->e->code[a].val);
        return 0;
    }
    return emit(p, op, 0);
}

/* Binary levels, loosest last.  Longer tokens first within a level. */
struct binlevel {
    const char *tok[4]; /* operator spellings                              */
    int op[4];          /* their operations                                */
};
static const struct binlevel levels[] = {
    {{"*", "/", "%", NULL}, {OP_MUL, OP_DIV, OP_MOD, 0}},
    {{"+", "-", NULL, NULL}, {OP_ADD, OP_SUB, 0, 0}},
    {{"<<", ">>", NULL, NULL}, {OP_SHL, OP_SHR, 0, 0}},
    {{"<=", ">=", "<", ">"}, {OP_LE, OP_GE, OP_LT, OP_GT}},
    {{"==", "!=", NULL, NULL}, {OP_EQ, OP_NE, 0, 0}},
    {{"&", NULL, NULL, NULL}, {OP_BAND, 0, 0, 0}},
    {{"^", NULL, NULL, NULL}, {OP_BXOR, 0, 0, 0}},
    {{"|", NULL, NULL, NULL}, {OP_BOR, 0, 0, 0}},
    {{"&&", NULL, NULL, NULL}, {OP_LAND, 0, 0, 0}},
    {{"||", NULL, NULL, NULL}, {OP_LOR, 0, 0, 0}},
};

/* Is the operator at s an exact match (not the prefix of a longer one)? */
static int op_here(const char *s, const char *tok)
{
    size_t n = strlen(tok);
    if (strncmp(s, tok, n))
        return 0;
    char next = s[n];
    if (n == 1 && (tok[0] == '&' || tok[0] == '|') && next == tok[0])
        return 0; /* & vs &&, | vs || */
    if (n == 1 && (tok[0] == '<' || tok[0] == '>') && (next == '=' || next == tok[0]))
        return 0;
    return 1;
}

static int parse_level(struct ps *p, int lv)
{
    if (lv < 0)
        return parse_unary(p);
    int a = p->e->n;
    if (parse_level(p, lv - 1))
        return -1;
    for (;;) {
        skip_ws(p);
        int op = -1;
        size_t at = p->pos;
        for (int i = 0; i < 4 && levels[lv].tok[i]; i++) {
            if (op_here(p->s + p->pos, levels[lv].tok[i])) {
                op = levels[lv].op[i];
                p->pos += strlen(levels[lv].tok[i]);
                break;
            }
        }
        if (op < 0)
            return 0;
        int b = p->e->n;
        if (parse_level(p, lv - 1))
            return -1;
        if (binop(p, op, a, b, at))
            return -1;
    }
}

static int ternary(struct ps *p);

static int parse_ternary(struct ps *p)
{
    if (nest(p, p->pos))
        return -1;
    int r = ternary(p);
    p->depth--;
    return r;
}

static int ternary(struct ps *p)
{
    int a = p->e->n;
    if (parse_level(p, (int)(sizeof levels / sizeof levels[0]) - 1))
        return -1;
    skip_ws(p);
    if (p->s[p->pos] != '?')
        return 0;
    p->pos++;
    int b = p->e->n;
    if (parse_ternary(p))
        return -1;
    if (!accept(p, ":"))
        return fail(p, p->pos, "expected ':' in conditional expression");
    int c = p->e->n;
    if (parse_ternary(p))
        return -1;
    struct tr_expr *e = p->e;
    if (is_lit(p, a, b)) {
        /* Constant condition: keep only the chosen branch. */
        int from = e->code[a].val ? b : c, to = e->code[a].val ? c : e->n;
        memmove(&e->code[a], &e->code[from], (size_t)(to - from) * sizeof e->code[0]);
        e->n = a + (to - from);
        return 0;
    }
    return emit(p, OP_TERN, 0);
}

int tr_expr_parse(const char *s, size_t *pos, const struct tr_expr_launch *l,
                  struct tr_expr *out, char *msg, size_t msgsz, size_t *errpos)
{
    struct ps p = {s, *pos, l, out, msg, msgsz, 0, 0};
    out->n = 0;
    if (parse_ternary(&p)) {
        *errpos = p.errpos;
        return -1;
    }
    out->is_const = is_lit(&p, 0, out->n);
    out->value = out->is_const ? out->code[0].val : 0;
    *pos = p.pos;
    return 0;
}
