/* test_ncu_csv.c — the Nsight Compute CSV reader (sim/ncu/ncu_csv.c):
 * the committed H200 raw pages, the details page, numbers with thousands
 * separators, scaled units, precision recovery, and malformed files (one
 * "file:line:col: message" each).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ncu/ncu_csv.h"

#define KIT SMSIM_SOURCE_DIR "/validate/data/h200/kit-2026-11-29/valid/"

static double value(const struct ncu_table *t, int row, const char *name)
{
    char err[NCU_ERR_MAX];
    double v = NAN;
    int c = ncu_col(t, name);
    assert_true(c >= 0);
    assert_int_equal(ncu_value(t, row, c, &v, err), 0);
    return v;
}

/* ffma-ilp1: 8 launches (b = 1,2,3,4,6,8,12,16) of 603 columns. */
static void raw_page_h200(void **state)
{
    (void)state;
    struct ncu_table t;
    char err[NCU_ERR_MAX];
    int rc = ncu_csv_load(KIT "ffma-ilp1.raw.csv", &t, err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(t.details, 0);
    assert_int_equal(t.nrows, 8);
    assert_int_equal(t.ncols, 603);
    assert_string_equal(t.names[0], "ID");
    assert_string_equal(t.names[4], "Kernel Name");
    assert_string_equal(ncu_cell(&t, 0, 4), "val_ffma_ilp1(float *, float, float)");
    assert_string_equal(ncu_cell(&t, 1, ncu_col(&t, "Grid Size")), "(1056, 1, 1)");
    assert_string_equal(t.units[ncu_col(&t, "sm__cycles_elapsed.avg")], "cycle");
    assert_string_equal(t.units[ncu_col(&t, "sm__warps_active.avg.pct_of_peak_sustained_active")],
                        "%");
    /* thousands separators */
    assert_float_equal(value(&t, 0, "sm__cycles_elapsed.avg"), 150582.29, 1e-9);
    assert_float_equal(value(&t, 7, "sm__cycles_elapsed.avg"), 1126284.62, 1e-9);
    assert_float_equal(value(&t, 6, "sm__cycles_elapsed.avg"), 847446, 0);
    assert_float_equal(value(&t, 7, "smsp__inst_executed.sum"), 329235456, 0);
    assert_float_equal(value(&t, 0, "launch__shared_mem_per_block_dynamic"), 232448, 0);
    assert_float_equal(value(&t, 3, "launch__occupancy_limit_shared_mem"), 4, 0);
    assert_float_equal(value(&t, 2, "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"),
                       3.68, 1e-12);
    /* rows by ID */
    assert_int_equal(ncu_row_by_id(&t, "0"), 0);
    assert_int_equal(ncu_row_by_id(&t, "5"), 5);
    assert_int_equal(ncu_row_by_id(&t, "8"), -1);
    assert_int_equal(ncu_col(&t, "no_such_metric"), -1);
    /* a text column is not a number: one line naming the cell */
    double v;
    assert_int_equal(ncu_value(&t, 0, ncu_col(&t, "device__attribute_display_name"), &v, err), -1);
    assert_non_null(strstr(err, "ffma-ilp1.raw.csv:3:"));
    assert_non_null(strstr(err, "device__attribute_display_name: 'NVIDIA H200' is not a number"));
    /* precision recovery: issue active printed 0.27, summed 140.59 over
     * 132 SMs x 4 schedulers */
    assert_int_equal(ncu_metric(&t, 0, "smsp__issue_active.avg.per_cycle_active", &v, err), 0);
    assert_float_equal(v, 140.59 / 528, 1e-12);
    assert_int_equal(ncu_metric(&t, 0, "sm__warps_active.avg.per_cycle_active", &v, err), 0);
    assert_float_equal(v, 527.96 / 132, 1e-12);
    /* no .sum twin: the printed value */
    assert_int_equal(ncu_metric(&t, 0, "smsp__average_warp_latency_per_inst_issued.ratio", &v, err),
                     0);
    assert_float_equal(v, 3.76, 1e-12);
    assert_int_equal(ncu_metric(&t, 0, "no_such_metric", &v, err), 1);
    ncu_table_free(&t);
}

/* Every committed raw page reads, with 8 rows (SGEMM: 6). */
static void raw_page_all_kernels(void **state)
{
    (void)state;
    static const char *const names[] = {
        "copy", "dchain-k0", "dchain-k4", "dchain-k16", "ffma-ilp2", "ffma-ilp4", "reduce",
        "sgemm", "smem-tile", "stencil5", "vecadd"
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512], err[NCU_ERR_MAX];
        snprintf(path, sizeof path, KIT "%s.raw.csv", names[i]);
        struct ncu_table t;
        if (ncu_csv_load(path, &t, err))
            fail_msg("%s", err);
        assert_int_equal(t.nrows, strcmp(names[i], "sgemm") ? 8 : 6);
        for (int r = 0; r < t.nrows; r++) {
            double v;
            assert_int_equal(ncu_metric(&t, r, "smsp__issue_active.avg.per_cycle_active", &v, err),
                             0);
            assert_true(v > 0 && v <= 1);
        }
        ncu_table_free(&t);
    }
}

