/* test_engine_issue.c — issue efficiency of dependent chains, the state
 * identity, determinism and exact skipping.
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
    int rc = engine_run(a, &t->k, o, st, err);
    if (rc != 0)
        fail_msg("engine_run: %s", err);
}

/* One warp, FFMA R0 = R0*R1+R2 repeated N times, latency 4, interval 1:
 * issues at 0, 4, ..., 4(N-1), EXIT (no sources) at 4(N-1)+1, retires one
 * cycle later.  Each dependent FFMA waits exactly 3 cycles. */
static void ffma_one_warp(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct tu_kernel t;
    const uint32_t N = 4000;
    tu_kernel_init(&t, 1, 32, body, 1, N);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);

    const struct stats_smsp *s0 = &st.smsp[0];
    assert_int_equal(s0->inst_issued, N + 1);
    assert_int_equal(s0->issue_active, N + 1);
    assert_int_equal(st.cycles_elapsed, 4 * (N - 1) + 2);
    assert_int_equal(s0->cycles_active, 4 * (N - 1) + 2);
    assert_int_equal(s0->state[WS_WAIT], 3 * (N - 1));
    assert_int_equal(s0->state[WS_SELECTED], N + 1);
    assert_int_equal(st.thread_inst, 32ull * (N + 1));
    double eff = (double)s0->issue_active / (double)s0->cycles_active;
    assert_true(eff > 0.25 * 0.99 && eff < 0.25 * 1.01);
    double wait_per_issue = (double)s0->state[WS_WAIT] / (double)s0->issue_active;
    assert_true(wait_per_issue > 2.97 && wait_per_issue < 3.0);
    /* the other SMSPs never had a warp */
    assert_int_equal(st.smsp[1].cycles_active, 0);
    assert_true(tu_identity_ok(&st));
    /* one warp_next call per issued instruction (the last returns EXIT) */
    assert_int_equal(t.next_calls, N + 1);
    stats_kernel_free(&st);
}

/* 512 threads on one SM: 16 warps, 4 per SMSP; four independent chains of
 * latency 4 keep the scheduler busy every cycle. */
static void ffma_four_warps_per_smsp(void **state)
{
    (void)state;
    for (int policy = SCHED_GTO; policy <= SCHED_LRR; policy++) {
        struct arch a;
        tu_arch(&a, 1);
        a.policy = policy;
        struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 512, body, 1, 2000);
        struct engine_opts o;
        tu_opts(&o);
        struct stats_kernel st;
        run_ok(&a, &t, &o, &st);
        for (int s = 0; s < 4; s++) {
            const struct stats_smsp *p = &st.smsp[s];
            assert_int_equal(p->inst_issued, 4 * 2001);
            double eff = (double)p->issue_active / (double)p->cycles_active;
            assert_true(eff > 0.99);
            /* 4 resident warps every active cycle (until they retire) */
            double warps = (double)p->warps_active / (double)p->cycles_active;
            assert_true(warps > 3.9 && warps <= 4.0);
        }
        assert_true(tu_identity_ok(&st));
        stats_kernel_free(&st);
    }
}

/* Two warps per SMSP on a chain of latency 4: 50 % issue, and the breakdown
 * of stall reasons per issue sums to warp cycles per issued instruction. */
