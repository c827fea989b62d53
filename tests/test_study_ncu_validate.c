/* test_study_ncu_validate.c — the arithmetic of `smsim validate`
 * (sim/study/study_validate.c): error %, MAPE, max error and Pearson r on
 * hand-computed numbers, the saturation point of hand-made curves, the
 * manifest reader, the threshold check, and the L1/L2 hit rates compared in
 * percentage points (hand-computed, and end to end on a hand-made CSV and
 * trace).
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

static void hit_stats_hand_computed(void **state)
{
    (void)state;
    /* differences -5, +12, 0, +10 pp; a NaN measurement (not in the CSV) is
     * missing; a NaN prediction is left out.  mean |diff| = 27 / 4 = 6.75,
     * max 12; within 10 pp: -5, 0, +10 (the bound is inclusive) */
    const double meas[] = { 50, 0, 100, NAN, 30, 80 };
    const double pred[] = { 45, 12, 100, 7, NAN, 90 };
    struct val_hit_stat h;
    val_hit_stats(meas, pred, 6, &h);
    assert_int_equal(h.n, 4);
    assert_int_equal(h.nmissing, 1);
    assert_float_equal(h.mean_abs_pp, 6.75, 1e-12);
    assert_float_equal(h.max_abs_pp, 12, 1e-12);
    assert_int_equal(h.within, 3);
    /* measured zeros are ordinary pairs (no % error needed) */
    const double z[] = { 0, 0 };
    val_hit_stats(z, z, 2, &h);
    assert_int_equal(h.n, 2);
    assert_float_equal(h.max_abs_pp, 0, 0);
    assert_int_equal(h.within, 2);
    val_hit_stats(meas, pred, 0, &h);
    assert_int_equal(h.n, 0);
    assert_true(isnan(h.mean_abs_pp) && isnan(h.max_abs_pp));
    assert_string_equal(val_hit_name(0), "l1tex__t_sector_hit_rate.pct");
    assert_string_equal(val_hit_name(1), "lts__t_sector_hit_rate.pct");
    assert_null(val_hit_name(VAL_NHIT));
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

/* val_run on a hand-made CSV and trace.  The trace: one warp of one block
 * loads a 128-byte line (4 sectors: L1 misses, L2 misses: ncu's caches start
 * empty), then, once the value is back (the address register depends on it),
 * the same line again (4 L1 hits; nothing reaches L2).  smsim: L1 4 / 8 =
 * 50 %, L2 0 / 4 = 0 %.  Measured row 0: L1 62.5, L2 3 -> -12.5 and -3 pp;
 * row 1: L1 n/a (missing), L2 0 -> 0 pp.  Swapping L1 and L2 anywhere (names,
 * measurements or predictions) changes these numbers. */
