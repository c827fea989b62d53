/* test_trace_expr.c — trip-count / condition expressions.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "trace/trace_expr.h"

static const struct tr_expr_launch L = {.blocks = 24, .warps = 4, .gx = 6, .gy = 2, .gz = 2};

static int64_t ev(const char *s, int64_t block, int64_t warp, int *is_const)
{
    struct tr_expr e;
    char msg[256];
    size_t pos = 0, ep = 0;
    if (tr_expr_parse(s, &pos, &L, &e, msg, sizeof msg, &ep))
        fail_msg("'%s': %s at %zu", s, msg, ep);
    if (s[pos] != '\0' && s[pos] != '{')
        fail_msg("'%s': stopped at %zu", s, pos);
    struct tr_expr_env env = {.block = block, .warp = warp, .gx = L.gx, .gy = L.gy};
    int64_t v = tr_expr_eval(e.code, e.n, &env);
    if (e.is_const)
        assert_int_equal(v, e.value);
    if (is_const)
        *is_const = e.is_const;
    return v;
}

static void test_constants(void **state)
{
    (void)state;
    int c;
    assert_int_equal(ev("1 + 2 * 3", 0, 0, &c), 7);
    assert_true(c);
    assert_int_equal(ev("(1 + 2) * 3", 0, 0, NULL), 9);
    assert_int_equal(ev("10 - 4 - 3", 0, 0, NULL), 3);       /* left associative */
    assert_int_equal(ev("-7 / 2", 0, 0, NULL), -3);           /* truncates */
    assert_int_equal(ev("-7 % 2", 0, 0, NULL), -1);
    assert_int_equal(ev("1 << 4 >> 2", 0, 0, NULL), 4);
    assert_int_equal(ev("-16 >> 2", 0, 0, NULL), -4);         /* arithmetic */
    assert_int_equal(ev("3 < 4 == 1", 0, 0, NULL), 1);
    assert_int_equal(ev("6 & 3 | 8 ^ 1", 0, 0, NULL), 11);   /* (6&3) | (8^1) */
    assert_int_equal(ev("!0 + ~0", 0, 0, NULL), 0);
    assert_int_equal(ev("1 && 0 || 2", 0, 0, NULL), 1);
    assert_int_equal(ev("0 ? 1 : 0 ? 2 : 3", 0, 0, NULL), 3); /* right associative */
    assert_int_equal(ev("min(3, 9) + max(3, 9)", 0, 0, NULL), 12);
    assert_int_equal(ev("64K + 1M + 1G", 0, 0, NULL), 65536 + 1048576 + 1073741824);
    assert_int_equal(ev("0x10 + 1_000", 0, 0, NULL), 1016);
    assert_int_equal(ev("blocks * warps + gx + gy + gz", 0, 0, &c), 24 * 4 + 10);
    assert_true(c);
    assert_int_equal(ev("9223372036854775807 + 1", 0, 0, NULL), INT64_MIN); /* wraps */
    assert_int_equal(ev("4096 {", 0, 0, NULL), 4096);          /* stops before '{' */
}

static void test_dynamic(void **state)
{
    (void)state;
    int c;
    const char *e = "(block % 4 == 3 ? 100 : 400)";
    assert_int_equal(ev(e, 3, 0, &c), 100);
    assert_false(c);
    assert_int_equal(ev(e, 4, 0, NULL), 400);
    assert_int_equal(ev("(block + 1) * (warp + 1)", 5, 2, NULL), 18);
    /* block = bx + gx*(by + gy*bz): block 23 = (5, 1, 1) */
    assert_int_equal(ev("bx * 100 + by * 10 + bz", 23, 0, NULL), 511);
    assert_int_equal(ev("bx * 100 + by * 10 + bz", 7, 0, NULL), 110);
    assert_int_equal(ev("block == blocks - 1 && warp >= 2", 23, 3, NULL), 1);
    assert_int_equal(ev("block == blocks - 1 && warp >= 2", 22, 3, NULL), 0);
    assert_int_equal(ev("min(16, 100 - 16 * block)", 6, 0, NULL), 4);
    /* run-time division by zero is defined as 0 */
    assert_int_equal(ev("100 / block + 7 % block", 0, 0, NULL), 0);
    /* a constant condition keeps only the chosen branch but stays dynamic */
    assert_int_equal(ev("1 ? warp : 5", 0, 3, &c), 3);
    assert_false(c);
}

static void expect_fail(const char *s, size_t at, const char *msg)
{
    struct tr_expr e;
    char got[256];
    size_t pos = 0, ep = 999;
    if (!tr_expr_parse(s, &pos, &L, &e, got, sizeof got, &ep))
        fail_msg("'%s' parsed", s);
    assert_string_equal(got, msg);
    assert_int_equal(ep, at);
}

static void test_errors(void **state)
{
    (void)state;
    expect_fail("", 0, "expected an expression");
    expect_fail("  {", 2, "expected an expression");
    expect_fail("1 +", 3, "expected an expression");
    expect_fail("(1 + 2", 6, "expected ')' in expression");
    expect_fail("blok", 0, "unknown name 'blok' in expression (expected block, warp, bx, by, "
                           "bz, blocks, warps, gx, gy, gz, min, max)");
    expect_fail("block / 0", 6, "division by zero");
    expect_fail("block % (2 - 2)", 6, "division by zero");
    expect_fail("12abc", 0, "bad number '12abc'");
    expect_fail("99999999999999999999", 0, "number too large '99999999999999999999'");
    expect_fail("1 ? 2", 5, "expected ':' in conditional expression");
    expect_fail("min(1 2)", 6, "expected ',' in min/max");
    expect_fail("max 1", 4, "expected '(' after min/max");
    expect_fail("1 + $", 4, "unexpected '$' in expression");
    char big[512] = "block";
    for (int i = 0; i < 40; i++)
        strcat(big, " + block");
    expect_fail(big, 262, "expression too long (at most 64 operations)");
}

static void test_numbers(void **state)
{
    (void)state;
    uint64_t v;
    size_t p = 0;
    assert_int_equal(tr_parse_number("4G", &p, &v), 0);
    assert_int_equal(v, 4ull << 30);
    assert_int_equal(p, 2);
    p = 0;
    assert_int_equal(tr_parse_number("0xFFff_ffff", &p, &v), 0);
    assert_int_equal(v, 0xffffffffu);
    p = 0;
    assert_int_equal(tr_parse_number("_1", &p, &v), -1);
    assert_int_equal(tr_parse_number("0x", &p, &v), -1);
    assert_int_equal(tr_parse_number("1__0", &p, &v), -1);
    assert_int_equal(tr_parse_number("5k", &p, &v), -1);
    assert_int_equal(tr_parse_number("18446744073709551616", &p, &v), -2);
    assert_int_equal(tr_parse_number("17179869184G", &p, &v), -2);
    assert_int_equal(p, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_dynamic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
