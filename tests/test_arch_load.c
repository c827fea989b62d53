/* test_arch_load.c — loading a configuration: values, defaults, --set
 * overrides, and the exact one-line message for each class of bad input.
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

/* A complete minimal configuration (line numbers matter for the messages). */
static const char mini[] =
    "gpu:\n"                                                       /*  1 */
    "  name: \"Test GPU\"\n"                                       /*  2 */
    "  cc_major: 9\n"                                              /*  3 */
    "  cc_minor: 0\n"                                              /*  4 */
    "  sm_count: 132\n"                                            /*  5 */
    "  sm_clock_mhz: 1980\n"                                       /*  6 */
    "sm:\n"                                                        /*  7 */
    "  subpartitions: 4\n"                                         /*  8 */
    "  warp_size: 32\n"                                            /*  9 */
    "  max_warps: 64\n"                                            /* 10 */
    "  max_threads: 2048\n"                                        /* 11 */
    "  max_blocks: 32\n"                                           /* 12 */
    "  max_threads_per_block: 1024\n"                              /* 13 */
    "registers:\n"                                                 /* 14 */
    "  per_sm: 65536\n"                                            /* 15 */
    "  per_block: 65536\n"                                         /* 16 */
    "  max_per_thread: 255\n"                                      /* 17 */
    "  alloc_unit: 256\n"                                          /* 18 */
    "shared_memory:\n"                                             /* 19 */
    "  per_sm: 233472\n"                                           /* 20 */
    "  per_block: 49152\n"                                         /* 21 */
    "  per_block_optin: 232448\n"                                  /* 22 */
    "  reserved_per_block: 1024\n"                                 /* 23 */
    "  alloc_granularity: 128\n"                                   /* 24 */
    "  carveouts_kb: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]\n" /* 25 */
    "  l1_smem_total_kb: 256\n"                                    /* 26 */
    "barriers:\n"                                                  /* 27 */
    "  per_block: 16\n"                                            /* 28 */
    "  sm_multiplier: 2\n"                                         /* 29 */
    "memory:\n"                                                    /* 30 */
    "  l2_size_kb: 51200\n"                                        /* 31 */
    "  dram_gbps: 3350\n";                                         /* 32 */

/* mini with the first occurrence of `from` replaced by `to`. */
static char *variant(const char *from, const char *to)
{
    const char *at = strstr(mini, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - mini), fl = strlen(from), tl = strlen(to);
    char *s = malloc(sizeof mini + tl);
    assert_non_null(s);
    memcpy(s, mini, pre);
    memcpy(s + pre, to, tl);
    strcpy(s + pre + tl, at + fl);
    return s;
}

/* Load text with overrides; return the error (static buffer is the test's). */
static int load(const char *text, const char *const *sets, int n, struct arch *a, char *err)
{
    struct arch_override ov[8] = { { NULL } };
    for (int i = 0; i < n; i++)
        ov[i].text = sets[i];
    return arch_load_string(text, "t.yaml", ov, n, a, err);
}

/* The variant must fail with exactly `want`, on one line. */
static void expect_error(const char *text, const char *const *sets, int n, const char *want)
{
    struct arch a;
    char err[ARCH_ERR_MAX];
    memset(err, 0, sizeof err);
    int rc = load(text, sets, n, &a, err);
    if (rc == 0 || strcmp(err, want))
        print_error("want: %s\n got: %s (rc %d)\n", want, err, rc);
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
    assert_null(strchr(err, '\n'));
}

static void expect_variant_error(const char *from, const char *to, const char *want)
{
    char *s = variant(from, to);
    expect_error(s, NULL, 0, want);
    free(s);
}

static void expect_set_error(const char *set, const char *want)
{
    const char *sets[1] = { set };
    expect_error(mini, sets, 1, want);
}

/* ---- good input ---------------------------------------------------------- */

