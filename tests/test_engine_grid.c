/* test_engine_grid.c — block dispatch (waves), barriers, the observer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"

static void run_ok(const struct arch *a, struct tu_kernel *t, const struct engine_opts *o,
                   struct stats_kernel *st)
{
    char err[512];
    if (engine_run(a, &t->k, o, st, err) != 0)
        fail_msg("engine_run: %s", err);
}

/* 256-thread blocks, 32 registers: 8 resident per SM (warp limit), 4 SMs
 * -> a wave is 32 blocks.  Each warp issues a dependent FFMA chain; 16 warps
 * per SMSP keep it issue-bound, so three waves take three times as long. */
static void three_waves(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 4);
    a.block_launch_latency = 10;
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct engine_opts o;
    tu_opts(&o);
    struct tu_kernel t1, t3;
    tu_kernel_init(&t1, 32, 256, body, 1, 300);
    tu_kernel_init(&t3, 96, 256, body, 1, 300);
    struct stats_kernel s1, s3;
    run_ok(&a, &t1, &o, &s1);
    run_ok(&a, &t3, &o, &s3);
    assert_int_equal(s1.occ.blocks_per_sm, 8);
    double ratio = (double)s3.cycles_elapsed / (double)s1.cycles_elapsed;
    if (ratio < 3 * 0.95 || ratio > 3 * 1.05)
        fail_msg("three waves took %.3f x one wave", ratio);
    for (int m = 0; m < 4; m++) {
        assert_int_equal(s1.sm[m].blocks, 8);
        assert_int_equal(s3.sm[m].blocks, 24);
    }
    /* one wave is issue-bound: 16 warps x 301 instructions per SMSP, an
     * issue every cycle */
    assert_int_equal(s1.cycles_elapsed, 16 * 301);
    assert_int_equal(s1.smsp[0].issue_active, s1.smsp[0].cycles_active);
    assert_true(tu_identity_ok(&s3));
    stats_kernel_free(&s1);
    stats_kernel_free(&s3);
}

/* 1.25 waves with a cap of 2 blocks per SM: the tail runs on a quarter of
 * the block slots, and the cap is honoured. */
static void tail_and_cap(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 4);
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct engine_opts o;
    tu_opts(&o);
    o.blocks_per_sm_cap = 2;
    struct tu_kernel t;
    tu_kernel_init(&t, 10, 128, body, 1, 100);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    /* blocks 0..7 go to SMs 0,1,2,3,0,1,2,3; 8 and 9 follow on SMs 0 and 1 */
    assert_int_equal(st.sm[0].blocks, 3);
    assert_int_equal(st.sm[1].blocks, 3);
    assert_int_equal(st.sm[2].blocks, 2);
    assert_int_equal(st.sm[3].blocks, 2);
    /* 1 warp per SMSP per block, two blocks per SM.  Block 0: FFMAs at
     * 0..396, EXIT 397, retires 398.  Block 4 shares the SMSPs and loses
     * cycle 0 to the older block 0: FFMAs at 1, 5, ..., 393; its last one
     * loses cycle 397 to block 0's EXIT and issues at 398, EXIT at 399,
     * retiring at 400.  Block 8 is resident at 399 (one
     * cycle after block 0 left), loses cycle 399 to block 4's EXIT (older),
     * so its chain runs 400..796, EXIT 797, retire 798. */
    assert_int_equal(st.cycles_elapsed, 798);
    assert_true(st.sm[2].cycles_active < st.sm[0].cycles_active);
    stats_kernel_free(&st);
}

/* Observer: records per warp of block 0 its barrier intervals. */
struct bar_obs {
    uint64_t bar_end[4];    /* end of the last barrier interval       */
    uint64_t bar_cycles[4]; /* cycles spent at the barrier            */
    uint64_t first_sel[4];  /* first selected cycle at/after 100 cycles */
    uint64_t last_to[4];    /* intervals arrive in order               */
    int out_of_order;       /* an interval started before the last end */
    int blocks;             /* block_life calls                       */
};

static void obs_state(void *ud, int sm, int smsp, int slot, uint32_t block, uint32_t warp,
                      uint64_t from, uint64_t to, int st)
{
    struct bar_obs *b = ud;
    (void)sm;
    (void)smsp;
    (void)slot;
    if (block != 0 || warp > 3)
        return;
    if (from < b->last_to[warp] || to <= from)
        b->out_of_order = 1;
    b->last_to[warp] = to;
    if (st == WS_BARRIER) {
        b->bar_end[warp] = to;
        b->bar_cycles[warp] += to - from;
    }
    if (st == WS_SELECTED && from >= 100 && b->first_sel[warp] == 0)
        b->first_sel[warp] = from;
}