/* The details page (long format): rows with one ID make one launch. */
static void details_page(void **state)
{
    (void)state;
    struct ncu_table t;
    char err[NCU_ERR_MAX];
    if (ncu_csv_load(SMSIM_SOURCE_DIR "/validate/data/h200/occupancy-ncu-check.csv", &t, err))
        fail_msg("%s", err);
    assert_int_equal(t.details, 1);
    assert_int_equal(t.nrows, 7);
    assert_string_equal(ncu_cell(&t, 1, ncu_col(&t, "Kernel Name")), "void ks<12288>(float *)");
    assert_float_equal(value(&t, 0, "launch__shared_mem_config_size"), 32768, 0);
    assert_float_equal(value(&t, 1, "launch__occupancy_limit_shared_mem"), 17, 0);
    assert_float_equal(value(&t, 1, "sm__maximum_warps_per_active_cycle_pct"), 26.56, 1e-12);
    assert_string_equal(t.units[ncu_col(&t, "launch__registers_per_thread")], "register/thread");
    ncu_table_free(&t);

    /* section labels become metric names; scaled units are rescaled */
    static const char text[] =
        "==PROF== Connected to process 1\n"
        "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\","
        "\"Rule Name\"\n"
        "\"0\",\"k(int)\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"45.50\",\"\"\n"
        "\"0\",\"k(int)\",\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"1.50\",\"\"\n"
        "\"0\",\"k(int)\",\"GPU Speed Of Light Throughput\",\"Elapsed Cycles\",\"cycle\","
        "\"2,970\",\"\"\n"
        "\"1\",\"k(int)\",\"GPU Speed Of Light Throughput\",\"Duration\",\"msecond\",\"0.002\",\"\"\n"
        "\"1\",\"k(int)\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"n/a\",\"\"\n"
        "==PROF== Disconnected from process 1\n";
    if (ncu_csv_parse(text, sizeof text - 1, "d.csv", &t, err))
        fail_msg("%s", err);
    assert_int_equal(t.nrows, 2);
    assert_float_equal(value(&t, 0, "sm__warps_active.avg.pct_of_peak_sustained_active"), 45.5,
                       1e-12);
    assert_float_equal(value(&t, 0, "sm__cycles_elapsed.avg"), 2970, 0);
    assert_float_equal(value(&t, 0, "gpu__time_duration.sum"), 1500, 1e-9); /* ns */
    assert_float_equal(value(&t, 1, "gpu__time_duration.sum"), 2000, 1e-9);
    double v;
    assert_int_equal(ncu_value(&t, 1, ncu_col(&t, "sm__warps_active.avg.pct_of_peak_sustained_active"),
                               &v, err), 1);
    ncu_table_free(&t);
}