static void test_mini_values_and_defaults(void **state)
{
    (void)state;
    struct arch a;
    char err[ARCH_ERR_MAX] = "";
    assert_int_equal(load(mini, NULL, 0, &a, err), 0);
    assert_string_equal(a.name, "Test GPU");
    assert_int_equal(a.cc_major, 9);
    assert_int_equal(a.sm_count, 132);
    assert_true(a.sm_clock_mhz == 1980.0);
    assert_int_equal(a.max_warps_per_sm, 64);
    assert_int_equal(a.regs_per_block, 65536);
    assert_int_equal(a.smem_per_block_optin, 232448);
    assert_int_equal(a.n_carveouts, 10);
    assert_int_equal(a.carveouts_kb[0], 0);
    assert_int_equal(a.carveouts_kb[9], 228);
    assert_int_equal(a.barrier_multiplier, 2);
    assert_int_equal(a.l2_size_kb, 51200);
    /* documented defaults (docs/config.md) */
    assert_int_equal(a.policy, SCHED_GTO);
    assert_int_equal(a.issue_width, 1);
    assert_int_equal(a.pipe[PIPE_FMA].latency, 4);
    assert_int_equal(a.pipe[PIPE_FMA].issue_interval, 1);
    assert_int_equal(a.pipe[PIPE_FMA].dep, DEP_FIXED);
    assert_int_equal(a.pipe[PIPE_MUFU].issue_interval, 8);
    assert_int_equal(a.pipe[PIPE_MUFU].dep, DEP_SHORT);
    assert_int_equal(a.smem_banks, 32);
    assert_int_equal(a.dram_latency, 700);
    assert_true(a.l2_bytes_per_clk == 5120.0);
    /* 3350 GB/s at 1980 MHz = 3350e9 / 1980e6 B/cycle */
    assert_true(arch_dram_bytes_per_clk(&a) > 1691.91 && arch_dram_bytes_per_clk(&a) < 1691.92);
    assert_string_equal(arch_pipe_name(PIPE_TENSOR), "tensor");
    assert_string_equal(arch_policy_name(SCHED_LRR), "lrr");
}

static void test_block_and_flow_styles(void **state)
{
    (void)state;
    struct arch a;
    char err[ARCH_ERR_MAX] = "";
    char *s = variant("  carveouts_kb: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]\n",
                      "  carveouts_kb:\n    - 0\n    - 100\n    - 228\n");
    int rc = load(s, NULL, 0, &a, err);
    free(s);
    assert_int_equal(rc, 0);
    assert_int_equal(a.n_carveouts, 3);
    assert_int_equal(a.carveouts_kb[1], 100);
    /* a whole pipe section in flow style, and a comment-only line */
    char *t = variant("\nmemory:\n", "\npipes: {fma: {latency: 5, dep: short}}\n# note\nmemory:\n");
    rc = load(t, NULL, 0, &a, err);
    free(t);
    assert_int_equal(rc, 0);
    assert_int_equal(a.pipe[PIPE_FMA].latency, 5);
    assert_int_equal(a.pipe[PIPE_FMA].dep, DEP_SHORT);
    assert_int_equal(a.pipe[PIPE_FMA].issue_interval, 1); /* default kept */
}

static void test_overrides_apply(void **state)
{
    (void)state;
    struct arch a;
    char err[ARCH_ERR_MAX] = "";
    const char *sets[] = {
        "sm.max_blocks=16",
        "pipes.fma.latency=6",
        "scheduler.policy=lrr",
        "shared_memory.carveouts_kb=0,100,228",
        "gpu.name=\"My GPU: v2\"",
        "gpu.sm_clock_mhz=1755.5",
        "sm.max_blocks=24", /* a later override wins */
    };
    assert_int_equal(load(mini, sets, 7, &a, err), 0);
    assert_int_equal(a.max_blocks_per_sm, 24);
    assert_int_equal(a.pipe[PIPE_FMA].latency, 6);
    assert_int_equal(a.policy, SCHED_LRR);
    assert_int_equal(a.n_carveouts, 3);
    assert_int_equal(a.carveouts_kb[2], 228);
    assert_string_equal(a.name, "My GPU: v2");
    assert_true(a.sm_clock_mhz == 1755.5);

    const char *flow[] = { "shared_memory.carveouts_kb=[0, 8, 228]" };
    assert_int_equal(load(mini, flow, 1, &a, err), 0);
    assert_int_equal(a.n_carveouts, 3);
    assert_int_equal(a.carveouts_kb[1], 8);

    /* a required key missing from the file may come from --set */
    char *s = variant("  max_blocks: 32\n", "");
    const char *req[] = { "sm.max_blocks=32" };
    int rc = load(s, req, 1, &a, err);
    free(s);
    assert_int_equal(rc, 0);
    assert_int_equal(a.max_blocks_per_sm, 32);

    /* overrides are judged together: changing warps needs threads too */
    const char *pair[] = { "sm.max_warps=48", "sm.max_threads=1536" };
    assert_int_equal(load(mini, pair, 2, &a, err), 0);
    assert_int_equal(a.max_threads_per_sm, 1536);
}

