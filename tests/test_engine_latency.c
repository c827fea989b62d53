/* test_engine_latency.c — latency hiding (Little's law), the scoreboards
 * and the throttles.
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

/* Average issue efficiency over the SMSPs that had warps. */
static double issue_eff(const struct stats_kernel *st)
{
    uint64_t iss = 0, cyc = 0;
    for (int i = 0; i < st->sm_count * st->smsp_per_sm; i++) {
        iss += st->smsp[i].issue_active;
        cyc += st->smsp[i].cycles_active;
    }
    return (double)iss / (double)cyc;
}

/* Pointer chase: LDG R0 <- [R0] hits L2 (footprint between L1 and L2, so
 * every sector is an L2 hit) with bandwidth so large that it adds nothing:
 * the load takes L = l2_latency + 1 (the one-cycle L1 stage).  Then n
 * independent FFMAs.  One trip of one warp issues n+1 instructions in L
 * cycles, so k warps per SMSP issue k(n+1)/L per cycle until 1. */
static double chase(int k, int n, int loops, int policy, struct stats_kernel *out)
{
    struct arch a;
    tu_arch(&a, 1);
    a.policy = policy;
    a.l1_bytes_per_clk = 1e9;
    a.l2_bytes_per_clk = 1e9;
    a.dram_gbps = 1e9;
    struct tr_inst body[64];
    body[0] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 0, 0, -1, 4, 8u << 20);
    for (int i = 0; i < n; i++)
        body[1 + i] = tu_alu(PIPE_FMA, 10 + i % 16, 1, 2, 3);
    struct tu_kernel t;
    /* k warps per SMSP = 4k warps; blocks of up to 1024 threads */
    int warps = 4 * k;
    int blocks = warps > 32 ? warps / 32 : 1;
    tu_kernel_init(&t, (uint32_t)blocks, (uint32_t)(32 * warps / blocks), body, n + 1,
                   (uint32_t)loops);
    struct engine_opts o;
    tu_opts(&o);
    run_ok(&a, &t, &o, out);
    assert_true(tu_identity_ok(out));
    assert_int_equal(out->l2_sector_hits, out->l2_sectors);
    assert_int_equal(out->dram_bytes, 0);
    return issue_eff(out);
}

static void littles_law(void **state)
{
    (void)state;
    const double L = 301.0;
    const int n = 15;
    for (int k = 1; k <= 8; k *= 2) {
        struct stats_kernel st;
        double eff = chase(k, n, 150, SCHED_GTO, &st);
        double want = k * (n + 1) / L;
        if (eff < want * 0.9 || eff > want * 1.1)
            fail_msg("k=%d: issue efficiency %.4f, Little's law %.4f", k, eff, want);
        /* the stall is the long scoreboard */
        assert_true(tu_state_sum(&st, WS_LONG_SCOREBOARD) > tu_state_sum(&st, WS_WAIT));
        stats_kernel_free(&st);
    }
    /* Far above saturation: 16 warps x 32 instructions per 301 cycles.
     * LRR rotates over all warps and keeps the scheduler busy.  GTO runs
     * the oldest warps first and starves the youngest, which then run
     * their whole stream at the end with too few companions (a tail at
     * k(n+1)/L < 1), so it is slower on this fixed amount of work. */
    struct stats_kernel st;
    double eff = chase(16, 31, 60, SCHED_LRR, &st);
    assert_true(eff > 0.95);
    assert_true(tu_state_sum(&st, WS_NOT_SELECTED) > 0);
    stats_kernel_free(&st);
    double gto = chase(16, 31, 60, SCHED_GTO, &st);
    assert_true(gto > 0.75 && gto < eff);
    stats_kernel_free(&st);
}

/* LDS R0 <- [R0] chain: ready smem_latency cycles after issue, so each load
 * leaves smem_latency-1 cycles of short_scoreboard; a 4-way conflict adds
 * three wavefronts. */
static void shared_chain(void **state)
{
    (void)state;
    for (int conflict = 1; conflict <= 4; conflict += 3) {
        struct arch a;
        tu_arch(&a, 1);
        struct tr_inst body[1] = {
            tu_mem(TR_K_LOAD, TR_SP_SHARED, TR_PAT_COALESCED, 0, 0, -1, 4, 0)};
        body[0].conflict = (uint8_t)conflict;
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 32, body, 1, 100);
        struct engine_opts o;
        tu_opts(&o);
        struct stats_kernel st;
        run_ok(&a, &t, &o, &st);
        uint64_t per = (uint64_t)a.smem_latency + (uint64_t)conflict - 1;
        assert_int_equal(st.smsp[0].state[WS_SHORT_SCOREBOARD], 99 * (per - 1));
        /* EXIT at 99 per + 1, then drain until the last load is back */
        assert_int_equal(st.cycles_elapsed, 100 * per);
        assert_int_equal(st.smsp[0].state[WS_DRAIN], per - 2);
        stats_kernel_free(&st);
    }
}

