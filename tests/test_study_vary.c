/* test_study_vary.c — the --vary syntax, point numbering, point validation,
 * the saturation analysis on hand-made curves, and the CSV writer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "study/study.h"

static void test_range_int(void **state)
{
    (void)state;
    struct study_var v;
    char err[STUDY_ERR_MAX];
    assert_int_equal(study_parse_vary("sm.max_warps=16:64:16", &v, err), 0);
    assert_string_equal(v.key, "sm.max_warps");
    assert_int_equal(v.kind, SK_CONFIG);
    assert_int_equal(v.nvalues, 4);
    assert_string_equal(v.values[0], "16");
    assert_string_equal(v.values[3], "64");
    study_var_free(&v);
    /* the end is included only when the step lands on it */
    assert_int_equal(study_parse_vary("launch.regs=32:100:32", &v, err), 0);
    assert_int_equal(v.kind, SK_REGS);
    assert_int_equal(v.nvalues, 3); /* 32 64 96 */
    assert_string_equal(v.values[2], "96");
    study_var_free(&v);
}

static void test_range_decimal_and_list(void **state)
{
    (void)state;
    struct study_var v;
    char err[STUDY_ERR_MAX];
    assert_int_equal(study_parse_vary("memory.dram_gbps=1000:2000:250.5", &v, err), 0);
    assert_int_equal(v.nvalues, 4); /* 1000 1250.5 1501 1751.5 */
    assert_string_equal(v.values[1], "1250.5");
    assert_string_equal(v.values[3], "1751.5");
    study_var_free(&v);
    assert_int_equal(study_parse_vary("scheduler.policy=gto,lrr", &v, err), 0);
    assert_int_equal(v.nvalues, 2);
    assert_string_equal(v.values[1], "lrr");
    study_var_free(&v);
    assert_int_equal(study_parse_vary("launch.blocks_per_sm=3", &v, err), 0);
    assert_int_equal(v.kind, SK_BLOCKS_PER_SM);
    assert_int_equal(v.nvalues, 1);
    study_var_free(&v);
}

static void test_bad_syntax(void **state)
{
    (void)state;
    struct study_var v;
    char err[STUDY_ERR_MAX];
    const char *bad[] = { "sm.max_warps", "=1,2", "sm.max_warps=", "nodot=1,2",
                          "sm.max_warps=1:2", "sm.max_warps=1:x:1", "sm.max_warps=1:4:0",
                          "sm.max_warps=8:4:1", "sm.max_warps=1,,2", "launch.grid=1,2",
                          "sm.max_warps=1:2:3:4" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(study_parse_vary(bad[i], &v, err), -1);
        assert_non_null(strstr(err, "smsim: --vary '"));
        assert_null(strchr(err, '\n'));
    }
    assert_int_equal(study_parse_vary("sm.max_warps=8:4:1", &v, err), -1);
    assert_non_null(strstr(err, "empty range (8 > 4)"));
}

static void test_points(void **state)
{
    (void)state;
    struct study_var v[2];
    char err[STUDY_ERR_MAX];
    assert_int_equal(study_parse_vary("a.x=1:3:1", &v[0], err), 0);
    assert_int_equal(study_parse_vary("b.y=p,q", &v[1], err), 0);
    assert_int_equal(study_npoints(v, 2), 6);
    int idx[2];
    /* row-major: the first key is the outer loop */
    study_point_index(v, 2, 3, idx);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 1);
    study_point_index(v, 2, 4, idx);
    assert_int_equal(idx[0], 2);
    assert_int_equal(idx[1], 0);
    char lab[100];
    study_point_label(v, 2, 5, lab, sizeof lab);
    assert_string_equal(lab, "a.x=3, b.y=q");
    study_var_free(&v[0]);
    study_var_free(&v[1]);
}

