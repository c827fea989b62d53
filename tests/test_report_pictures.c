/* test_report_pictures.c — --grid letters and --timeline JSON from synthetic
 * observer calls (what engine_run would report).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "report/report.h"

/* 2 SMs, 4 SMSPs, 8 warps per SM -> 2 slots per SMSP; 1000 MHz (the
 * timeline's times are cycles whatever the clock). */
static void test_arch(struct arch *a)
{
    memset(a, 0, sizeof *a);
    strcpy(a->name, "Pic GPU");
    a->sm_count = 2;
    a->sm_clock_mhz = 1000.0;
    a->subpartitions = 4;
    a->max_warps_per_sm = 8;
    a->max_blocks_per_sm = 4;
}

static char *grid_text(const struct report_grid *g, const char *title)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_grid_print(g, title, f);
    fclose(f);
    /* A copy: gcc's -Wdangling-pointer mistakes pointers into the
     * open_memstream buffer for pointers to the local `buf`. */
    char *copy = strdup(buf);
    free(buf);
    assert_non_null(copy);
    return copy;
}

static void test_grid(void **state)
{
    struct arch a;
    test_arch(&a);
    struct report_grid *g = report_grid_new(&a, 12);
    assert_non_null(g);
    /* SMSP 0 slot 0: issued 2 cycles, waits on memory 3, then eligible 1. */
    report_grid_warp_state(g, 0, 0, 0, 0, 0, 0, 2, WS_SELECTED);
    report_grid_warp_state(g, 0, 0, 0, 0, 0, 2, 5, WS_LONG_SCOREBOARD);
    report_grid_warp_state(g, 0, 0, 0, 0, 0, 5, 6, WS_NOT_SELECTED);
    /* SMSP 1 slot 1: a barrier from cycle 3, past the window (clipped). */
    report_grid_warp_state(g, 0, 1, 1, 1, 4, 3, 20, WS_BARRIER);
    /* SMSP 3 slot 0: a wait then a drain. */
    report_grid_warp_state(g, 0, 3, 0, 2, 1, 10, 11, WS_WAIT);
    report_grid_warp_state(g, 0, 3, 0, 2, 1, 11, 12, WS_DRAIN);
    /* Ignored: another SM, beyond the window, out-of-range slot/SMSP. */
    report_grid_warp_state(g, 1, 2, 0, 0, 0, 0, 12, WS_MEMBAR);
    report_grid_warp_state(g, 0, 2, 1, 0, 0, 12, 30, WS_MEMBAR);
    report_grid_warp_state(g, 0, 2, 2, 0, 0, 0, 12, WS_MEMBAR);
    report_grid_warp_state(g, 0, 4, 0, 0, 0, 0, 12, WS_MEMBAR);

    char *t = grid_text(g, "kernel 0 'k'");
    assert_non_null(strstr(t, "Warp-state grid: kernel 0 'k', SM 0, cycles 0..11"));
    assert_non_null(strstr(t, "\n  smsp0 w00 SSLLLe......\n"));
    assert_non_null(strstr(t, "\n  smsp1 w01 ...BBBBBBBBB\n"));
    assert_non_null(strstr(t, "\n  smsp3 w00 ..........wD\n"));
    assert_null(strstr(t, "smsp2"));          /* never occupied: no row */
    assert_null(strstr(t, "smsp1 w00"));
    /* Ruler: cycle numbers every 10 columns, aligned with the rows. */
    assert_non_null(strstr(t, "\n            0         10\n            |         |\n  smsp0 w00 "));
    /* Legend names every state and the empty slot. */
    assert_non_null(strstr(t, "e eligible, not selected"));
    assert_non_null(strstr(t, "L long_scoreboard"));
    assert_non_null(strstr(t, ". no warp in the slot"));
    for (int s = 0; s < WS_COUNT; s++)
        if (s != WS_NOT_SELECTED)
            assert_non_null(strstr(t, stats_state_name(s)));
    free(t);

    report_grid_reset(g);
    t = grid_text(g, "kernel 1 'k2'");
    assert_null(strstr(t, "smsp0 w00"));
    free(t);
    report_grid_free(g);
}

