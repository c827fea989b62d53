/* test_study_ncu_validate.c — the arithmetic of `smsim validate`
 * (sim/study/study_validate.c): error %, MAPE, max error and Pearson r on
 * hand-computed numbers, the saturation point of hand-made curves, the
 * manifest reader and the threshold check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "study/study_validate.h"

static void error_pct(void **state)
{
    (void)state;
    assert_float_equal(val_err_pct(2, 3), 50, 1e-12);
    assert_float_equal(val_err_pct(4, 3), -25, 1e-12);
    assert_float_equal(val_err_pct(-2, -1), 50, 1e-12);
    assert_float_equal(val_err_pct(0, 0), 0, 0);
    assert_true(isnan(val_err_pct(0, 1)));
}

static void stats_hand_computed(void **state)
{
    (void)state;
    /* errors +10, -10, +10, 0 %: MAPE 7.5, max 10.  Pearson by hand:
     * deviations (-1.5,-0.5,0.5,1.5) and (-1.45,-0.75,0.75,1.45):
     * 5.1 / sqrt(5 x 5.33) = 0.98791952638822... */
    const double meas[] = { 1, 2, 3, 4 }, pred[] = { 1.1, 1.8, 3.3, 4.0 };
    struct val_stat s;
    val_stats(meas, pred, 4, &s);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.nzero, 0);
    assert_float_equal(s.mape, 7.5, 1e-9);
    assert_float_equal(s.max_err, 10, 1e-9);
    assert_float_equal(s.pearson, 0.9879195263882262, 1e-12);

    /* a measured zero with a non-zero prediction has no % error */
    const double m2[] = { 0, 2, 4 }, p2[] = { 1, 3, 4 };
    val_stats(m2, p2, 3, &s);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.nzero, 1);
    assert_float_equal(s.mape, 25, 1e-9);
    assert_float_equal(s.max_err, 50, 1e-9);
    /* r over all three pairs: dev (-2,0,2), (-1.667,0.333,1.333) -> 6/sqrt(8 x 4.6667) */
    assert_float_equal(s.pearson, 6 / sqrt(8 * (14.0 / 3)), 1e-9);

    /* a constant prediction has no correlation; one pair neither */
    const double p3[] = { 5, 5, 5, 5 };
    val_stats(meas, p3, 4, &s);
    assert_true(isnan(s.pearson));
    assert_float_equal(s.mape, 100.0 * (4 + 1.5 + 2.0 / 3 + 0.25) / 4, 1e-9);
    val_stats(meas, pred, 1, &s);
    assert_true(isnan(s.pearson));
    assert_float_equal(s.mape, 10, 1e-9);
    val_stats(meas, pred, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mape) && isnan(s.max_err));
}

