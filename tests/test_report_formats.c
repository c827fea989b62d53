/* test_report_formats.c — text, JSON and CSV reports from hand-filled
 * counters: shape, exact key sets, escaping, number round-trips, determinism.
 * JSON/CSV are parsed by python3 when present (the checks skip otherwise).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <limits.h>
#include <math.h>
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

static void test_arch(struct arch *a)
{
    memset(a, 0, sizeof *a);
    strcpy(a->name, "Test \"GPU\"");
    a->cc_major = 9;
    a->sm_count = 1;
    a->sm_clock_mhz = 1000.0;
    a->subpartitions = 4;
    a->max_warps_per_sm = 64;
    a->max_blocks_per_sm = 32;
    a->smem_reserved_per_block = 1024;
    a->dram_gbps = 100.0;
}

/* Kernel i: 1 SM, 4 SMSPs; numbers chosen to give non-terminating ratios. */
static void fill(struct stats_kernel *s, const char *name, int i)
{
    assert_int_equal(stats_kernel_init(s, 1, 4), 0);
    snprintf(s->launch.name, sizeof s->launch.name, "%s", name);
    s->launch.grid[0] = 10 + (uint32_t)i; s->launch.grid[1] = 1; s->launch.grid[2] = 1;
    s->launch.block[0] = 96; s->launch.block[1] = 2; s->launch.block[2] = 1;
    s->launch.regs = 40;
    s->occ.blocks_per_sm = 3;
    s->occ.active_warps = 18;
    s->occ.limit_blocks = 32; s->occ.limit_registers = 3; s->occ.limit_shared_mem = 50;
    s->occ.limit_warps = 10; s->occ.limit_barriers = INT_MAX; /* unlimited */
    s->occ.limit_barriers_ncu = INT_MAX;
    s->cycles_elapsed = 3000 + 7 * (uint64_t)i;
    s->thread_inst = 123457;
    s->dram_bytes = 1000003;
    s->sm[0] = (struct stats_sm){ 2999, 17777, 10 };
    for (int p = 0; p < 4; p++) {
        struct stats_smsp *q = &s->smsp[p];
        q->cycles_active = 2999 - (uint64_t)p;
        q->issue_active = q->inst_issued = 1001 + (uint64_t)p;
        q->state[WS_SELECTED] = q->inst_issued;
        q->state[WS_LONG_SCOREBOARD] = 3001 + (uint64_t)p * 3;
        q->warps_active = q->state[WS_SELECTED] + q->state[WS_LONG_SCOREBOARD];
        q->warps_eligible = q->inst_issued + 7;
    }
}

/* noinline: gcc 12 -O3 otherwise mistakes the memstream buffer for the local
 * pointer it was returned through (-Wdangling-pointer false positive). */
__attribute__((noinline)) static char *render(int fmt, const struct arch *a, const struct report_kernel *k, int n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(report_write(f, fmt, a->name, a, k, n), 0);
    fclose(f);
    return buf;
}

static int have_python(void)
{
    return system("python3 -c 'import json, csv' >/dev/null 2>&1") == 0;
}

static void write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The fixture: two kernels, the first with a name that needs escaping. */
struct fx {
    struct arch a;
    struct stats_kernel s[2];
    struct report_kernel k[2];
};

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof *x);
    test_arch(&x->a);
    fill(&x->s[0], "void k<\"a\\b\">(float*, int), x", 0);
    fill(&x->s[1], "second", 1);
    x->k[0] = (struct report_kernel){ 3, &x->s[0] };
    x->k[1] = (struct report_kernel){ 4, &x->s[1] };
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;
    stats_kernel_free(&x->s[0]);
    stats_kernel_free(&x->s[1]);
    free(x);
    return 0;
}

static void test_parse_format(void **state)
{
    assert_int_equal(report_parse_format("text"), REPORT_TEXT);
    assert_int_equal(report_parse_format("json"), REPORT_JSON);
    assert_int_equal(report_parse_format("csv"), REPORT_CSV);
    assert_int_equal(report_parse_format("JSON"), -1);
    assert_int_equal(report_parse_format(""), -1);
}