/* More than 100 cycles wrap into bands of 100 columns. */
static void test_grid_bands(void **state)
{
    struct arch a;
    test_arch(&a);
    struct report_grid *g = report_grid_new(&a, 150);
    report_grid_warp_state(g, 0, 0, 0, 0, 0, 0, 150, WS_WAIT);
    char *t = grid_text(g, "k");
    const char *b1 = strstr(t, "\n  smsp0 w00 ");
    assert_non_null(b1);
    assert_int_equal(strcspn(b1 + 1, "\n"), 12 + 100);
    const char *b2 = strstr(b1 + 1, "\n  smsp0 w00 ");
    assert_non_null(b2);
    assert_int_equal(strcspn(b2 + 1, "\n"), 12 + 50);
    assert_non_null(strstr(t, "\n            100       110       120       130       140\n"));
    free(t);
    report_grid_free(g);
}

static int have_python(void)
{
    return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

static char *timeline_json(const struct report_timeline *tl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(report_timeline_write(tl, "Pic GPU", f), 0);
    fclose(f);
    return buf;
}

/* Runs a python check on the JSON; returns its exit status. */
static int py_check(const char *json, const char *script)
{
    char path[] = "/tmp/smsim_tl_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(json, f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 -m json.tool %s >/dev/null && python3 -c '%s' %s",
             path, script, path);
    int rc = system(cmd);
    unlink(path);
    return rc;
}

static void test_timeline(void **state)
{
    struct arch a;
    test_arch(&a);
    static const int sm0[] = { 0 };
    struct report_timeline_opts o = { 0, 100, sm0, 1, 1000 };
    struct report_timeline *tl = report_timeline_new(&a, &o);
    assert_non_null(tl);
    assert_int_equal(report_timeline_until(tl), 100);
    /* Kernel 1 (60 cycles).  Two adjacent "selected" intervals merge. */
    report_timeline_warp_state(tl, 0, 0, 0, 0, 0, 0, 5, WS_SELECTED);
    report_timeline_warp_state(tl, 0, 0, 0, 0, 0, 5, 10, WS_SELECTED);
    report_timeline_warp_state(tl, 0, 0, 0, 0, 0, 10, 20, WS_LONG_SCOREBOARD);
    report_timeline_warp_state(tl, 1, 0, 0, 0, 0, 0, 20, WS_WAIT);  /* SM 1: not kept */
    report_timeline_block_life(tl, 0, 0, 0, 50);
    report_timeline_block_life(tl, 0, 1, 10, 60);  /* overlaps block 0: lane 1 */
    report_timeline_block_life(tl, 0, 2, 50, 60);  /* after block 0: lane 0 again */
    report_timeline_end_kernel(tl, "k1", 60);
    /* Kernel 2 starts at global cycle 60; only 40 more cycles are kept. */
    assert_int_equal(report_timeline_until(tl), 40);
    report_timeline_warp_state(tl, 0, 1, 1, 7, 3, 0, 50, WS_WAIT);  /* -> [60, 100) */
    report_timeline_warp_state(tl, 0, 1, 1, 7, 3, 50, 60, WS_DRAIN); /* past the end */
    report_timeline_end_kernel(tl, "k2 \"<T>\"", 50);
    assert_int_equal(report_timeline_until(tl), 1);

    char *j = timeline_json(tl);
    /* no displayTimeUnit: Perfetto would read ts as nanoseconds with "ns" */
    assert_null(strstr(j, "displayTimeUnit"));
    assert_non_null(strstr(j, "\"truncated\": false"));
    if (!have_python()) {
        free(j);
        report_timeline_free(tl);
        skip();
    }
    int rc = py_check(j,
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "ev=d[\"traceEvents\"]\n"
        "x=[e for e in ev if e[\"ph\"]==\"X\"]\n"
        "for e in x: assert set(e)>={\"name\",\"ph\",\"ts\",\"dur\",\"pid\",\"tid\"}, e\n"
        "w=[e for e in x if e[\"cat\"]==\"warp\"]\n"
        "assert [(e[\"name\"],e[\"pid\"],e[\"tid\"],e[\"ts\"],e[\"dur\"]) for e in w]==["
        "(\"selected\",0,0,0,10),(\"long_scoreboard\",0,0,10,10),"
        "(\"wait\",0,3,60,40)], w\n"
        "assert all(type(e[\"ts\"]) is int and type(e[\"dur\"]) is int for e in x)\n"
        "assert w[2][\"args\"]=={\"block\":7,\"warp\":3,\"cycle\":60,\"cycles\":40}\n"
        "b=sorted((e[\"args\"][\"block\"],e[\"tid\"],e[\"ts\"],e[\"dur\"]) for e in x if e[\"cat\"]==\"block\")\n"
        "assert b==[(0,1000,0,50),(1,1001,10,50),(2,1000,50,10)], b\n"
        "k=[(e[\"name\"],e[\"ts\"],e[\"dur\"]) for e in x if e[\"cat\"]==\"kernel\"]\n"
        "assert k==[(\"k1\",0,60),(\"k2 \\\"<T>\\\"\",60,40)], k\n"
        "m=[e for e in ev if e[\"ph\"]==\"M\"]\n"
        "assert {\"SM 0\",\"kernels\"}=={e[\"args\"][\"name\"] for e in m if e[\"name\"]==\"process_name\"}\n"
        "assert all(e[\"pid\"] in (0,2) for e in ev)\n"
        "o=d[\"otherData\"]\n"
        "assert (o[\"from\"],o[\"to\"],o[\"sms\"],o[\"truncated\"])==(0,100,[0],False), o\n");
    free(j);
    report_timeline_free(tl);
    assert_int_equal(rc, 0);
}

