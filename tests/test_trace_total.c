/* test_trace_total.c — the counts behind the instruction limit
 * (tr_kernel_insts_total, docs/trace-format.md "Instruction totals"):
 *  - tr_expr_range() contains every value an expression takes over a box of
 *    blocks and warps (hand-picked expressions, then 3,000 generated ones
 *    with every operator, wrapping constants and divisors that can be 0);
 *  - a native kernel's per-warp bound is at least every warp's count, and
 *    the total is the brute-force sum, exact up to the limit, a lower bound
 *    above it that is already past the limit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "trace/trace.h"
#include "trace/trace_expr.h"
#include "trace/trace_native.h"

/* grid (6, 2, 2) of blocks of 4 warps */
static const struct tr_expr_launch L = {.blocks = 24, .warps = 4, .gx = 6, .gy = 2, .gz = 2};

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* A random expression of depth <= d into buf (the grammar of trip counts). */
static void gen(char *buf, size_t n, int d)
{
    static const char *const leaf[] = { "block", "warp", "bx", "by", "bz", "blocks", "warps",
                                        "3", "1", "7", "1000000007", "0x7fffffffffffffff",
                                        "4611686018427387904", "0x40000000" };
    static const char *const bin[] = { "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">",
                                       ">=", "==", "!=", "&", "^", "|", "&&", "||" };
    if (d == 0 || rnd(4) == 0) {
        snprintf(buf, n, "%s", leaf[rnd(sizeof leaf / sizeof *leaf)]);
        return;
    }
    char a[512], b[512], c[512];
    gen(a, sizeof a, d - 1);
    gen(b, sizeof b, d - 1);
    switch (rnd(6)) {
    case 0: snprintf(buf, n, "-(%s)", a); break;
    case 1: snprintf(buf, n, "%s(%s)", rnd(2) ? "!" : "~", a); break;
    case 2: snprintf(buf, n, "%s(%s, %s)", rnd(2) ? "min" : "max", a, b); break;
    case 3:
        gen(c, sizeof c, d - 1);
        snprintf(buf, n, "(%s) ? (%s) : (%s)", a, b, c);
        break;
    default: {
        const char *op = bin[rnd(sizeof bin / sizeof *bin)];
        /* a literal 0 divisor is a parse error; warp - 1 is 0 for warp 1 */
        if (!strcmp(op, "/") || !strcmp(op, "%"))
            snprintf(buf, n, "(%s) %s ((%s) - 1)", a, op, rnd(2) ? "warp" : b);
        else
            snprintf(buf, n, "(%s) %s (%s)", a, op, b);
    }
    }
}

/* Every value of s over blocks [b0, b1] and all warps lies in its range.
 * 0 when s does not parse (too long for TR_EXPR_MAX). */
static int check_range(const char *s, int64_t b0, int64_t b1)
{
    struct tr_expr e;
    char msg[256];
    size_t pos = 0, ep = 0;
    if (tr_expr_parse(s, &pos, &L, &e, msg, sizeof msg, &ep) || s[pos])
        return 0;
    struct tr_expr_box box = { b0, b1, 0, L.warps - 1, L.gx, L.gy };
    int64_t lo, hi;
    tr_expr_range(e.code, e.n, &box, &lo, &hi);
    for (int64_t b = b0; b <= b1; b++)
        for (int64_t w = 0; w < L.warps; w++) {
            struct tr_expr_env env = { .block = b, .warp = w, .gx = L.gx, .gy = L.gy };
            int64_t v = tr_expr_eval(e.code, e.n, &env);
            if (v < lo || v > hi)
                fail_msg("'%s' = %lld at block %lld warp %lld, outside [%lld, %lld]", s,
                         (long long)v, (long long)b, (long long)w, (long long)lo,
                         (long long)hi);
        }
    return 1;
}

