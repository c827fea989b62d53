/* test_stats_metrics.c — ncu metrics from hand-filled counters.
 * Every expected value is computed by hand in the comments.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "stats/stats.h"

/* A 1-SM GPU: 64 warps/SM, 4 SMSPs, 1000 MHz (1 cycle = 1 ns), 100 GB/s
 * DRAM (= 100 bytes per cycle), 32 blocks/SM, 1 KB driver reserve. */
static void test_arch(struct arch *a)
{
    memset(a, 0, sizeof *a);
    strcpy(a->name, "Test GPU");
    a->cc_major = 9;
    a->sm_count = 1;
    a->sm_clock_mhz = 1000.0;
    a->subpartitions = 4;
    a->warp_size = 32;
    a->max_warps_per_sm = 64;
    a->max_blocks_per_sm = 32;
    a->smem_reserved_per_block = 1024;
    a->dram_gbps = 100.0;
}

static void set_states(struct stats_smsp *p, const uint64_t st[WS_COUNT])
{
    memcpy(p->state, st, sizeof p->state);
}

/* The kernel of the whole file: grid 8x2 = 16 blocks of 128 threads.
 *            cycles_active warps_active eligible issue_active inst_issued
 *   smsp0        800          2400        1200       400          400
 *   smsp1        600          1800         300       200          200
 *   smsp2        400          1200         100       100          100
 *   smsp3        200           400         300       100          100
 *   sum         2000          5800        1900       800          800
 * SM 0: cycles_active 800, warps_active 5800 (= sum of its SMSPs), 16 blocks.
 * Per-SMSP states sum to its warps_active (every warp in exactly one state). */
static void fill(struct stats_kernel *s)
{
    assert_int_equal(stats_kernel_init(s, 1, 4), 0);
    strcpy(s->launch.name, "k");
    s->launch.grid[0] = 8; s->launch.grid[1] = 2; s->launch.grid[2] = 1;
    s->launch.block[0] = 128; s->launch.block[1] = 1; s->launch.block[2] = 1;
    s->launch.regs = 32;
    s->launch.smem_static = 1024;
    s->launch.smem_dynamic = 2048;
    s->occ.blocks_per_sm = 4;
    s->occ.limit_blocks = 32;
    s->occ.limit_registers = 16;
    s->occ.limit_shared_mem = INT_MAX; /* does not limit */
    s->occ.limit_warps = 16;
    s->occ.limit_barriers = 5; /* the header's term; the report shows ncu's */
    s->occ.limit_barriers_ncu = 4;
    s->occ.warps_per_block = 4;
    s->occ.active_warps = 16;
    s->occ.occupancy_pct = 25.0;
    s->occ.smem_config_bytes = 32768;
    s->cycles_elapsed = 1000;
    s->thread_inst = 800 * 32 - 1000;    /* 24600 */
    s->dram_bytes = 64000;
    s->l2_bytes = 96000;
    s->l1_sector_hits = 30; s->l1_sectors = 120;
    s->l2_sector_hits = 45; s->l2_sectors = 60;
    s->gld_sectors = 90; s->gst_sectors = 25;
    s->sm[0] = (struct stats_sm){ 800, 5800, 16 };

    struct stats_smsp *p = s->smsp;
    p[0] = (struct stats_smsp){ 800, 2400, 1200, 400, 400, {0} };
    /* sel 400 + notsel 800 + wait 300 + long 500 + short 100 + math 50 + mio 50
     * + barrier 100 + branch 50 + noinst 40 + dispatch 10 = 2400 */
    set_states(&p[0], (const uint64_t[WS_COUNT]){
        [WS_SELECTED] = 400, [WS_NOT_SELECTED] = 800, [WS_WAIT] = 300,
        [WS_LONG_SCOREBOARD] = 500, [WS_SHORT_SCOREBOARD] = 100,
        [WS_MATH_PIPE_THROTTLE] = 50, [WS_MIO_THROTTLE] = 50, [WS_BARRIER] = 100,
        [WS_BRANCH_RESOLVING] = 50, [WS_NO_INSTRUCTION] = 40, [WS_DISPATCH_STALL] = 10 });
    p[1] = (struct stats_smsp){ 600, 1800, 300, 200, 200, {0} };
    set_states(&p[1], (const uint64_t[WS_COUNT]){
        [WS_SELECTED] = 200, [WS_NOT_SELECTED] = 100, [WS_LONG_SCOREBOARD] = 1500 });
    p[2] = (struct stats_smsp){ 400, 1200, 100, 100, 100, {0} };
    set_states(&p[2], (const uint64_t[WS_COUNT]){
        [WS_SELECTED] = 100, [WS_BARRIER] = 1100 });
    p[3] = (struct stats_smsp){ 200, 400, 300, 100, 100, {0} };
    set_states(&p[3], (const uint64_t[WS_COUNT]){
        [WS_SELECTED] = 100, [WS_NOT_SELECTED] = 200, [WS_WAIT] = 100 });
}