/* The event cap stops recording and says so. */
static void test_timeline_cap(void **state)
{
    struct arch a;
    test_arch(&a);
    static const int sm01[] = { 0, 1 };
    struct report_timeline_opts o = { 0, 1000, sm01, 2, 3 };
    struct report_timeline *tl = report_timeline_new(&a, &o);
    for (int i = 0; i < 10; i++)
        report_timeline_warp_state(tl, 1, 0, 0, 0, 0, (uint64_t)i, (uint64_t)i + 1,
                                   i % 2 ? WS_WAIT : WS_SELECTED);
    report_timeline_end_kernel(tl, "k", 10);
    char *j = timeline_json(tl);
    assert_non_null(strstr(j, "\"truncated\": true"));
    int n = 0;
    for (const char *p = j; (p = strstr(p, "\"cat\": \"warp\"")); p++)
        n++;
    assert_int_equal(n, 3);
    if (have_python())
        assert_int_equal(py_check(j, "import json,sys\njson.load(open(sys.argv[1]))\n"), 0);
    free(j);
    report_timeline_free(tl);
}

/* A window [50, 80) of SM 1 only: intervals are cut at its edges, SM 0
 * and what lies outside are left out, and the observer may stop at 80. */
static void test_timeline_window(void **state)
{
    (void)state;
    struct arch a;
    test_arch(&a);
    static const int sm1[] = { 1 };
    struct report_timeline_opts o = { 50, 80, sm1, 1, 1000 };
    struct report_timeline *tl = report_timeline_new(&a, &o);
    assert_non_null(tl);
    assert_int_equal(report_timeline_until(tl), 80);
    report_timeline_warp_state(tl, 1, 0, 0, 0, 0, 10, 40, WS_WAIT);          /* before */
    report_timeline_warp_state(tl, 1, 0, 0, 0, 0, 40, 60, WS_SELECTED);      /* -> [50, 60) */
    report_timeline_warp_state(tl, 1, 0, 0, 0, 0, 70, 90, WS_BARRIER);       /* -> [70, 80) */
    report_timeline_warp_state(tl, 0, 0, 0, 0, 0, 50, 60, WS_WAIT);          /* SM 0 */
    report_timeline_block_life(tl, 1, 4, 0, 100);                           /* -> [50, 80) */
    report_timeline_block_life(tl, 1, 5, 0, 50);                            /* before */
    report_timeline_end_kernel(tl, "k", 100);
    char *j = timeline_json(tl);
    assert_non_null(strstr(j, "\"ts\": 50, \"dur\": 10, \"args\": {\"block\": 0, \"warp\": 0, "
                              "\"cycle\": 50, \"cycles\": 10}"));
    assert_non_null(strstr(j, "\"name\": \"barrier\", \"cat\": \"warp\", \"ph\": \"X\", \"pid\": 1, "
                              "\"tid\": 0, \"ts\": 70, \"dur\": 10"));
    assert_non_null(strstr(j, "\"name\": \"block 4\", \"cat\": \"block\", \"ph\": \"X\", \"pid\": 1, "
                              "\"tid\": 1000, \"ts\": 50, \"dur\": 30"));
    assert_null(strstr(j, "\"block 5\""));
    assert_null(strstr(j, "\"name\": \"wait\""));
    assert_null(strstr(j, "\"SM 0\""));
    assert_non_null(strstr(j, "\"sms\": [1]"));
    free(j);
    report_timeline_free(tl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_grid_bands),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_timeline_cap),
        cmocka_unit_test(test_timeline_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