static void test_range_fixed(void **state)
{
    (void)state;
    static const char *const ex[] = {
        "block", "warp * 3 - bx", "(warp * 3 - bx) % 7", "by << 2", "bz * 12 + by * 6 + bx",
        "-block", "~warp", "!warp", "block / (warp - 1)", "block % (warp - 1)", "-7 / (warp - 1)",
        "min(blocks - block, 5)", "max(-warp, ~block)", "warp ? 3 : block", "block & 5",
        "block | warp", "block ^ 12", "(block & 1) || warp > 2", "!(bx ^ by)", "block >> warp",
        "-block >> 1", "block * 0x7fffffffffffffff", "0x7fffffffffffffff + block",
        "-0x7fffffffffffffff - 1 - block", "(block - 3) * -1000000007", "warp == 2",
        "block != block", "block - block", "1 << 62 << warp",
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        if (!check_range(ex[i], 0, L.blocks - 1))
            fail_msg("'%s' does not parse", ex[i]);
        assert_true(check_range(ex[i], 7, 7));
        assert_true(check_range(ex[i], 5, 13));
    }
    /* known values decide: the range is exact for these */
    struct tr_expr e;
    char msg[256];
    size_t pos = 0, ep = 0;
    assert_int_equal(tr_expr_parse("block < 100 ? warp + 1 : 1000", &pos, &L, &e, msg,
                                   sizeof msg, &ep), 0);
    struct tr_expr_box box = { 0, 23, 0, 3, 6, 2 };
    int64_t lo, hi;
    tr_expr_range(e.code, e.n, &box, &lo, &hi);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 4);
}

static void test_range_generated(void **state)
{
    (void)state;
    int parsed = 0;
    for (int i = 0; i < 3000; i++) {
        char s[4096];
        gen(s, sizeof s, 4);
        int64_t b0 = rnd(24), b1 = b0 + rnd((uint32_t)(24 - b0));
        parsed += check_range(s, b0, b1);
    }
    assert_true(parsed > 2000); /* most fit TR_EXPR_MAX */
}

static struct trace_file *open_text(const char *text)
{
    struct trace_file *t = calloc(1, sizeof *t);
    char err[TRACE_ERR_MAX];
    assert_non_null(t);
    if (trace_native_open_mem("total.trace", text, strlen(text), t, err))
        fail_msg("%s\n%s", err, text);
    return t;
}

/* The brute-force sum of kernel k's warps. */
static uint64_t brute(struct trace_kernel *k)
{
    uint64_t s = 0, ub = k->ops->warp_bound(k);
    for (uint32_t b = 0; b < tr_grid_blocks(&k->launch); b++)
        for (uint32_t w = 0; w < tr_warps_per_block(&k->launch); w++) {
            uint64_t c = tr_warp_insts(k, b, w);
            if (c > ub)
                fail_msg("warp (%u, %u): %llu instructions above the bound %llu", b, w,
                         (unsigned long long)c, (unsigned long long)ub);
            s += c;
        }
    return s;
}

static void check_totals(struct trace_kernel *k, const char *text)
{
    uint64_t want = brute(k);
    struct tr_total t;
    assert_int_equal(tr_kernel_insts_total(k, 0, 1, &t), 0); /* no limit, exact */
    if (t.n != want || t.kind != TR_TOTAL_EXACT)
        fail_msg("total %llu (kind %d), brute force %llu:\n%s", (unsigned long long)t.n,
                 t.kind, (unsigned long long)want, text);
    assert_int_equal(tr_kernel_insts_total(k, want, 0, &t), 0); /* at the limit: runs */
    assert_true(t.n >= want);
    assert_int_equal(tr_kernel_insts_total(k, want, 1, &t), 0);
    assert_int_equal(t.n, want);
    if (want > 1) {
        uint64_t lim = want - 1 - rnd((uint32_t)(want - 1 < 50 ? want - 1 : 50));
        if (lim == 0)
            lim = 1;
        assert_int_equal(tr_kernel_insts_total(k, lim, 0, &t), 1); /* above: refused */
        assert_true(t.n > lim && t.n <= want);
        if (t.kind == TR_TOTAL_EXACT)
            assert_int_equal(t.n, want);
    }
}