/* ---- one test per class of bad input ----------------------------------- */

static void test_unknown_key(void **state)
{
    (void)state;
    expect_variant_error("  max_blocks: 32", "  max_block: 32",
                         "t.yaml:12:3: unknown key 'max_block' in section 'sm' "
                         "(did you mean 'max_blocks'?)");
    expect_variant_error("  max_blocks: 32", "  l2_size_kb: 32",
                         "t.yaml:12:3: unknown key 'l2_size_kb' in section 'sm' "
                         "(did you mean 'memory.l2_size_kb'?)");
    expect_variant_error("\nmemory:\n", "\nfoo:\n  x: 1\nmemory:\n",
                         "t.yaml:30:1: unknown section 'foo'");
    expect_variant_error("\nmemory:\n", "\npipes:\n  fma:\n    latncy: 4\nmemory:\n",
                         "t.yaml:32:5: unknown key 'latncy' in section 'pipes.fma' "
                         "(did you mean 'latency'?)");
    expect_variant_error("\nmemory:\n", "\npipes:\n  texture:\n    latency: 4\nmemory:\n",
                         "t.yaml:31:3: unknown key 'texture' in section 'pipes'");
}

static void test_missing_required(void **state)
{
    (void)state;
    expect_variant_error("  max_warps: 64\n", "",
                         "t.yaml:7:1: missing required key 'sm.max_warps'");
    expect_variant_error("  carveouts_kb: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]\n", "",
                         "t.yaml:19:1: missing required key 'shared_memory.carveouts_kb'");
    expect_variant_error("barriers:\n  per_block: 16\n  sm_multiplier: 2\n", "",
                         "t.yaml:1:1: missing required section 'barriers' "
                         "(first required key: 'barriers.per_block')");
    expect_error("", NULL, 0,
                 "t.yaml:1:1: missing required section 'gpu' (first required key: 'gpu.name')");
}

static void test_wrong_type(void **state)
{
    (void)state;
    expect_variant_error("  max_warps: 64", "  max_warps: abc",
                         "t.yaml:10:14: sm.max_warps: expected an integer, got 'abc'");
    expect_variant_error("  max_warps: 64", "  max_warps: 12.5",
                         "t.yaml:10:14: sm.max_warps: expected an integer, got '12.5'");
    expect_variant_error("  max_warps: 64", "  max_warps: \"64\"",
                         "t.yaml:10:14: sm.max_warps: expected an integer, got quoted string '64'");
    expect_variant_error("  max_warps: 64", "  max_warps: [64]",
                         "t.yaml:10:14: sm.max_warps: expected an integer, got a list");
    expect_variant_error("  max_warps: 64", "  max_warps:",
                         "t.yaml:10:13: sm.max_warps: expected an integer, got ''");
    expect_variant_error("  sm_clock_mhz: 1980", "  sm_clock_mhz: fast",
                         "t.yaml:6:17: gpu.sm_clock_mhz: expected a number, got 'fast'");
    expect_variant_error("\nmemory:\n", "\nscheduler:\n  policy: fifo\nmemory:\n",
                         "t.yaml:31:11: scheduler.policy: expected one of gto, lrr, gty, gyb, gob, grr, got 'fifo'");
    expect_variant_error("  carveouts_kb: [0, 8, 16,", "  carveouts_kb: [0, 8, x,",
                         "t.yaml:25:24: shared_memory.carveouts_kb[2]: expected an integer, "
                         "got 'x'");
    expect_variant_error("sm:\n  subpartitions: 4\n", "sm: 4\nsmx:\n  subpartitions: 4\n",
                         "t.yaml:7:5: sm: expected a mapping of keys, got '4'");
    expect_error("- 1\n", NULL, 0,
                 "t.yaml:1:1: expected a mapping of sections (gpu:, sm:, ...) at top level, "
                 "got a list");
}