static void breakdown_sums_to_cpi(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 2);
    struct tr_inst body[2] = {tu_alu(PIPE_FMA, 0, 0, 1, 2), tu_alu(PIPE_MUFU, 3, 0, -1, -1)};
    struct tu_kernel t;
    tu_kernel_init(&t, 6, 256, body, 2, 300);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_true(tu_identity_ok(&st));
    for (int i = 0; i < st.sm_count * st.smsp_per_sm; i++) {
        const struct stats_smsp *p = &st.smsp[i];
        if (p->issue_active == 0)
            continue;
        double sum = 0;
        for (int w = 0; w < WS_COUNT; w++)
            sum += (double)p->state[w] / (double)p->issue_active;
        double cpi = (double)p->warps_active / (double)p->issue_active;
        assert_true(sum > cpi - 1e-9 && sum < cpi + 1e-9);
        assert_true(p->warps_eligible >= p->issue_active);
        assert_int_equal(p->warps_eligible,
                         p->state[WS_SELECTED] + p->state[WS_NOT_SELECTED]);
    }
    /* SM-level: warps_active is the sum of its SMSPs */
    for (int m = 0; m < st.sm_count; m++) {
        uint64_t w = 0;
        for (int s = 0; s < 4; s++)
            w += st.smsp[m * 4 + s].warps_active;
        assert_int_equal(st.sm[m].warps_active, w);
    }
    assert_int_equal(st.sm[0].blocks + st.sm[1].blocks, 6);
    stats_kernel_free(&st);
}

/* A kernel that exercises every mechanism: random loads over a footprint
 * larger than L1 (hit draws), stores, shared memory with conflicts, MUFU,
 * a barrier, a branch, a MEMBAR. */
static void mixed_kernel(struct tu_kernel *t, struct tr_inst *body, int *n)
{
    int k = 0;
    body[k++] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_RANDOM, 4, 1, -1, 4, 4u << 20);
    body[k++] = tu_alu(PIPE_FMA, 5, 4, 2, 3);
    body[k++] = tu_mem(TR_K_LOAD, TR_SP_SHARED, TR_PAT_COALESCED, 6, 1, -1, 4, 0);
    body[k - 1].conflict = 4;
    body[k++] = tu_alu(PIPE_MUFU, 7, 6, -1, -1);
    body[k++] = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 1, 7, 4, 1ull << 32);
    body[k++] = tu_inst(TR_K_BARRIER, PIPE_CBU);
    body[k++] = tu_alu(PIPE_ALU, 1, 1, -1, -1);
    body[k++] = tu_inst(TR_K_MEMBAR, PIPE_LSU);
    body[k++] = tu_inst(TR_K_BRANCH, PIPE_CBU);
    *n = k;
    tu_kernel_init(t, 40, 192, body, k, 30);
}

static void deterministic_and_skip_exact(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 3);
    a.fetch_latency = 3;
    a.branch_latency = 5;
    a.block_launch_latency = 20;
    a.lsu_queue_depth = 2;
    a.l1_bytes_per_clk = 32;
    a.mio_queue_depth = 2;
    struct tr_inst body[16];
    int n;
    struct tu_kernel t;
    mixed_kernel(&t, body, &n);
    for (int policy = SCHED_GTO; policy <= SCHED_LRR; policy++) {
        a.policy = policy;
        struct engine_opts o;
        tu_opts(&o);
        o.seed = 42;
        struct stats_kernel s1, s2, s3;
        run_ok(&a, &t, &o, &s1);
        run_ok(&a, &t, &o, &s2);
        o.no_skip = 1;
        run_ok(&a, &t, &o, &s3);
        tu_assert_same(&s1, &s2, 0); /* events excluded */
        assert_int_equal(s1.events, s2.events);
        tu_assert_same(&s1, &s3, 0);
        /* skipping really skipped something */
        assert_true(s1.events < s3.events);
        assert_true(tu_identity_ok(&s1));
        /* the mechanisms were exercised */
        assert_true(tu_state_sum(&s1, WS_LONG_SCOREBOARD) > 0);
        assert_true(tu_state_sum(&s1, WS_SHORT_SCOREBOARD) > 0);
        assert_true(tu_state_sum(&s1, WS_BARRIER) > 0);
        assert_true(tu_state_sum(&s1, WS_BRANCH_RESOLVING) > 0);
        assert_true(tu_state_sum(&s1, WS_NO_INSTRUCTION) > 0);
        assert_true(tu_state_sum(&s1, WS_LG_THROTTLE) > 0);
        assert_true(s1.l1_sector_hits > 0 && s1.l1_sector_hits < s1.l1_sectors);
        /* another seed draws other hits */
        o.no_skip = 0;
        o.seed = 43;
        struct stats_kernel s4;
        run_ok(&a, &t, &o, &s4);
        assert_true(s4.l1_sector_hits != s1.l1_sector_hits);
        stats_kernel_free(&s1);
        stats_kernel_free(&s2);
        stats_kernel_free(&s3);
        stats_kernel_free(&s4);
    }
}

