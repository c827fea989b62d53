/* test_arch_configs.c — the shipped configs (configs/NAME.yaml): each loads, holds the
 * published values, cites a source on every value line, and survives
 * print -> load unchanged.  Also: the schema covers every field of struct
 * arch, so the round trip compares everything.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/arch.h"
#include "arch/arch_schema.h"

static const char *const configs[] = { "h100", "h200", "a100", "rtx4090", "rtx3060ti" };
enum { N_CONFIGS = sizeof configs / sizeof configs[0] };

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/configs/%s.yaml", SMSIM_SOURCE_DIR, name);
}

static void load_ok(const char *name, struct arch *a)
{
    char path[512], err[ARCH_ERR_MAX] = "";
    path_of(path, sizeof path, name);
    int rc = arch_load(path, NULL, 0, a, err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
}

/* Every value of every key equal (the schema covers every field). */
static void assert_same(const struct arch *x, const struct arch *y)
{
    int n;
    const struct arch_key *k = arch_schema_keys(&n);
    for (int i = 0; i < n; i++) {
        const char *px = (const char *)x + k[i].off, *py = (const char *)y + k[i].off;
        switch (k[i].type) {
        case AK_DOUBLE:
            if (*(const double *)(const void *)px != *(const double *)(const void *)py)
                fail_msg("%s differs", k[i].path);
            break;
        case AK_STRING:
            if (strcmp(px, py))
                fail_msg("%s differs", k[i].path);
            break;
        case AK_INTLIST: {
            int cx = *(const int *)(const void *)((const char *)x + k[i].count_off);
            int cy = *(const int *)(const void *)((const char *)y + k[i].count_off);
            if (cx != cy || memcmp(px, py, (size_t)cx * sizeof(int)))
                fail_msg("%s differs", k[i].path);
            break;
        }
        default:
            if (*(const int *)(const void *)px != *(const int *)(const void *)py)
                fail_msg("%s differs", k[i].path);
            break;
        }
    }
}

static void test_values(void **state)
{
    (void)state;
    struct arch a;
    /* H100 SXM5: CUDA Programming Guide CC 9.0 limits, datasheet */
    load_ok("h100", &a);
    assert_int_equal(a.cc_major, 9);
    assert_int_equal(a.sm_count, 132);
    assert_int_equal(a.max_warps_per_sm, 64);
    assert_int_equal(a.max_blocks_per_sm, 32);
    assert_int_equal(a.max_regs_per_thread, 255);
    assert_int_equal(a.smem_per_sm, 233472);
    assert_int_equal(a.smem_per_block_optin, 232448);
    assert_int_equal(a.n_carveouts, 10);
    assert_int_equal(a.carveouts_kb[9], 228);
    assert_int_equal(a.barrier_multiplier, 2);
    assert_int_equal(a.l2_size_kb, 50 * 1024);
    assert_true(a.dram_gbps == 3350.0);
    /* two FP32 datapaths of interval 2 (FMA-lite, FMA-heavy): 1 FFMA/cycle/SMSP */
    assert_int_equal(a.pipe[PIPE_FMA].issue_interval, 2);
    assert_int_equal(a.fmaheavy.issue_interval, 2);
    assert_int_equal(a.pipe[PIPE_FP64].issue_interval, 2);
    /* H200: same SM, measured L2 and HBM3e bandwidth (dram_gbps: the achievable
     * read stream measured by calib_bw, not the 4800 datasheet peak; every
     * calibrated value is checked against the data by tests/cli_calibration.sh) */
    load_ok("h200", &a);
    assert_int_equal(a.sm_count, 132);
    assert_true(a.sm_clock_mhz == 1980.0);
    assert_int_equal(a.l2_size_kb, 60 * 1024);
    assert_true(a.dram_gbps == 4600.0);
    /* A100 40GB: CC 8.0, half-rate FP32 per SMSP, no barrier limit */
    load_ok("a100", &a);
    assert_int_equal(a.cc_major * 10 + a.cc_minor, 80);
    assert_int_equal(a.sm_count, 108);
    assert_int_equal(a.smem_per_sm, 167936);
    assert_int_equal(a.carveouts_kb[a.n_carveouts - 1], 164);
    assert_int_equal(a.barrier_multiplier, 0);
    assert_int_equal(a.pipe[PIPE_FMA].issue_interval, 2);
    assert_int_equal(a.pipe[PIPE_FP64].issue_interval, 4);
    assert_int_equal(a.l2_size_kb, 40 * 1024);
    assert_true(a.dram_gbps == 1555.0);
    /* RTX 4090: CC 8.9, 48 warps / 24 blocks per SM */
    load_ok("rtx4090", &a);
    assert_int_equal(a.cc_major * 10 + a.cc_minor, 89);
    assert_int_equal(a.sm_count, 128);
    assert_int_equal(a.max_warps_per_sm, 48);
    assert_int_equal(a.max_threads_per_sm, 1536);
    assert_int_equal(a.max_blocks_per_sm, 24);
    assert_int_equal(a.smem_per_sm, 102400);
    assert_int_equal(a.l2_size_kb, 72 * 1024);
    assert_true(a.dram_gbps == 1008.0);
    assert_int_equal(a.pipe[PIPE_FP64].issue_interval, 64);
    /* RTX 3060 Ti: CC 8.6, 16 blocks per SM */
    load_ok("rtx3060ti", &a);
    assert_int_equal(a.cc_major * 10 + a.cc_minor, 86);
    assert_int_equal(a.sm_count, 38);
    assert_int_equal(a.max_blocks_per_sm, 16);
    assert_int_equal(a.n_carveouts, 6);
    assert_int_equal(a.l2_size_kb, 4 * 1024);
    assert_true(a.dram_gbps == 448.0);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int c = 0; c < N_CONFIGS; c++) {
        struct arch a, b;
        char err[ARCH_ERR_MAX] = "";
        char *y1 = NULL, *y2 = NULL;
        size_t l1 = 0, l2 = 0;
        load_ok(configs[c], &a);
        FILE *f = open_memstream(&y1, &l1);
        assert_non_null(f);
        arch_print_yaml(&a, f);
        fclose(f);
        int rc = arch_load_string(y1, "printed.yaml", NULL, 0, &b, err);
        if (rc)
            print_error("%s: %s\n", configs[c], err);
        assert_int_equal(rc, 0);
        assert_same(&a, &b);
        f = open_memstream(&y2, &l2);
        assert_non_null(f);
        arch_print_yaml(&b, f);
        fclose(f);
        assert_string_equal(y1, y2);
        free(y1);
        free(y2);
    }
    /* values that need care to print exactly */
    struct arch a, b;
    char err[ARCH_ERR_MAX] = "", *y = NULL;
    size_t l = 0;
    const struct arch_override ov[] = {
        { "gpu.name=\"quote \\\" and \\\\ backslash\"" },
        { "gpu.sm_clock_mhz=1234.0000000000002" },
        { "memory.l2_bytes_per_clk=0.1e4" },
        { "scheduler.policy=lrr" },
    };
    char path[512];
    path_of(path, sizeof path, "h100");
    assert_int_equal(arch_load(path, ov, 4, &a, err), 0);
    assert_string_equal(a.name, "quote \" and \\ backslash");
    FILE *f = open_memstream(&y, &l);
    arch_print_yaml(&a, f);
    fclose(f);
    assert_int_equal(arch_load_string(y, "printed.yaml", NULL, 0, &b, err), 0);
    assert_same(&a, &b);
    assert_true(b.sm_clock_mhz == 1234.0000000000002);
    free(y);
}