static void saturation_point(void **state)
{
    (void)state;
    /* the measured ffma-ilp1 curve (issue active at 1,2,3,4,6,8,12,16 warps
     * per scheduler): plateau 0.56, 95 % = 0.532, first reached at 3 */
    const double x[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
    const double y[] = { 0.27, 0.46, 0.54, 0.54, 0.55, 0.55, 0.55, 0.56 };
    assert_float_equal(val_sat_point(x, y, 8, 0.95), 3, 0);
    /* a stricter threshold moves it: 0.99 x 0.56 = 0.5544 -> 16 */
    assert_float_equal(val_sat_point(x, y, 8, 0.99), 16, 0);
    /* a curve that peaks then declines: plateau is the peak */
    const double y2[] = { 0.1, 0.5, 0.48, 0.3 };
    assert_float_equal(val_sat_point(x, y2, 4, 0.95), 2, 0);
    /* flat from the first point */
    const double y3[] = { 1, 1, 1 };
    assert_float_equal(val_sat_point(x, y3, 3, 0.95), 1, 0);
    /* nothing measured */
    const double y4[] = { 0, 0 };
    assert_true(isnan(val_sat_point(x, y4, 2, 0.95)));
    assert_true(isnan(val_sat_point(x, y, 0, 0.95)));
}

static void write_tmp(char path[64], const char *text)
{
    snprintf(path, 64, "/tmp/smsim-val-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

static void manifest(void **state)
{
    (void)state;
    struct val_manifest m;
    char err[STUDY_ERR_MAX];
    if (val_manifest_load(SMSIM_SOURCE_DIR "/tests/data/validate/manifest.tsv", &m, err))
        fail_msg("%s", err);
    assert_int_equal(m.n, 5);
    assert_string_equal(m.c[0].name, "tiny-ilp1");
    assert_int_equal(m.c[2].blocks_per_sm, 4);
    assert_string_equal(m.c[2].trace, "tests/data/validate/tiny_ilp1_b4.trace");
    assert_string_equal(m.c[4].ncu_csv, "tests/data/validate/tiny.raw.csv");
    assert_string_equal(m.c[4].ncu_id, "4");
    assert_int_equal(m.c[0].line, 2);
    val_manifest_free(&m);

    /* columns in another order, comments, extra columns */
    char p[64];
    write_tmp(p, "# comment\nncu_id\tcase\tnote\tncu_csv\ttrace\tblocks_per_sm\n"
                 "7\tk\tx\ta.csv\tt.trace\t3\n");
    if (val_manifest_load(p, &m, err))
        fail_msg("%s", err);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.c[0].ncu_id, "7");
    assert_int_equal(m.c[0].blocks_per_sm, 3);
    assert_int_equal(m.c[0].col_trace, 13);
    val_manifest_free(&m);
    unlink(p);

    static const struct { const char *text; const char *msg; } bad[] = {
        { "case\tblocks_per_sm\ttrace\tncu_csv\n", ":1:1: header has no column 'ncu_id'" },
        { "case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\nk\tx\tt\tc\t0\n",
          ":2:3: blocks_per_sm 'x': expected an integer in 1..1024" },
        { "case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\nk\t1\tt\tc\n",
          ":2:8: missing ncu_id (4 fields, need 5)" },
        { "# only a comment\n", ":2:1: empty manifest" },
        { "case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\n", ":2:1: the manifest lists no launch" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_tmp(p, bad[i].text);
        assert_int_equal(val_manifest_load(p, &m, err), -1);
        unlink(p);
        assert_null(strchr(err, '\n'));
        if (strncmp(err, p, strlen(p)) || !strstr(err, bad[i].msg))
            fail_msg("case %zu: '%s' lacks '%s%s'", i, err, p, bad[i].msg);
    }
    assert_int_equal(val_manifest_load("/nonexistent/manifest.tsv", &m, err), -1);
    assert_non_null(strstr(err, "/nonexistent/manifest.tsv: cannot open the manifest: "));
}

static void thresholds(void **state)
{
    (void)state;
    struct val_result r;
    memset(&r, 0, sizeof r);
    for (int k = 0; k < VAL_NMETRICS; k++)
        r.metric[k] = (struct val_stat){ 4, 0, 10, 20, 0.9 };
    r.stalls = (struct val_stat){ 4, 0, 50, 90, 0.5 };
    r.sat_max_abs_err = 2;
    char p[64], err[STUDY_ERR_MAX];
    char *out = NULL;
    size_t len = 0;
    write_tmp(p, "# limits\nmetric\tstat\tlimit\nci\tmax_insts\t1000\n"
                 "smsp__issue_active.avg.per_cycle_active\tmape_pct\t12\n"
                 "smsp__issue_active.avg.per_cycle_active\tmax_err_pct\t20\n"
                 "smsp__issue_active.avg.per_cycle_active\tpearson_r\t0.85\n"
                 "stalls_top3\tmape_pct\t60\n"
                 "saturation\tmax_abs_err_warps_per_scheduler\t2.5\n");
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(val_check_thresholds(p, &r, f, err), 0);
    fclose(f);
    assert_int_equal(len, 0);
    free(out);
    unlink(p);

    write_tmp(p, "sm__cycles_elapsed.avg\tmape_pct\t8\n"
                 "sm__cycles_elapsed.avg\tpearson_r\t0.95\n"
                 "saturation\tmax_abs_err_warps_per_scheduler\t1\n"
                 "sm__cycles_elapsed.avg\tmax_err_pct\t20\n");
    f = open_memstream(&out, &len);
    assert_int_equal(val_check_thresholds(p, &r, f, err), 3);
    fclose(f);
    assert_non_null(strstr(out, ":1: accuracy below threshold: sm__cycles_elapsed.avg mape_pct = 10, "
                                "limit <= 8\n"));
    assert_non_null(strstr(out, ":2: accuracy below threshold: sm__cycles_elapsed.avg pearson_r = "
                                "0.9, limit >= 0.95\n"));
    assert_non_null(strstr(out, ":3: accuracy below threshold: saturation "
                                "max_abs_err_warps_per_scheduler = 2, limit <= 1\n"));
    free(out);
    unlink(p);

    /* a metric without points fails */
    r.metric[0].mape = NAN;
    write_tmp(p, "sm__warps_active.avg.pct_of_peak_sustained_active\tmape_pct\t100\n");
    f = open_memstream(&out, &len);
    assert_int_equal(val_check_thresholds(p, &r, f, err), 1);
    fclose(f);
    assert_non_null(strstr(out, "undefined (no points)"));
    free(out);
    unlink(p);

    static const struct { const char *text; const char *msg; } bad[] = {
        { "nonsense\n", ":1:1: expected METRIC<TAB>STAT<TAB>LIMIT" },
        { "x__y\tmape_pct\t1\n", ":1:1: unknown metric 'x__y'" },
        { "sm__cycles_elapsed.avg\tmedian\t1\n", ":1:24: unknown statistic 'median'" },
        { "sm__cycles_elapsed.avg\tmape_pct\tten\n", ":1:33: limit 'ten' is not a number" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_tmp(p, bad[i].text);
        f = open_memstream(&out, &len);
        assert_int_equal(val_check_thresholds(p, &r, f, err), -1);
        fclose(f);
        free(out);
        unlink(p);
        if (!strstr(err, bad[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_pct),
        cmocka_unit_test(stats_hand_computed),
        cmocka_unit_test(saturation_point),
        cmocka_unit_test(manifest),
        cmocka_unit_test(thresholds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