static double get(const struct stats_metric *m, int n, const char *name)
{
    const struct stats_metric *x = stats_find(m, n, name);
    if (!x)
        fail_msg("metric %s missing", name);
    return x->value;
}

static const char *unit(const struct stats_metric *m, int n, const char *name)
{
    const struct stats_metric *x = stats_find(m, n, name);
    if (!x)
        fail_msg("metric %s missing", name);
    return x->unit;
}

#define EXPECT(name, v) assert_float_equal(get(m, n, name), (v), 1e-12)

static void test_values(void **state)
{
    struct stats_kernel s;
    struct arch a;
    test_arch(&a);
    fill(&s);
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&s, &a, m, STATS_METRICS_MAX);
    assert_true(n > 40 && n < STATS_METRICS_MAX);

    /* Launch statistics */
    EXPECT("launch__grid_size", 16);                 /* 8*2*1 */
    EXPECT("launch__block_size", 128);
    EXPECT("launch__thread_count", 2048);            /* 16*128 */
    EXPECT("launch__registers_per_thread", 32);
    EXPECT("launch__shared_mem_per_block_static", 1024);
    EXPECT("launch__shared_mem_per_block_dynamic", 2048);
    EXPECT("launch__shared_mem_per_block_driver", 1024);
    EXPECT("launch__shared_mem_config_size", 32768);
    EXPECT("launch__waves_per_multiprocessor", 4);   /* 16 / (4 blocks * 1 SM) */
    /* Occupancy */
    EXPECT("launch__occupancy_limit_blocks", 32);
    EXPECT("launch__occupancy_limit_registers", 16);
    assert_true(isinf(get(m, n, "launch__occupancy_limit_shared_mem"))); /* INT_MAX: unlimited */
    EXPECT("launch__occupancy_limit_warps", 16);
    EXPECT("launch__occupancy_limit_barriers", 4);
    EXPECT("sm__maximum_warps_avg_per_active_cycle", 16);
    EXPECT("sm__maximum_warps_per_active_cycle_pct", 25);       /* 16/64 */
    EXPECT("sm__warps_active.avg.per_cycle_active", 7.25);      /* 5800/800 */
    EXPECT("sm__warps_active.avg.pct_of_peak_sustained_active", 11.328125); /* 7.25/64 */
    /* Scheduler statistics: ratios of sums over the 4 SMSPs. */
    EXPECT("smsp__warps_active.avg.per_cycle_active", 2.9);     /* 5800/2000 */
    EXPECT("smsp__warps_eligible.avg.per_cycle_active", 0.95);  /* 1900/2000 */
    EXPECT("smsp__issue_active.avg.per_cycle_active", 0.4);     /* 800/2000 */
    EXPECT("smsp__issue_active.avg.pct_of_peak_sustained_active", 40);
    EXPECT("smsp__issue_inst0.avg.pct_of_peak_sustained_active", 60);
    EXPECT("smsp__inst_executed.avg.per_cycle_active", 0.4);
    /* Warp state: 5800 warp-cycles / 800 instructions */
    EXPECT("smsp__average_warp_latency_per_inst_issued.ratio", 7.25);
    EXPECT("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", 1.0);
    EXPECT("smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", 1.375); /* 1100/800 */
    EXPECT("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", 0.5);          /* 400/800 */
    EXPECT("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 2.5); /* 2000/800 */
    EXPECT("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", 0.125);
    EXPECT("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", 0.0625);
    EXPECT("smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", 0.0625);
    EXPECT("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", 0);
    EXPECT("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 1.5);       /* 1200/800 */
    EXPECT("smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", 0);
    EXPECT("smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio", 0.0625);
    EXPECT("smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio", 0.05);
    EXPECT("smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", 0.0125);
    EXPECT("smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", 0);
    EXPECT("smsp__thread_inst_executed_per_inst_executed.ratio", 30.75); /* 24600/800 */
    /* Cycles, instructions, memory */
    EXPECT("sm__cycles_elapsed.avg", 1000);
    EXPECT("sm__cycles_active.avg", 800);
    EXPECT("smsp__cycles_active.avg", 500);           /* 2000/4 */
    EXPECT("gpu__time_duration.sum", 1000);           /* 1000 cycles at 1 GHz = 1000 ns */
    EXPECT("sm__ctas_launched.sum", 16);
    EXPECT("smsp__inst_executed.sum", 800);
    EXPECT("smsp__thread_inst_executed.sum", 24600);
    EXPECT("sm__inst_executed.avg.per_cycle_active", 1.0);     /* 800/800 */
    EXPECT("sm__inst_executed.avg.per_cycle_elapsed", 0.8);    /* 800/(1000*1) */
    EXPECT("dram__bytes.sum", 64000);
    assert_float_equal(get(m, n, "dram__bytes.sum.per_second"), 6.4e10, 1e-3); /* 64000 B / 1 us */
    EXPECT("dram__bytes.sum.pct_of_peak_sustained_elapsed", 64); /* 64000/(100 B/clk*1000) */
    EXPECT("lts__t_bytes.sum", 96000);
    EXPECT("l1tex__t_sector_hit_rate.pct", 25);       /* 30/120 */
    EXPECT("lts__t_sector_hit_rate.pct", 75);         /* 45/60 */
    EXPECT("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 90);
    EXPECT("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 25);

    /* ncu's rollup is a ratio of sums, not the mean of per-SMSP ratios:
     * the mean would be (3 + 3 + 3 + 2) / 4 = 2.75, not 2.9. */
    assert_true(fabs(get(m, n, "smsp__warps_active.avg.per_cycle_active") - 2.75) > 0.1);

    /* Units as ncu writes them */
    assert_string_equal(unit(m, n, "smsp__warps_active.avg.per_cycle_active"), "warp");
    assert_string_equal(unit(m, n, "sm__warps_active.avg.pct_of_peak_sustained_active"), "%");
    assert_string_equal(unit(m, n, "sm__cycles_elapsed.avg"), "cycle");
    assert_string_equal(unit(m, n, "smsp__inst_executed.sum"), "inst");
    assert_string_equal(unit(m, n, "dram__bytes.sum"), "byte");
    assert_string_equal(unit(m, n, "dram__bytes.sum.per_second"), "byte/second");
    assert_string_equal(unit(m, n, "gpu__time_duration.sum"), "nsecond");
    assert_string_equal(unit(m, n, "launch__registers_per_thread"), "register/thread");
    assert_string_equal(unit(m, n, "launch__occupancy_limit_warps"), "block");
    stats_kernel_free(&s);
}

/* The stall ratios partition the warp latency: sum_R state[R]/issue_active
 * = warps_active/inst_issued when every resident warp is in one state and
 * one instruction issues per active issue cycle. */
static void test_stalls_sum_to_latency(void **state)
{
    struct stats_kernel s;
    struct arch a;
    test_arch(&a);
    fill(&s);
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&s, &a, m, STATS_METRICS_MAX);
    double sum = 0;
    int found = 0;
    for (int r = 0; r < WS_COUNT; r++) {
        char name[128];
        snprintf(name, sizeof name,
                 "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio",
                 stats_state_name(r));
        sum += get(m, n, name);
        found++;
    }
    assert_int_equal(found, WS_COUNT);
    double lat = get(m, n, "smsp__average_warp_latency_per_inst_issued.ratio");
    assert_float_equal(sum, lat, 1e-12 * lat);

    /* Same with awkward numbers that do not divide evenly. */
    for (int i = 0; i < 4; i++) {
        struct stats_smsp *p = &s.smsp[i];
        memset(p->state, 0, sizeof p->state);
        p->issue_active = p->inst_issued = 333 + 7 * (uint64_t)i;
        p->warps_active = 0;
        for (int r = 0; r < WS_COUNT; r++) {
            p->state[r] = (uint64_t)(r * 977 + i * 131 + 17) % 1013;
            p->warps_active += p->state[r];
        }
    }
    n = stats_metrics(&s, &a, m, STATS_METRICS_MAX);
    sum = 0;
    for (int r = 0; r < WS_COUNT; r++) {
        char name[128];
        snprintf(name, sizeof name,
                 "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio",
                 stats_state_name(r));
        sum += get(m, n, name);
    }
    lat = get(m, n, "smsp__average_warp_latency_per_inst_issued.ratio");
    assert_true(lat > 1.0);
    assert_float_equal(sum, lat, 1e-12 * lat);
    stats_kernel_free(&s);
}

/* A kernel that never ran anything: every ratio is 0, none NaN. */
static void test_idle_is_zero(void **state)
{
    struct stats_kernel s;
    struct arch a;
    test_arch(&a);
    assert_int_equal(stats_kernel_init(&s, 2, 4), 0);
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&s, &a, m, STATS_METRICS_MAX);
    for (int i = 0; i < n; i++) {
        if (!strncmp(m[i].name, "launch__occupancy_limit_", 24))
            continue;
        assert_true(isfinite(m[i].value));
        if (strncmp(m[i].name, "launch__", 8) && strcmp(m[i].name, "sm__maximum_warps_avg_per_active_cycle"))
            assert_float_equal(m[i].value, 0.0, 0.0);
    }
    EXPECT("launch__sm_count", 2);
    stats_kernel_free(&s);
}

/* Two SMs: SM-level rollups weight by active cycles too. */
static void test_two_sms(void **state)
{
    struct stats_kernel s;
    struct arch a;
    test_arch(&a);
    a.sm_count = 2;
    assert_int_equal(stats_kernel_init(&s, 2, 4), 0);
    s.cycles_elapsed = 100;
    /* SM0: 100 active cycles, 32 warps each -> 3200; SM1: 20 cycles x 8 -> 160.
     * avg per active cycle = 3360/120 = 28, not (32+8)/2 = 20. */
    s.sm[0] = (struct stats_sm){ 100, 3200, 3 };
    s.sm[1] = (struct stats_sm){ 20, 160, 1 };
    s.smsp[0].inst_issued = 50;
    s.smsp[5].inst_issued = 10;
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&s, &a, m, STATS_METRICS_MAX);
    EXPECT("sm__warps_active.avg.per_cycle_active", 28);
    EXPECT("sm__warps_active.avg.pct_of_peak_sustained_active", 43.75); /* 28/64 */
    EXPECT("sm__cycles_active.avg", 60);                    /* 120/2 */
    EXPECT("sm__inst_executed.avg.per_cycle_active", 0.5);  /* 60/120 */
    EXPECT("sm__inst_executed.avg.per_cycle_elapsed", 0.3); /* 60/(100*2) */
    EXPECT("sm__ctas_launched.sum", 4);
    stats_kernel_free(&s);
}

/* stats_metrics never writes past max and reports what it wrote. */
static void test_truncation(void **state)
{
    struct stats_kernel s;
    struct arch a;
    test_arch(&a);
    fill(&s);
    struct stats_metric m[6];
    memset(m, 0xAB, sizeof m);
    int n = stats_metrics(&s, &a, m, 5);
    assert_int_equal(n, 5);
    assert_string_equal(m[0].name, "launch__grid_size");
    unsigned char *tail = (unsigned char *)&m[5];
    for (size_t i = 0; i < sizeof m[5]; i++)
        assert_int_equal(tail[i], 0xAB);
    stats_kernel_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_stalls_sum_to_latency),
        cmocka_unit_test(test_idle_is_zero),
        cmocka_unit_test(test_two_sms),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