static void test_numbers(void **state)
{
    char b[REPORT_NUM_MAX];
    report_format_number(b, 3.0); assert_string_equal(b, "3");
    report_format_number(b, -0.0); assert_string_equal(b, "0");
    report_format_number(b, 0.1); assert_string_equal(b, "0.1");
    report_format_number(b, 2.9); assert_string_equal(b, "2.9");
    report_format_number(b, 6.4e10); assert_string_equal(b, "64000000000");
    report_format_number(b, 1e300); assert_string_equal(b, "1e+300");
    report_format_number(b, 0.1 + 0.2); assert_string_equal(b, "0.30000000000000004");
    report_format_number(b, NAN); assert_string_equal(b, "null");
    report_format_number(b, INFINITY); assert_string_equal(b, "null");
    double third = 1.0 / 3.0;
    report_format_number(b, third);
    assert_true(strtod(b, NULL) == third);      /* reads back exactly */
}

static void test_deterministic(void **state)
{
    struct fx *x = *state;
    for (int fmt = REPORT_TEXT; fmt <= REPORT_CSV; fmt++) {
        char *a = render(fmt, &x->a, x->k, 2), *b = render(fmt, &x->a, x->k, 2);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
}

static void test_text(void **state)
{
    struct fx *x = *state;
    char *t = render(REPORT_TEXT, &x->a, x->k, 2);
    assert_non_null(strstr(t, "  second (11, 1, 1)x(96, 2, 1), Kernel 4, Config Test \"GPU\", CC 9.0\n"));
    static const char *const sections[] = {
        "Section: Launch Statistics", "Section: Occupancy", "Section: Scheduler Statistics",
        "Section: Warp State Statistics", "Section: Compute/Memory Throughput"
    };
    const char *p = t;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        p = strstr(p, sections[i]);
        assert_non_null(p);                      /* present and in this order */
    }
    assert_null(strstr(t, "Other Metrics"));     /* every metric has an ncu label */
    assert_non_null(strstr(t, "Metric Name"));
    assert_non_null(strstr(t, "Metric Unit Metric Value"));
    /* Values aligned right with thousands separators. */
    assert_non_null(strstr(t, "Executed Thread Instructions"));
    assert_non_null(strstr(t, "123,457\n"));
    assert_non_null(strstr(t, "1,000,003\n"));   /* DRAM Bytes */
    assert_non_null(strstr(t, "    Block Limit Barriers                  block    unlimited\n"));
    /* Block Size = 96*2 = 192; the header row's value column ends where it does. */
    const char *bs = strstr(t, "    Block Size ");
    assert_non_null(bs);
    const char *hdr = strstr(t, "    Metric Name ");
    size_t hl = strcspn(hdr, "\n"), bl = strcspn(bs, "\n");
    assert_int_equal(hl, bl);
    assert_memory_equal(bs + bl - 3, "192", 3);
    free(t);
}