/* Fetch: a warp waits fetch_latency cycles at launch (no_instruction); a
 * branch costs branch_latency cycles of branch_resolving, then
 * branch_fetch cycles of no_instruction while its target is fetched. */
static void fetch_and_branch(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.fetch_latency = 10;
    a.branch_latency = 7;
    struct tr_inst body[2] = {tu_alu(PIPE_ALU, 3, 1, -1, -1), tu_inst(TR_K_BRANCH, PIPE_CBU)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 2, 50);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    const struct stats_smsp *p = &st.smsp[0];
    assert_int_equal(p->state[WS_NO_INSTRUCTION], 10);
    assert_int_equal(p->state[WS_BRANCH_RESOLVING], 50 * 7);
    assert_int_equal(p->inst_issued, 101);
    /* ALU, BRA each 1 cycle + 7 after each branch, + EXIT, + 10 fetch */
    assert_int_equal(st.cycles_elapsed, 10 + 50 * (2 + 7) + 1);
    stats_kernel_free(&st);
    /* the target's fetch: 3 more cycles after each of the 50 branches, in
     * no_instruction (branch_resolving unchanged) */
    a.branch_fetch = 3;
    run_ok(&a, &t, &o, &st);
    p = &st.smsp[0];
    assert_int_equal(p->state[WS_NO_INSTRUCTION], 10 + 50 * 3);
    assert_int_equal(p->state[WS_BRANCH_RESOLVING], 50 * 7);
    assert_int_equal(st.cycles_elapsed, 10 + 50 * (2 + 7 + 3) + 1);
    stats_kernel_free(&st);
}

/* A launch occupancy rejects is an error with one line, not a crash. */
static void impossible_launch(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[1] = {tu_alu(PIPE_FMA, 0, 0, 1, 2)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 256, body, 1, 1);
    t.k.launch.smem_static = 300 * 1024;
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    char err[512];
    assert_int_equal(engine_run(&a, &t.k, &o, &st, err), -1);
    assert_non_null(strstr(err, "cannot run"));
    assert_null(strchr(err, '\n'));
}

/* Cycles for one warp per SMSP (128 threads) running n trips of 8
 * independent instructions: FMA-pipe ones of datapath path[i], or ALU-pipe
 * ones where path[i] is -1. */
static uint64_t fma_mix_cycles(const struct arch *a, const int *path, uint32_t n)
{
    struct tr_inst body[8];
    for (int i = 0; i < 8; i++) {
        body[i] = tu_alu(path[i] < 0 ? PIPE_ALU : PIPE_FMA, 10 + i, 1, 2, 3);
        body[i].fma_path = (uint8_t)(path[i] < 0 ? TR_FMA_ANY : path[i]);
    }
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 128, body, 8, n);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(a, &t, &o, &st);
    assert_true(tu_identity_ok(&st));
    uint64_t c = st.cycles_elapsed;
    stats_kernel_free(&st);
    return c;
}

/* pipes.fmaheavy: with two datapaths of interval 2, FP32 issues every cycle
 * (alternating), heavy-only (IMAD) every 2nd cycle, FP16x2 (both) every 2nd;
 * half FP32 / half IMAD keeps both datapaths full: 1 per cycle.  Unset
 * (issue_interval 0) the fma pipe is one pipe as before. */