/* The CSV dialect: unquoted fields, "" escapes, CRLF, empty cells, n/a. */
static void dialect(void **state)
{
    (void)state;
    static const char text[] =
        "\xEF\xBB\xBF\"ID\",Kernel Name,\"m1\",\"m2\"\r\n"
        "\"\",\"\",\"byte\",\"\"\r\n"
        "0,\"say \"\"hi\"\", twice\",\"1,024\",\r\n"
        "\r\n"
        "1,k2,n/a,-2.5e1\r\n";
    struct ncu_table t;
    char err[NCU_ERR_MAX];
    if (ncu_csv_parse(text, sizeof text - 1, "x.csv", &t, err))
        fail_msg("%s", err);
    assert_int_equal(t.nrows, 2);
    assert_int_equal(t.ncols, 4);
    assert_string_equal(t.names[1], "Kernel Name");
    assert_string_equal(ncu_cell(&t, 0, 1), "say \"hi\", twice");
    assert_string_equal(t.units[2], "byte");
    assert_float_equal(value(&t, 0, "m1"), 1024, 0);
    assert_float_equal(value(&t, 1, "m2"), -25, 0);
    double v;
    assert_int_equal(ncu_value(&t, 0, 3, &v, err), 1); /* empty */
    assert_int_equal(ncu_value(&t, 1, 2, &v, err), 1); /* n/a   */
    assert_null(ncu_cell(&t, 0, 3));
    ncu_table_free(&t);
}

static void numbers(void **state)
{
    (void)state;
    double v;
    assert_int_equal(ncu_parse_number("1,126,284.62", &v), 1);
    assert_float_equal(v, 1126284.62, 1e-9);
    assert_int_equal(ncu_parse_number("-3.5e2", &v), 1);
    assert_float_equal(v, -350, 0);
    assert_int_equal(ncu_parse_number("0.00", &v), 1);
    assert_float_equal(v, 0, 0);
    assert_int_equal(ncu_parse_number("999", &v), 1);
    assert_float_equal(v, 999, 0);
    static const char *const bad[] = { "", "n/a", "1,12", "12,345,6", "1234,567", ",123",
                                       "1.2.3", "abc", "1e", "--1", "(128, 1, 1)" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ncu_parse_number(bad[i], &v))
            fail_msg("'%s' parsed as a number", bad[i]);
}