static void test_out_of_range(void **state)
{
    (void)state;
    expect_variant_error("  max_warps: 64", "  max_warps: 0",
                         "t.yaml:10:14: sm.max_warps: 0 is out of range [1, 1024]");
    expect_variant_error("  max_warps: 64", "  max_warps: 99999999999999999999",
                         "t.yaml:10:14: sm.max_warps: 99999999999999999999 is out of range "
                         "[1, 1024]");
    expect_variant_error("  max_warps: 64", "  max_warps: -3",
                         "t.yaml:10:14: sm.max_warps: -3 is out of range [1, 1024]");
    expect_variant_error("  dram_gbps: 3350", "  dram_gbps: 0.5",
                         "t.yaml:32:14: memory.dram_gbps: 0.5 is out of range [1, 1000000]");
    expect_variant_error("  dram_gbps: 3350", "  dram_gbps: 1e999",
                         "t.yaml:32:14: memory.dram_gbps: 1e999 is out of range [1, 1000000]");
    expect_variant_error("  name: \"Test GPU\"",
                         "  name: \"0123456789012345678901234567890123456789012345678901234567890123\"",
                         "t.yaml:2:9: gpu.name: must be 1 to 63 bytes long, got 64");
    expect_variant_error("  carveouts_kb: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]",
                         "  carveouts_kb: [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]",
                         "t.yaml:25:56: shared_memory.carveouts_kb: at most 16 entries");
    expect_variant_error("  carveouts_kb: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]",
                         "  carveouts_kb: []",
                         "t.yaml:25:17: shared_memory.carveouts_kb: the list must not be empty");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    expect_variant_error("  max_warps: 64\n", "  max_warps: 64\n  max_warps: 48\n",
                         "t.yaml:11:3: duplicate key 'sm.max_warps' (first at line 10)");
    expect_variant_error("\nmemory:\n", "\nsm:\n  warp_size: 32\nmemory:\n",
                         "t.yaml:30:1: duplicate section 'sm' (first at line 7)");
}

static void test_malformed_yaml(void **state)
{
    (void)state;
    expect_variant_error("  max_warps: 64", "\tmax_warps: 64",
                         "t.yaml:10:1: malformed YAML: found a tab character that violates "
                         "indentation (while scanning a plain scalar)");
    expect_variant_error("  name: \"Test GPU\"", "  name: \"Test GPU",
                         "t.yaml:33:1: malformed YAML: found unexpected end of stream "
                         "(while scanning a quoted scalar)");
    expect_variant_error("  max_warps: 64", "   max_warps: 64",
                         "t.yaml:10:13: malformed YAML: mapping values are not allowed in this "
                         "context");
    expect_variant_error("\nmemory:\n", "\n---\nmemory:\n",
                         "t.yaml:30:1: only one YAML document is allowed");
    expect_variant_error("sm:\n", "sm: &a\n", "t.yaml:7:5: YAML anchors are not supported");
}