static void fma_datapaths(void **state)
{
    (void)state;
    const uint32_t N = 200;
    static const int any[8] = {0}, heavy[8] = {1, 1, 1, 1, 1, 1, 1, 1},
                     both[8] = {2, 2, 2, 2, 2, 2, 2, 2}, mix[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    struct arch a;
    tu_arch(&a, 1);
    uint64_t one = fma_mix_cycles(&a, any, N);
    assert_int_equal(fma_mix_cycles(&a, heavy, N), one); /* unset: paths ignored */
    a.pipe[PIPE_FMA].issue_interval = 2;
    a.fmaheavy.latency = 4;
    a.fmaheavy.issue_interval = 2;
    a.fmaheavy.dep = DEP_FIXED;
    uint64_t c_any = fma_mix_cycles(&a, any, N);
    uint64_t c_heavy = fma_mix_cycles(&a, heavy, N);
    uint64_t c_both = fma_mix_cycles(&a, both, N);
    uint64_t c_mix = fma_mix_cycles(&a, mix, N);
    assert_int_equal(c_any, one);                    /* 1 per cycle, as one pipe of 1 */
    assert_int_equal(c_mix, one);
    assert_int_equal(c_heavy - c_any, 8 * N - 1);    /* 2 cycles each instead of 1 */
    assert_int_equal(c_both, c_heavy);
    /* doubling N doubles the difference: it is per instruction */
    assert_int_equal(fma_mix_cycles(&a, heavy, 2 * N) - fma_mix_cycles(&a, any, 2 * N),
                     16 * N - 1);
}

/* IMAD.WIDE (TR_FMA_WIDE) holds FMA-heavy for two intervals: 4 cycles each
 * where IMAD takes 2.  pipes.fmaheavy.shares_alu makes the ALU pipe and
 * FMA-heavy one datapath: ALU and IMAD alternating issue every cycle on two
 * datapaths but every 2nd on one; ALU and FP32 alternating still every cycle
 * (FP32 takes FMA-lite).  kit8 misl1p: ALU + FMA-heavy active 98-105 % of
 * the cycles where the L1-hit loop saturates (docs/calibration.md). */
static void wide_and_shared_alu(void **state)
{
    (void)state;
    const uint32_t N = 200;
    static const int any[8] = {0}, heavy[8] = {1, 1, 1, 1, 1, 1, 1, 1},
                     wide[8] = {3, 3, 3, 3, 3, 3, 3, 3},
                     alu_heavy[8] = {-1, 1, -1, 1, -1, 1, -1, 1},
                     alu_fp32[8] = {-1, 0, -1, 0, -1, 0, -1, 0};
    struct arch a;
    tu_arch(&a, 1);
    a.pipe[PIPE_FMA].issue_interval = 2;
    a.pipe[PIPE_ALU].issue_interval = 2;
    a.fmaheavy.latency = 4;
    a.fmaheavy.issue_interval = 2;
    a.fmaheavy.dep = DEP_FIXED;
    uint64_t c_any = fma_mix_cycles(&a, any, N);
    uint64_t c_heavy = fma_mix_cycles(&a, heavy, N);
    assert_int_equal(fma_mix_cycles(&a, wide, N) - c_any, 3 * (8 * N - 1));
    assert_int_equal(fma_mix_cycles(&a, alu_heavy, N), c_any);
    assert_int_equal(fma_mix_cycles(&a, alu_fp32, N), c_any);
    a.alu_on_heavy = 1;
    assert_int_equal(fma_mix_cycles(&a, alu_heavy, N), c_heavy);
    assert_int_equal(fma_mix_cycles(&a, alu_fp32, N), c_any);
    assert_int_equal(fma_mix_cycles(&a, any, N), c_any);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ffma_one_warp),
        cmocka_unit_test(fma_datapaths),
        cmocka_unit_test(wide_and_shared_alu),
        cmocka_unit_test(ffma_four_warps_per_smsp),
        cmocka_unit_test(breakdown_sums_to_cpi),
        cmocka_unit_test(deterministic_and_skip_exact),
        cmocka_unit_test(fetch_and_branch),
        cmocka_unit_test(impossible_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