static void hit_rates_end_to_end(void **state)
{
    (void)state;
    char tr[64], csv[64], man[64];
    write_tmp(tr, "kernel hit2 grid=(1,1,1) block=(32,1,1) regs=16 {\n"
                  "  LDG.E R2, [R4.64] addr=0x100000\n"
                  "  IADD3 R4, R2, R4, RZ\n"
                  "  LDG.E R6, [R4.64] addr=0x100000\n"
                  "  EXIT\n}\n");
    write_tmp(csv, "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.avg\","
                   "\"l1tex__t_sector_hit_rate.pct\",\"lts__t_sector_hit_rate.pct\"\n"
                   "\"\",\"\",\"cycle\",\"%\",\"%\"\n"
                   "\"0\",\"hit2\",\"1,000\",\"62.50\",\"3.00\"\n"
                   "\"1\",\"hit2\",\"1,000\",\"n/a\",\"0\"\n");
    char text[512];
    snprintf(text, sizeof text, "case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\n"
                                "hit2\t1\t%s\t%s\t0\nhit2-b\t1\t%s\t%s\t1\n",
             tr, csv, tr, csv);
    write_tmp(man, text);
    struct val_manifest m;
    char err[STUDY_ERR_MAX];
    if (val_manifest_load(man, &m, err))
        fail_msg("%s", err);
    struct val_opts o;
    memset(&o, 0, sizeof o);
    o.config = SMSIM_SOURCE_DIR "/configs/h200.yaml";
    o.jobs = 1;
    o.carveout_pct = -1;
    struct val_result r;
    if (val_run(&m, &o, &r, err))
        fail_msg("%s", err);
    assert_int_equal(r.npoints, 2);
    assert_float_equal(r.p[0].hit_pred[0], 50, 1e-9);
    assert_float_equal(r.p[0].hit_pred[1], 0, 1e-9);
    assert_float_equal(r.p[0].hit_meas[0], 62.5, 1e-9);
    assert_float_equal(r.p[0].hit_meas[1], 3, 1e-9);
    assert_true(isnan(r.p[1].hit_meas[0]));
    assert_float_equal(r.p[1].hit_meas[1], 0, 0);
    /* L1: one pair, 12.5 pp off, one launch missing */
    assert_int_equal(r.hit[0].n, 1);
    assert_int_equal(r.hit[0].nmissing, 1);
    assert_float_equal(r.hit[0].mean_abs_pp, 12.5, 1e-9);
    assert_float_equal(r.hit[0].max_abs_pp, 12.5, 1e-9);
    assert_int_equal(r.hit[0].within, 0);
    /* L2: 3 and 0 pp */
    assert_int_equal(r.hit[1].n, 2);
    assert_int_equal(r.hit[1].nmissing, 0);
    assert_float_equal(r.hit[1].mean_abs_pp, 1.5, 1e-9);
    assert_float_equal(r.hit[1].max_abs_pp, 3, 1e-9);
    assert_int_equal(r.hit[1].within, 2);

    /* the reports carry them */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(val_write_json(f, &m, &r), 0);
    fclose(f);
    assert_non_null(strstr(out, "\"l1tex__t_sector_hit_rate.pct\": {\"mean_abs_diff_pp\": 12.5, "
                                "\"max_abs_diff_pp\": 12.5, \"within_pp\": 10, \"within\": 0, "
                                "\"n\": 1, \"n_missing\": 1}"));
    assert_non_null(strstr(out, "\"diff_pp\": {\"l1tex__t_sector_hit_rate.pct\": -12.5, "
                                "\"lts__t_sector_hit_rate.pct\": -3}"));
    free(out);
    f = open_memstream(&out, &len);
    assert_int_equal(val_write_text(f, &m, &r), 0);
    fclose(f);
    assert_non_null(strstr(out, "|    62.5    50.0    -12.5 |     3.0     0.0     -3.0\n"));
    assert_non_null(strstr(out, "|       -    50.0        - |     0.0     0.0     +0.0\n"));
    assert_non_null(strstr(out, "(1 launch skipped: not in the ncu CSV)"));
    free(out);

    /* thresholds on the differences */
    char p[64];
    write_tmp(p, "lts__t_sector_hit_rate.pct\tmax_abs_diff_pp\t3\n"
                 "l1tex__t_sector_hit_rate.pct\tmax_abs_diff_pp\t12\n"
                 "l1tex__t_sector_hit_rate.pct\tmean_abs_diff_pp\t13\n");
    f = open_memstream(&out, &len);
    assert_int_equal(val_check_thresholds(p, &r, f, err), 1);
    fclose(f);
    assert_non_null(strstr(out, ":2: accuracy below threshold: l1tex__t_sector_hit_rate.pct "
                                "max_abs_diff_pp = 12.5, limit <= 12\n"));
    free(out);
    unlink(p);
    write_tmp(p, "lts__t_sector_hit_rate.pct\tmape_pct\t3\n");
    f = open_memstream(&out, &len);
    assert_int_equal(val_check_thresholds(p, &r, f, err), -1);
    fclose(f);
    free(out);
    unlink(p);
    assert_non_null(strstr(err, ":1:28: lts__t_sector_hit_rate.pct: unknown statistic 'mape_pct' "
                                "(expected max_abs_diff_pp or mean_abs_diff_pp)"));

    val_result_free(&r);
    val_manifest_free(&m);
    unlink(tr);
    unlink(csv);
    unlink(man);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_pct),
        cmocka_unit_test(stats_hand_computed),
        cmocka_unit_test(hit_stats_hand_computed),
        cmocka_unit_test(saturation_point),
        cmocka_unit_test(manifest),
        cmocka_unit_test(thresholds),
        cmocka_unit_test(hit_rates_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