static void test_inconsistent(void **state)
{
    (void)state;
    expect_variant_error("  per_block: 65536", "  per_block: 70000",
                         "t.yaml:16:14: registers.per_block (70000) exceeds registers.per_sm "
                         "(65536)");
    expect_variant_error("  max_threads: 2048", "  max_threads: 2000",
                         "t.yaml:11:16: sm.max_threads (2000) must equal sm.max_warps x "
                         "sm.warp_size (64 x 32 = 2048)");
    expect_variant_error("  subpartitions: 4", "  subpartitions: 3",
                         "t.yaml:8:18: sm.subpartitions (3) must divide sm.max_warps (64)");
    expect_variant_error("  max_threads_per_block: 1024", "  max_threads_per_block: 4096",
                         "t.yaml:13:26: sm.max_threads_per_block (4096) exceeds sm.max_threads "
                         "(2048)");
    expect_variant_error("  per_block_optin: 232448", "  per_block_optin: 233472",
                         "t.yaml:22:20: shared_memory.per_block_optin + reserved_per_block "
                         "(233472 + 1024 = 234496) exceeds shared_memory.per_sm (233472)");
    expect_variant_error("[0, 8, 16, 32,", "[0, 16, 8, 32,",
                         "t.yaml:25:17: shared_memory.carveouts_kb must be strictly ascending "
                         "(entry 2 is 8 after 16)");
    expect_variant_error("196, 228]", "196]",
                         "t.yaml:25:17: largest shared_memory.carveouts_kb entry (196 KiB = "
                         "200704 bytes) must equal shared_memory.per_sm (233472)");
    expect_variant_error("  cc_major: 9", "  cc_major: 8",
                         "t.yaml:29:18: barriers.sm_multiplier must be 0 below compute "
                         "capability 9.0 (got 2 for CC 8.0): the CUDA occupancy rules have no "
                         "barrier limit there");
    /* a rule broken by an override is reported at that override */
    expect_set_error("sm.max_threads=1024",
                     "--set:1:16: sm.max_threads (1024) must equal sm.max_warps x sm.warp_size "
                     "(64 x 32 = 2048)");
    expect_set_error("memory.l2_latency=900",
                     "--set:1:19: memory.l2_latency (900) exceeds memory.dram_latency (700)");
    /* the override that broke a rule is blamed, not the file's key */
    expect_set_error("sm.max_warps=48",
                     "--set:1:14: sm.max_threads (2048) must equal sm.max_warps x sm.warp_size "
                     "(48 x 32 = 1536)");
    const char *two[] = { "memory.dram_latency=100", "memory.l2_latency=200" };
    expect_error(mini, two, 2,
                 "--set:2:19: memory.l2_latency (200) exceeds memory.dram_latency (100)");
    /* a rule broken through a default (l2_latency 290) is reported at the
     * involved key that was set */
    expect_variant_error("  l2_size_kb: 51200\n", "  l2_size_kb: 51200\n  dram_latency: 200\n",
                         "t.yaml:32:17: memory.l2_latency (290) exceeds memory.dram_latency "
                         "(200)");
    expect_set_error("memory.l1_mshr_inst_entries=2",
                     "--set:1:29: memory.l1_mshr_inst_entries (2) needs memory.l1_mshr_lines (0) "
                     "larger than it: a one-line load takes 1 + l1_mshr_inst_entries entries "
                     "(0 lines = no miss table)");
    const char *sets[] = { "memory.dram_latency=200" };
    expect_error(mini, sets, 1,
                 "--set:1:21: memory.l2_latency (290) exceeds memory.dram_latency (200)");

}

static void test_bad_set_syntax(void **state)
{
    (void)state;
    expect_set_error("sm.max_warps", "--set:1:1: expected section.key=value, got 'sm.max_warps'");
    expect_set_error("=64", "--set:1:1: expected section.key=value, got '=64'");
    expect_set_error("sm=64", "--set:1:1: 'sm' is a section, not a key; give section.key=value");
    expect_set_error("sm.max_warps=abc",
                     "--set:1:14: sm.max_warps: expected an integer, got 'abc'");
    expect_set_error("sm.max_warps=", "--set:1:14: sm.max_warps: expected an integer, got ''");
    expect_set_error("sm.max_warps=2000",
                     "--set:1:14: sm.max_warps: 2000 is out of range [1, 1024]");
    expect_set_error("shared_memory.carveouts_kb=0,8,x",
                     "--set:1:32: shared_memory.carveouts_kb[2]: expected an integer, got 'x'");
    expect_set_error("shared_memory.carveouts_kb=[0,8",
                     "--set:1:32: malformed YAML: did not find expected ',' or ']' "
                     "(while parsing a flow sequence)");
    /* the line number is the override's position */
    const char *sets[] = { "sm.max_blocks=16", "pipes.fma.dep=slow" };
    expect_error(mini, sets, 2,
                 "--set:2:15: pipes.fma.dep: expected one of fixed, short, got 'slow'");
}

static void test_unknown_set_key(void **state)
{
    (void)state;
    expect_set_error("sm.max_warp=64",
                     "--set:1:1: unknown key 'sm.max_warp' (did you mean 'sm.max_warps'?)");
    expect_set_error("max_warps=64",
                     "--set:1:1: unknown key 'max_warps' (did you mean 'sm.max_warps'?)");
    expect_set_error("foo.bar=1", "--set:1:1: unknown key 'foo.bar'");
}

static void test_nonexistent_file(void **state)
{
    (void)state;
    struct arch a;
    char err[ARCH_ERR_MAX];
    assert_int_equal(arch_load("/nonexistent/smsim/x.yaml", NULL, 0, &a, err), -1);
    assert_string_equal(err, "/nonexistent/smsim/x.yaml: cannot open: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mini_values_and_defaults),
        cmocka_unit_test(test_block_and_flow_styles),
        cmocka_unit_test(test_overrides_apply),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_missing_required),
        cmocka_unit_test(test_wrong_type),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_malformed_yaml),
        cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_bad_set_syntax),
        cmocka_unit_test(test_unknown_set_key),
        cmocka_unit_test(test_nonexistent_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