/* Independent LDGs from 8 warps per SMSP through a slow L1 (32 B/cycle, a
 * 128-byte request holds its queue slot 4 cycles): a one-deep LG queue
 * throttles, a deep one with a fast L1 never does. */
static void lg_throttle(void **state)
{
    (void)state;
    struct tr_inst body[8];
    for (int i = 0; i < 8; i++)
        body[i] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 4 + i, 1, -1, 4, 1024);
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 1024, body, 8, 20);
    struct engine_opts o;
    tu_opts(&o);

    struct arch a;
    tu_arch(&a, 1);
    a.lsu_queue_depth = 1;
    a.l1_bytes_per_clk = 32;
    struct stats_kernel slow;
    run_ok(&a, &t, &o, &slow);
    uint64_t thr = tu_state_sum(&slow, WS_LG_THROTTLE);
    assert_true(thr > TU_SUM(&slow, warps_active) / 4);
    assert_true(tu_identity_ok(&slow));

    a.lsu_queue_depth = 16;
    a.l1_bytes_per_clk = 1e6;
    struct stats_kernel fast;
    run_ok(&a, &t, &o, &fast);
    assert_int_equal(tu_state_sum(&fast, WS_LG_THROTTLE), 0);
    assert_true(fast.cycles_elapsed < slow.cycles_elapsed);
    /* footprint 1 KB fits L1: every load sector hits */
    assert_int_equal(fast.l1_sector_hits, fast.l1_sectors);
    assert_int_equal(fast.l1_sectors, 32ull * 20 * 8 * 4);
    stats_kernel_free(&slow);
    stats_kernel_free(&fast);
}

/* Independent MUFUs, 4 warps per SMSP: with issue_interval 8 the pipe
 * accepts one every 8 cycles and the others report math_pipe_throttle; with
 * interval 1 it never throttles. */
static void mufu_throttle(void **state)
{
    (void)state;
    struct tr_inst body[4];
    for (int i = 0; i < 4; i++)
        body[i] = tu_alu(PIPE_MUFU, 4 + i, 1, -1, -1);
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 512, body, 4, 50);
    struct engine_opts o;
    tu_opts(&o);
    struct arch a;
    tu_arch(&a, 1);
    a.pipe[PIPE_MUFU].issue_interval = 8;
    struct stats_kernel slow, fast;
    run_ok(&a, &t, &o, &slow);
    /* 4 warps x 200 MUFUs per SMSP at one per 8 cycles */
    assert_true(slow.smsp[0].cycles_active >= (4 * 200 - 1) * 8);
    assert_true(slow.smsp[0].cycles_active < 4 * 200 * 8 + 50);
    assert_true(tu_state_sum(&slow, WS_MATH_PIPE_THROTTLE) > TU_SUM(&slow, warps_active) / 2);
    a.pipe[PIPE_MUFU].issue_interval = 1;
    run_ok(&a, &t, &o, &fast);
    assert_int_equal(tu_state_sum(&fast, WS_MATH_PIPE_THROTTLE), 0);
    stats_kernel_free(&slow);
    stats_kernel_free(&fast);
}

/* MEMBAR waits for the warp's outstanding store's acknowledgement; EXIT
 * after a store drains only until the store has left the SM. */
static void membar_and_drain(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.l1_bytes_per_clk = 1e9;
    a.l2_bytes_per_clk = 1e9;
    struct tr_inst body[2] = {
        tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 1, 2, 4, 1024),
        tu_inst(TR_K_MEMBAR, PIPE_LSU)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 2, 3);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    /* store at s, complete at s+1+300 (L1 stage + L2 latency); MEMBAR at
     * s+301; three trips; then EXIT, nothing to drain. */
    assert_int_equal(st.smsp[0].state[WS_MEMBAR], 3 * 300);
    assert_int_equal(st.smsp[0].state[WS_DRAIN], 0);
    stats_kernel_free(&st);

    t.seg[0].n = 1; /* store only: EXIT right behind it */
    run_ok(&a, &t, &o, &st);
    /* stores at 0,1,2 leave the SM after the L1 stage (1, 2, 3), their L2
     * acknowledgements come at 301..303, but a warp's exit waits only for
     * its stores' data to leave: EXIT at 3 retires at 4, nothing drains */
    assert_int_equal(st.smsp[0].state[WS_DRAIN], 0);
    assert_int_equal(st.cycles_elapsed, 4);
    stats_kernel_free(&st);

    /* An L1 stage of 16 bytes per cycle: each 128-byte store holds it 8
     * cycles, so the three leave at 8, 16, 24; EXIT at 3 drains [4, 24). */
    a.l1_bytes_per_clk = 16;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.smsp[0].state[WS_DRAIN], 24 - 4);
    assert_int_equal(st.cycles_elapsed, 24);
    stats_kernel_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(littles_law),
        cmocka_unit_test(shared_chain),
        cmocka_unit_test(lg_throttle),
        cmocka_unit_test(mufu_throttle),
        cmocka_unit_test(membar_and_drain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
