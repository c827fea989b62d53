/* test_stats_names.c — warp-state names and grid letters, stats_find,
 * allocation of the counters.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "stats/stats.h"

static void test_names(void **state)
{
    /* ncu's stall-reason suffixes, in enum order. */
    static const char *const want[WS_COUNT] = {
        "selected", "not_selected", "wait", "long_scoreboard", "short_scoreboard",
        "math_pipe_throttle", "mio_throttle", "lg_throttle", "barrier", "membar",
        "branch_resolving", "no_instruction", "dispatch_stall", "drain", "imc_miss"
    };
    for (int i = 0; i < WS_COUNT; i++)
        assert_string_equal(stats_state_name(i), want[i]);
    assert_string_equal(stats_state_name(-1), "unknown");
    assert_string_equal(stats_state_name(WS_COUNT), "unknown");
}

static void test_letters(void **state)
{
    /* One distinct printable letter per state; '.' (empty slot) and '?' unused. */
    for (int i = 0; i < WS_COUNT; i++) {
        char c = stats_state_letter(i);
        assert_true((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
        for (int j = 0; j < i; j++)
            assert_int_not_equal(c, stats_state_letter(j));
    }
    assert_int_equal(stats_state_letter(WS_SELECTED), 'S');
    assert_int_equal(stats_state_letter(WS_NOT_SELECTED), 'e');
    assert_int_equal(stats_state_letter(WS_LONG_SCOREBOARD), 'L');
    assert_int_equal(stats_state_letter(WS_COUNT), '?');
}

static void test_find(void **state)
{
    const struct stats_metric m[] = {
        { "a.sum", "inst", 1 }, { "a.sum.per_second", "inst/second", 2 }, { "b", "", 3 }
    };
    assert_ptr_equal(stats_find(m, 3, "a.sum"), &m[0]);
    assert_ptr_equal(stats_find(m, 3, "b"), &m[2]);
    assert_null(stats_find(m, 3, "a"));
    assert_null(stats_find(m, 2, "b"));
    assert_null(stats_find(m, 0, "a.sum"));
}

static void test_init_free(void **state)
{
    struct stats_kernel s;
    assert_int_equal(stats_kernel_init(&s, 3, 4), 0);
    assert_int_equal(s.sm_count, 3);
    assert_int_equal(s.smsp_per_sm, 4);
    assert_non_null(s.sm);
    assert_non_null(s.smsp);
    for (int i = 0; i < 12; i++)
        assert_int_equal(s.smsp[i].cycles_active + s.smsp[i].state[WS_DRAIN], 0);
    assert_int_equal(s.cycles_elapsed, 0);
    stats_kernel_free(&s);
    assert_null(s.sm);
    assert_null(s.smsp);
    stats_kernel_free(&s); /* twice is harmless */
    assert_int_equal(stats_kernel_init(&s, 0, 4), -1);
    assert_null(s.sm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_letters),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_init_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