static void obs_block(void *ud, int sm, uint32_t block, uint64_t from, uint64_t to)
{
    struct bar_obs *b = ud;
    (void)sm;
    (void)block;
    (void)from;
    (void)to;
    b->blocks++;
}

/* Block of 4 warps (one per SMSP).  Warp 0 runs a 100-FFMA chain (issues at
 * 0..396) and then BAR at 397; warps 1..3 reach BAR at cycle 0 and wait
 * [1, 398): they issue nothing before warp 0 arrived.  With bar0 = 0 warp 0
 * exits at 397 instead, which releases them the same way. */
static void barrier_waits_for_all(void **state)
{
    (void)state;
    for (int exit_instead = 0; exit_instead <= 1; exit_instead++) {
        struct arch a;
        tu_arch(&a, 1);
        struct tr_inst chain[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
        struct tr_inst bar[1] = {tu_inst(TR_K_BARRIER, PIPE_CBU)};
        struct tr_inst after[1] = {tu_alu(PIPE_ALU, 5, 1, -1, -1)};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 128, chain, 1, 0);
        t.seg[0].loops0 = 100;
        t.seg[1] = (struct tu_seg){bar, 1, 1, exit_instead ? 0 : 1};
        t.seg[2] = (struct tu_seg){after, 1, 10, exit_instead ? 0 : 10};
        t.nseg = 3;
        t.k.launch.barriers = 1;
        struct bar_obs ob;
        memset(&ob, 0, sizeof ob);
        struct engine_observer eo = {&ob, obs_state, obs_block, 0, NULL, NULL};
        struct engine_opts o;
        tu_opts(&o);
        o.obs = &eo;
        struct stats_kernel st;
        run_ok(&a, &t, &o, &st);
        assert_false(ob.out_of_order);
        assert_int_equal(ob.blocks, 1);
        assert_int_equal(ob.bar_cycles[0], 0);
        for (int w = 1; w < 4; w++) {
            assert_int_equal(ob.bar_end[w], 398);
            assert_int_equal(ob.bar_cycles[w], 397);
            assert_int_equal(ob.first_sel[w], 398);
        }
        assert_int_equal(tu_state_sum(&st, WS_BARRIER), 3 * 397);
        stats_kernel_free(&st);
    }
}

/* A barrier that can never complete is an error, not a hang: warp 0 waits
 * at a barrier while another warp ... cannot happen (exits count as
 * arrivals), so instead check max_cycles stops a long run with one line. */
static void max_cycles_stops(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 1, 1000);
    struct engine_opts o;
    tu_opts(&o);
    o.max_cycles = 100;
    struct stats_kernel st;
    char err[512];
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), -1);
    assert_non_null(strstr(err, "max_cycles"));
}

/* A hand-filled configuration beyond arch_load's ranges is refused with one
 * line naming the key (the parallel run packs the SM index and the epoch
 * offset into a few bits), not run. */
static void arch_out_of_range(void **state)
{
    (void)state;
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 1, 10);
    struct engine_opts o;
    tu_opts(&o);
    o.threads = 2;
    struct stats_kernel st;
    char err[512];
    struct arch a;
    tu_arch(&a, 1);
    a.sm_count = 1025;
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), -1);
    assert_non_null(strstr(err, "gpu.sm_count must be 1..1024"));
    tu_arch(&a, 1);
    a.dram_latency = 100001;
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), -1);
    assert_non_null(strstr(err, "memory.dram_latency"));
    tu_arch(&a, 1);
    a.block_launch_latency = 1000001;
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), -1);
    assert_non_null(strstr(err, "scheduler.block_launch_latency"));
    tu_arch(&a, 1); /* and the largest accepted values run */
    a.l2_latency = 100000;
    a.dram_latency = 100000;
    a.block_launch_latency = 1000000;
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), 0);
    stats_kernel_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_waves),
        cmocka_unit_test(tail_and_cap),
        cmocka_unit_test(barrier_waits_for_all),
        cmocka_unit_test(max_cycles_stops),
        cmocka_unit_test(arch_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