/* Every "key: value" line of a shipped config names its source in a
 * comment (quoted strings such as gpu.name excepted: not numbers). */
static void test_every_value_cites_a_source(void **state)
{
    (void)state;
    for (int c = 0; c < N_CONFIGS; c++) {
        char path[512], line[1024];
        path_of(path, sizeof path, configs[c]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        int ln = 0, values = 0;
        while (fgets(line, sizeof line, f)) {
            ln++;
            const char *s = line + strspn(line, " ");
            if (*s == '#' || *s == '\n' || !*s)
                continue;
            const char *colon = strstr(s, ": ");
            if (!colon)
                continue; /* a section header */
            const char *v = colon + 2 + strspn(colon + 2, " ");
            if (*v == '"' || *v == '#' || *v == '\n')
                continue;
            values++;
            if (!strchr(v, '#'))
                fail_msg("configs/%s.yaml:%d: value without a source comment", configs[c], ln);
        }
        fclose(f);
        assert_true(values >= 60); /* every key is written out */
    }
}

/* The schema covers every field of struct arch (only alignment padding is
 * left), and no two keys overlap: so loading, printing and the round-trip
 * comparison above miss nothing. */
static void test_schema_covers_struct(void **state)
{
    (void)state;
    unsigned char cover[sizeof(struct arch)];
    memset(cover, 0, sizeof cover);
    int n;
    const struct arch_key *k = arch_schema_keys(&n);
    for (int i = 0; i < n; i++) {
        size_t size = k[i].type == AK_DOUBLE ? sizeof(double)
                      : k[i].type == AK_STRING ? ARCH_NAME_MAX
                      : k[i].type == AK_INTLIST ? ARCH_MAX_CARVEOUTS * sizeof(int)
                      : sizeof(int);
        for (size_t b = 0; b < size; b++) {
            assert_true(k[i].off + b < sizeof cover);
            assert_int_equal(cover[k[i].off + b], 0);
            cover[k[i].off + b] = 1;
        }
        if (k[i].type == AK_INTLIST)
            for (size_t b = 0; b < sizeof(int); b++)
                cover[k[i].count_off + b] = 1;
        assert_int_equal(arch_schema_find(k[i].path), i);
    }
    /* uncovered bytes may only be padding before a double or at the end */
    for (size_t b = 0; b < sizeof cover;) {
        if (cover[b]) {
            b++;
            continue;
        }
        size_t e = b;
        while (e < sizeof cover && !cover[e])
            e++;
        if (e - b >= sizeof(double) || (e % sizeof(double) != 0 && e != sizeof cover))
            fail_msg("bytes %zu..%zu of struct arch have no configuration key", b, e - 1);
        b = e;
    }
    assert_int_equal(n, 116);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_every_value_cites_a_source),
        cmocka_unit_test(test_schema_covers_struct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