static void test_point_prepare(void **state)
{
    (void)state;
    struct study_var v[2];
    char err[STUDY_ERR_MAX];
    assert_int_equal(study_parse_vary("sm.max_blocks=16,0", &v[0], err), 0);
    assert_int_equal(study_parse_vary("launch.threads=64,2048", &v[1], err), 0);
    struct study_plan p = { SMSIM_SOURCE_DIR "/configs/h100.yaml", "unused", 0, NULL, 0, v, 2,
                            1, -1, 0, 0, NULL };
    struct tr_launch l;
    memset(&l, 0, sizeof l);
    snprintf(l.name, sizeof l.name, "k");
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = 128;
    l.block[1] = l.block[2] = 1;
    l.regs = 32;
    struct study_point pt;
    assert_int_equal(study_point_prepare(&p, &l, 0, &pt, err), 0);
    assert_int_equal(pt.a.max_blocks_per_sm, 16);
    assert_int_equal((int)pt.launch.block[0], 64);
    /* point 1: 2048 threads is not a launch */
    assert_int_equal(study_point_prepare(&p, &l, 1, &pt, err), -1);
    assert_non_null(strstr(err, "sweep point 1 (sm.max_blocks=16, launch.threads=2048)"));
    /* point 2: the configuration rejects max_blocks=0 */
    assert_int_equal(study_point_prepare(&p, &l, 2, &pt, err), -1);
    assert_non_null(strstr(err, "sweep point 2 (sm.max_blocks=0, launch.threads=64): --set:1:"));
    study_var_free(&v[0]);
    study_var_free(&v[1]);
}

static void test_saturation_roofline(void **state)
{
    (void)state;
    /* y = min(x/4, 1) sampled at 1..8: knee at 4 */
    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = i + 1;
        y[i] = fmin(x[i] / 4, 1);
    }
    struct study_sat s;
    assert_int_equal(study_saturation(x, y, 8, 0.95, 0.02, &s), 0);
    assert_int_equal(s.sat, 3);
    assert_true(s.plateau == 1.0);
    assert_int_equal(s.decline, 0);
    assert_true(s.roof_ok);
    assert_true(fabs(s.roof_knee - 4) < 1e-6);
    assert_true(s.roof_rms < 1e-9);
    /* a saturating curve y = 2x/(x+3): the second fit recovers it */
    for (int i = 0; i < 8; i++)
        y[i] = 2 * x[i] / (x[i] + 3);
    assert_int_equal(study_saturation(x, y, 8, 0.95, 0.02, &s), 0);
    assert_true(s.mm_ok);
    assert_true(fabs(s.mm_p - 2) < 1e-6 && fabs(s.mm_k - 3) < 1e-6);
    assert_true(fabs(s.mm_x_at - 57) < 1e-4); /* 3 * 0.95 / 0.05 */
    /* the plateau is the highest point: 2*8/11 */
    assert_true(fabs(s.plateau - 16.0 / 11) < 1e-12);
    /* first point >= 0.95 * 16/11 = 1.3818: 2x/(x+3) >= 1.3818 at x >= 6.72 -> x = 7 */
    assert_int_equal(s.sat, 6);
}

static void test_saturation_decline(void **state)
{
    (void)state;
    double x[6] = { 1, 2, 3, 4, 5, 6 };
    double y[6] = { 1, 2, 3, 2.9, 2.8, 2.7 }; /* peak at 3, then 10 % lower */
    struct study_sat s;
    assert_int_equal(study_saturation(x, y, 6, 0.95, 0.02, &s), 0);
    assert_int_equal(s.peak, 2);
    assert_int_equal(s.decline, 1);
    assert_true(fabs(s.drop - 0.1) < 1e-12);
    /* within tolerance: not a decline */
    assert_int_equal(study_saturation(x, y, 6, 0.95, 0.15, &s), 0);
    assert_int_equal(s.decline, 0);
    /* a flat tail after the peak is not a decline either */
    double z[4] = { 1, 2, 2, 2 };
    assert_int_equal(study_saturation(x, z, 4, 0.95, 0.02, &s), 0);
    assert_int_equal(s.decline, 0);
    assert_int_equal(s.sat, 1);
    assert_int_equal(study_saturation(x, y, 0, 0.95, 0.02, &s), -1);
}

static void test_csv(void **state)
{
    (void)state;
    struct study_table t;
    assert_int_equal(study_table_init(&t, 1, 2, 2), 0);
    t.keys[0] = strdup("scheduler.policy");
    t.vals[0] = strdup("gto");
    t.vals[1] = strdup("a,b");
    t.metrics[0] = strdup("m.one");
    t.metrics[1] = strdup("m.two");
    t.m[0] = 0.1;
    t.m[1] = 3;
    t.m[2] = INFINITY; /* "unlimited" */
    t.m[3] = -2.5;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(study_write_csv(f, &t), 0);
    fclose(f);
    assert_string_equal(buf, "scheduler.policy,m.one,m.two\ngto,0.1,3\n\"a,b\",,-2.5\n");
    free(buf);
    study_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_int),
        cmocka_unit_test(test_range_decimal_and_list),
        cmocka_unit_test(test_bad_syntax),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_point_prepare),
        cmocka_unit_test(test_saturation_roofline),
        cmocka_unit_test(test_saturation_decline),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