static void test_totals(void **state)
{
    (void)state;
    int kernels = 0;
    for (int i = 0; i < 400; i++) {
        char e1[1024], e2[1024], e3[1024], text[8192];
        gen(e1, sizeof e1, 2);
        gen(e2, sizeof e2, 2);
        gen(e3, sizeof e3, 2);
        /* small trip counts: the brute force walks every warp; (x) % 5
         * keeps them small, when/else chains and nesting vary the paths */
        snprintf(text, sizeof text,
                 "kernel k grid=(6,2,2) block=(128,1,1) regs=16 smem_static=0 smem_dynamic=0 {\n"
                 "  MOV R1, R2\n"
                 "  loop ((%s) + warp * 0) %% 5 {\n    FFMA R1, R2, R3, R4\n"
                 "    when (%s) & 1 {\n      loop ((%s) + block * 0) %% 3 {\n"
                 "        IADD3 R1, R2, R3, RZ\n"
                 "      }\n    } else {\n      NOP\n      NOP\n    }\n  }\n"
                 "  when warp == 1 {\n    FFMA R1, R2, R3, R4\n  } else when (%s) %% 2 {\n"
                 "    MOV R1, R2\n  }\n  EXIT\n}\n", e1, e2, e3, e1);
        struct tr_expr ex;
        char msg[256];
        size_t pos = 0, ep = 0;
        /* skip expressions the trip count cannot hold (too long) */
        char probe[1200];
        snprintf(probe, sizeof probe, "((%s) + warp * 0) %% 5", e1);
        if (tr_expr_parse(probe, &pos, &L, &ex, msg, sizeof msg, &ep))
            continue;
        pos = 0;
        snprintf(probe, sizeof probe, "((%s) + block * 0) %% 3", e3);
        if (tr_expr_parse(probe, &pos, &L, &ex, msg, sizeof msg, &ep))
            continue;
        pos = 0;
        snprintf(probe, sizeof probe, "(%s) & 1", e2);
        if (tr_expr_parse(probe, &pos, &L, &ex, msg, sizeof msg, &ep))
            continue;
        struct trace_file *t = open_text(text);
        check_totals(t->kernels[0], text);
        kernels++;
        trace_close(t);
    }
    assert_true(kernels > 250);
}

/* The hand-written traces of tests/data/insts: the counts their comments
 * derive. */
static void test_hand(void **state)
{
    (void)state;
    struct trace_file *t = open_text(
        "kernel bywarp grid=(6,1,1) block=(128,1,1) regs=16 smem_static=0 smem_dynamic=0 {\n"
        "  loop (warp + 1) * 10 + bx % 3 {\n    FFMA R2, R2, R3, R4\n  }\n  EXIT\n}\n");
    struct tr_total tt;
    assert_int_equal(tr_kernel_insts_total(t->kernels[0], 0, 1, &tt), 0);
    assert_int_equal(tt.n, 648);
    assert_int_equal(tt.kind, TR_TOTAL_EXACT);
    /* per warp at most (3 + 1) * 10 + 2 + 1 = 43: 24 warps x 43 = 1,032 */
    assert_int_equal(t->kernels[0]->ops->warp_bound(t->kernels[0]), 43);
    assert_int_equal(tr_kernel_insts_total(t->kernels[0], 2000, 0, &tt), 0);
    assert_int_equal(tt.kind, TR_TOTAL_UPPER);
    assert_int_equal(tt.n, 1032);
    assert_int_equal(tr_kernel_insts_total(t->kernels[0], 647, 0, &tt), 1);
    assert_int_equal(tt.n, 648);
    assert_int_equal(tt.kind, TR_TOTAL_EXACT);
    trace_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_fixed),
        cmocka_unit_test(test_range_generated),
        cmocka_unit_test(test_totals),
        cmocka_unit_test(test_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
