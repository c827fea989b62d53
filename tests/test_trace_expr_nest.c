/* test_trace_expr_nest.c — the nesting cap of the expression parser
 * (trace_expr.c NEST_MAX = 64).  Parentheses, conditionals and prefix
 * operators recurse without emitting code, so before the cap a trip count of
 * a few thousand '(' overflowed the C stack (found by fuzzing,
 * tests/data/crashers/native/expr-nested-parens-stack-overflow.trace).
 * Counting: the whole expression is level 1; each '(', each argument of
 * min/max, each conditional branch and each prefix operator opens one more.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "trace/trace_expr.h"

static const struct tr_expr_launch L = {.blocks = 4, .warps = 2, .gx = 4, .gy = 1, .gz = 1};

/* Parse s: 0 and *v, or -1 with msg and *ep. */
static int parse(const char *s, int64_t *v, char *msg, size_t msgsz, size_t *ep)
{
    struct tr_expr e;
    size_t pos = 0;
    if (tr_expr_parse(s, &pos, &L, &e, msg, msgsz, ep))
        return -1;
    assert_int_equal(pos, strlen(s));
    struct tr_expr_env env = {.block = 3, .warp = 1, .gx = L.gx, .gy = L.gy};
    *v = tr_expr_eval(e.code, e.n, &env);
    return 0;
}

/* n '(' , body, n ')' */
static void parens(char *out, int n, const char *body)
{
    memset(out, '(', (size_t)n);
    size_t bl = strlen(body);
    memcpy(out + n, body, bl);
    memset(out + n + bl, ')', (size_t)n);
    out[2 * n + bl] = '\0';
}

static void test_parens(void **state)
{
    (void)state;
    char s[20000], msg[256];
    int64_t v;
    size_t ep = 0;
    parens(s, 63, "block + 1"); /* levels 1 + 63 = 64: accepted */
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), 0);
    assert_int_equal(v, 4);
    parens(s, 64, "block + 1"); /* 65 levels */
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), -1);
    assert_string_equal(msg, "expression nested deeper than 64 levels");
    assert_int_equal(ep, 64); /* just inside the 64th '(' */
    parens(s, 5000, "1"); /* the fuzzer's case, far beyond the cap */
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), -1);
    assert_int_equal(ep, 64);
}

static void test_prefix_and_min(void **state)
{
    (void)state;
    char s[20000], msg[256];
    int64_t v;
    size_t ep = 0;
    memset(s, '-', 63); /* 63 negations of warp: levels 1 + 63 */
    strcpy(s + 63, "warp");
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), 0);
    assert_int_equal(v, -1);
    memset(s, '-', 64);
    strcpy(s + 64, "warp");
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), -1);
    assert_string_equal(msg, "expression nested deeper than 64 levels");
    assert_int_equal(ep, 63); /* the 64th '-' */
    /* min(min(...min(7, 9)..., 9), 9): each first argument one level deeper
     * (constants fold as they close, so the code stays one literal) */
    size_t n = 0;
    for (int i = 0; i < 63; i++)
        n += (size_t)snprintf(s + n, sizeof s - n, "min(");
    n += (size_t)snprintf(s + n, sizeof s - n, "7");
    for (int i = 0; i < 63; i++)
        n += (size_t)snprintf(s + n, sizeof s - n, ", 9)");
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), 0);
    assert_int_equal(v, 7);
    memmove(s + 4, s, n + 1); /* one more "min(" ... ", 9)" */
    memcpy(s, "min(", 4);
    strcat(s, ", 9)");
    assert_int_equal(parse(s, &v, msg, sizeof msg, &ep), -1);
    assert_string_equal(msg, "expression nested deeper than 64 levels");
    assert_int_equal(ep, 4 * 64);
    /* (A conditional emits its condition and branches before folding, so
     * TR_EXPR_MAX operations stop a chain of them before this cap.) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parens),
        cmocka_unit_test(test_prefix_and_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