static void test_csv_shape(void **state)
{
    struct fx *x = *state;
    char *c = render(REPORT_CSV, &x->a, x->k, 2);
    /* 2 header rows + 2 kernels */
    int lines = 0;
    for (const char *p = c; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    static const char row1[] = "\"Kernel Name\",\"Block Size\",\"Grid Size\",\"launch__grid_size\",";
    assert_memory_equal(c, row1, sizeof row1 - 1);
    const char *row2 = strchr(c, '\n') + 1;
    static const char units[] = "\"\",\"\",\"\",\"\",\"\",\"thread\",\"SM\",";
    assert_memory_equal(row2, units, sizeof units - 1);
    /* The quote in the kernel name is doubled. */
    assert_non_null(strstr(c, "\n\"void k<\"\"a\\b\"\">(float*, int), x\",\"(96, 2, 1)\",\"(10, 1, 1)\","));
    if (!have_python()) {
        free(c);
        skip();
    }
    char path[] = "/tmp/smsim_csv_XXXXXX";
    write_tmp(path, c);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import csv,sys\n"
             "r=list(csv.reader(open(sys.argv[1])))\n"
             "assert len(r)==4, len(r)\n"
             "assert all(len(x)==len(r[0]) for x in r)\n"
             "assert r[0][:3]==[\"Kernel Name\",\"Block Size\",\"Grid Size\"]\n"
             "assert r[1][:3]==[\"\",\"\",\"\"]\n"
             "h=dict(zip(r[0],r[3]))\n"
             "assert h[\"Kernel Name\"]==\"second\"\n"
             "assert h[\"launch__grid_size\"]==\"11\"\n"
             "assert h[\"launch__block_size\"]==\"192\"\n"
             "assert h[\"launch__occupancy_limit_barriers\"]==\"\"\n"
             "assert h[\"launch__occupancy_limit_warps\"]==\"10\"\n"
             "assert len(set(r[0]))==len(r[0])\n' %s", path);
    int rc = system(cmd);
    unlink(path);
    free(c);
    assert_int_equal(rc, 0);
}

static void test_json(void **state)
{
    struct fx *x = *state;
    char *j = render(REPORT_JSON, &x->a, x->k, 2);
    assert_memory_equal(j, "{\n  \"config\": \"Test \\\"GPU\\\"\",\n  \"kernels\": [", 43);
    assert_non_null(strstr(j, "\"name\": \"void k<\\\"a\\\\b\\\">(float*, int), x\""));
    if (!have_python()) {
        free(j);
        skip();
    }
    /* Expected metric names and values, one per line, from stats_metrics. */
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&x->s[1], &x->a, m, STATS_METRICS_MAX);
    char *exp = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&exp, &len);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %.17g\n", m[i].name, m[i].value);
    fclose(f);
    char jpath[] = "/tmp/smsim_json_XXXXXX", epath[] = "/tmp/smsim_names_XXXXXX";
    write_tmp(jpath, j);
    write_tmp(epath, exp);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "python3 -m json.tool %s >/dev/null", jpath);
    int valid = system(cmd);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys\n"
             "d=json.load(open(sys.argv[1]))\n"
             "assert list(d.keys())==[\"config\",\"kernels\"], d.keys()\n"
             "assert d[\"config\"]==\"Test \\\"GPU\\\"\"\n"
             "assert len(d[\"kernels\"])==2\n"
             "k=d[\"kernels\"][1]\n"
             "assert list(k.keys())==[\"index\",\"name\",\"grid\",\"block\",\"metrics\"], k.keys()\n"
             "assert k[\"index\"]==4 and k[\"name\"]==\"second\"\n"
             "assert k[\"grid\"]==[11,1,1] and k[\"block\"]==[96,2,1]\n"
             "assert d[\"kernels\"][0][\"name\"]==\"void k<\\\"a\\\\b\\\">(float*, int), x\"\n"
             "exp=[l.split() for l in open(sys.argv[2])]\n"
             "assert list(k[\"metrics\"].keys())==[e[0] for e in exp]\n"
             "for name,v in exp: assert k[\"metrics\"][name]==(None if v==\"inf\" else float(v)), name\n"
             "assert k[\"metrics\"][\"launch__occupancy_limit_barriers\"] is None\n' %s %s",
             jpath, epath);
    int keys = system(cmd);
    unlink(jpath);
    unlink(epath);
    free(exp);
    free(j);
    assert_int_equal(valid, 0);
    assert_int_equal(keys, 0);
}

static void test_empty(void **state)
{
    struct fx *x = *state;
    char *j = render(REPORT_JSON, &x->a, x->k, 0);
    assert_string_equal(j, "{\n  \"config\": \"Test \\\"GPU\\\"\",\n  \"kernels\": []\n}\n");
    free(j);
    char *c = render(REPORT_CSV, &x->a, x->k, 0);
    int lines = 0;
    for (const char *p = c; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