static void units(void **state)
{
    (void)state;
    char base[64];
    assert_float_equal(ncu_unit_scale("Kbyte", base), 1e3, 0);
    assert_string_equal(base, "byte");
    assert_float_equal(ncu_unit_scale("Gbyte/s", base), 1e9, 0);
    assert_string_equal(base, "byte/s");
    assert_float_equal(ncu_unit_scale("usecond", base), 1e3, 0);
    assert_string_equal(base, "nsecond");
    assert_float_equal(ncu_unit_scale("Mcycle", base), 1e6, 0);
    assert_string_equal(base, "cycle");
    assert_float_equal(ncu_unit_scale("%", base), 1, 0);
    assert_string_equal(base, "%");
    assert_float_equal(ncu_unit_scale("Kilobits", base), 1, 0);
    /* every unit of the committed exports is known; one read at scale 1
     * without being ncu's base unit is not */
    static const char *const known[] = { "", "%", "inst", "warp", "cycle", "byte", "block",
                                         "hz", "byte/block", "ns", "byte/s", "register/thread",
                                         "pass", "sector", "thread", "branches", "sectors",
                                         "SM", "cluster", "%/register", "%/byte", "usecond",
                                         "inst/cycle", "nsecond", "Kbyte", "Gbyte/s", "Ghz",
                                         "msecond", "second", "s", "Mcycle" };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        assert_true(ncu_unit_known(known[i]));
    static const char *const unknown[] = { "Kilobits", "furlong", "us%cond", "cycle/usecond",
                                           "byte/ms", "usecond/inst", "byte/Kthread", "kbyte" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        assert_false(ncu_unit_known(unknown[i]));
}

/* Each malformed file: -1 and exactly the expected one-line message. */
static void malformed(void **state)
{
    (void)state;
    static const struct { const char *text; const char *msg; } cases[] = {
        { "", "m.csv:1:1: no table: expected ncu's CSV header (\"ID\",\"Process ID\",...)" },
        { "==PROF== Connected to process 1\n==PROF== Disconnected\n",
          "m.csv:3:1: no table: expected ncu's CSV header (\"ID\",\"Process ID\",...)" },
        { "\"Kernel\",\"m\"\n\"k\",\"1\"\n",
          "m.csv:1:1: not an Nsight Compute CSV: the header has no \"ID\" column (export with "
          "ncu --csv --page raw)" },
        { "\"ID\",\"m\"\n\"\",\"\"\n\"0\",\"1\n",
          "m.csv:3:5: unterminated quoted field (no closing '\"')" },
        { "\"ID\",\"m\"\n\"0\",\"1\"x\n", "m.csv:2:8: unexpected 'x' after a quoted field "
          "(expected ',' or the end of the line)" },
        { "\"ID\",\"m\"\n0,1\"2\n", "m.csv:2:4: stray '\"' inside an unquoted field" },
        { "\"ID\",\"m\"\n\"\",\"\"\n\"0\",\"1\",\"2\"\n",
          "m.csv:3:9: 3 fields, but the header (line 1) has 2 columns" },
        { "\"ID\",\"m\",\"n\"\n\"0\",\"1\"\n",
          "m.csv:2:1: 2 fields, but the header (line 1) has 3 columns" },
        { "\"ID\",\"Section Name\",\"Metric Name\",\"Metric Value\"\n",
          "m.csv:1:1: details-page header without \"Metric Name\", \"Metric Unit\" and "
          "\"Metric Value\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ncu_table t;
        char err[NCU_ERR_MAX] = "";
        int rc = ncu_csv_parse(cases[i].text, strlen(cases[i].text), "m.csv", &t, err);
        if (rc != -1)
            fail_msg("case %zu parsed", i);
        assert_null(strchr(err, '\n'));
        if (strcmp(err, cases[i].msg))
            fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].msg);
    }
    /* a value that is not a number: where it is */
    static const char text[] = "\"ID\",\"m\"\n\"\",\"\"\n\"0\",\"12x\"\n";
    struct ncu_table t;
    char err[NCU_ERR_MAX];
    assert_int_equal(ncu_csv_parse(text, sizeof text - 1, "m.csv", &t, err), 0);
    double v;
    assert_int_equal(ncu_value(&t, 0, 1, &v, err), -1);
    assert_string_equal(err, "m.csv:3:5: m: '12x' is not a number");
    ncu_table_free(&t);
    /* a missing file */
    assert_int_equal(ncu_csv_load(SMSIM_SOURCE_DIR "/tests/data/ncu/no-such.csv", &t, err), -1);
    assert_non_null(strstr(err, "no-such.csv: cannot open: "));
}

/* The committed malformed samples under tests/data/ncu. */
static void malformed_files(void **state)
{
    (void)state;
    static const struct { const char *file; const char *where; } cases[] = {
        { "bad-quote.csv", "bad-quote.csv:4:" },
        { "bad-width.csv", "bad-width.csv:4:" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], err[NCU_ERR_MAX];
        snprintf(path, sizeof path, SMSIM_SOURCE_DIR "/tests/data/ncu/%s", cases[i].file);
        struct ncu_table t;
        assert_int_equal(ncu_csv_load(path, &t, err), -1);
        if (!strstr(err, cases[i].where))
            fail_msg("%s: '%s' does not name %s", cases[i].file, err, cases[i].where);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raw_page_h200),
        cmocka_unit_test(raw_page_all_kernels),
        cmocka_unit_test(details_page),
        cmocka_unit_test(dialect),
        cmocka_unit_test(numbers),
        cmocka_unit_test(units),
        cmocka_unit_test(malformed),
        cmocka_unit_test(malformed_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
