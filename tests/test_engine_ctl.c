/* test_engine_ctl.c — the compiler-guided issue stage: stall counts, yield,
 * dependence counters, register-file banks and cache, greedy-then-youngest
 * (sim/engine/eng_sm.c, eng_sb.c, eng_sched.c; docs/model.md "Control bits";
 * shared/reference/modern-sm-core.md).  Every expectation is a cycle worked
 * out by hand in the comment above it.
 *
 * The test GPU (test_engine_util.h): FMA latency 4, one instruction per cycle
 * per pipe, no fetch or branch latency, so without control bits a warp could
 * issue independent instructions every cycle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"

/* Run with the observer; with no_skip too, and both must agree (the
 * control-bit state obeys the skipping contract). */
static void run_obs(const struct arch *a, struct tu_kernel *t, struct tu_issues *is,
                    struct stats_kernel *st)
{
    for (int ns = 1; ns >= 0; ns--) {
        struct tu_issues x;
        memset(&x, 0, sizeof x);
        struct engine_observer eo = {&x, tu_issue_obs, NULL, 0, NULL, NULL};
        struct engine_opts o;
        tu_opts(&o);
        o.obs = &eo;
        o.no_skip = ns;
        char err[512];
        struct stats_kernel s;
        if (engine_run(a, &t->k, &o, &s, err))
            fail_msg("engine_run: %s", err);
        assert_true(tu_identity_ok(&s));
        tu_issues_sort(&x);
        if (ns) {
            *is = x;
            stats_kernel_free(&s);
        } else {
            assert_int_equal(x.n, is->n);
            for (int i = 0; i < x.n; i++) {
                assert_int_equal(x.t[i], is->t[i]);
                assert_int_equal(x.warp[i], is->warp[i]);
            }
            *st = s;
        }
    }
}

/* Control bits on an instruction (test_engine_util.h's leave them off). */
static struct tr_inst ctl(struct tr_inst in, int stall, int yield, int wbar, int wait)
{
    in.ctl = 1;
    in.stall = (uint8_t)stall;
    in.yield = (uint8_t)yield;
    in.wbar = (uint8_t)(wbar < 0 ? TR_SB_NONE : wbar);
    in.rbar = TR_SB_NONE;
    in.wait = (uint8_t)wait;
    in.reuse = 0;
    in.depbar_sb = TR_SB_NONE;
    in.opr[0] = in.opr[1] = in.opr[2] = TR_OPR_NONE;
    return in;
}

static void expect_times(const struct tu_issues *is, const uint64_t *want, int n)
{
    if (is->n != n)
        fail_msg("%d issues, want %d", is->n, n);
    for (int i = 0; i < n; i++)
        if (is->t[i] != want[i])
            fail_msg("issue %d at cycle %llu, want %llu", i, (unsigned long long)is->t[i],
                     (unsigned long long)want[i]);
}

/* An LDG that hits L2 (footprint between L1 and L2; bandwidths so large
 * they add nothing) is ready l2_latency + 1 = 301 cycles after its issue
 * (test_engine_latency.c's pointer chase).  It writes SB0; an independent
 * FFMA issues at 1; the consumer waits on SB0 and issues exactly at 301,
 * when the write-back releases the counter (299 cycles of long_scoreboard,
 * 2..300), then EXIT at 302.  The same consumer with wait 0 would issue at
 * 2: the counter, not the register, is what it waits for. */
static void ldg_wait_counter(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.l1_bytes_per_clk = 1e9;
    a.l2_bytes_per_clk = 1e9;
    a.dram_gbps = 1e9;
    for (int wait = 1; wait >= 0; wait--) {
        struct tr_inst body[3] = {
            ctl(tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 0, 5, -1, 4, 8u << 20), 1, 0,
                0, 0),
            ctl(tu_alu(PIPE_FMA, 10, 1, 2, 3), 1, 0, -1, 0),
            ctl(tu_alu(PIPE_FMA, 11, 0, 2, 3), 1, 0, -1, wait)};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 32, body, 3, 1);
        struct tu_issues is;
        struct stats_kernel st;
        run_obs(&a, &t, &is, &st);
        if (wait) {
            const uint64_t want[] = {0, 1, 301, 302};
            expect_times(&is, want, 4);
            assert_int_equal(st.smsp[0].state[WS_LONG_SCOREBOARD], 299);
        } else {
            const uint64_t want[] = {0, 1, 2, 3};
            expect_times(&is, want, 4);
            assert_int_equal(st.smsp[0].state[WS_LONG_SCOREBOARD], 0);
        }
        stats_kernel_free(&st);
    }
}

/* A MUFU (latency 16, short scoreboard) writing SB2, its consumer waiting on
 * 0x04: issues at 0 and 16, 15 cycles of short_scoreboard. */
static void mufu_short_scoreboard(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[2] = {ctl(tu_alu(PIPE_MUFU, 0, 1, -1, -1), 1, 0, 2, 0),
                              ctl(tu_alu(PIPE_FMA, 4, 0, 2, 3), 1, 0, -1, 0x04)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 2, 1);
    struct tu_issues is;
    struct stats_kernel st;
    run_obs(&a, &t, &is, &st);
    const uint64_t want[] = {0, 16, 17};
    expect_times(&is, want, 3);
    assert_int_equal(st.smsp[0].state[WS_SHORT_SCOREBOARD], 15);
    stats_kernel_free(&st);
}

/* DEPBAR.LE SB0, 1 after three loads on SB0 (ready 301, 302, 303: one
 * issued per cycle): it waits for all but one, i.e. until 302, then the
 * next instruction issues at 303. */
static void depbar_le(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.l1_bytes_per_clk = 1e9;
    a.l2_bytes_per_clk = 1e9;
    a.dram_gbps = 1e9;
    struct tr_inst ld = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 0, 5, -1, 4, 8u << 20);
    struct tr_inst body[5] = {ctl(ld, 1, 0, 0, 0), ctl(ld, 1, 0, 0, 0), ctl(ld, 1, 0, 0, 0),
                              ctl(tu_inst(TR_K_MEMBAR, PIPE_CBU), 1, 0, -1, 0),
                              ctl(tu_alu(PIPE_FMA, 11, 1, 2, 3), 1, 0, -1, 0)};
    body[1].dst[0] = 1;
    body[2].dst[0] = 2;
    body[3].depbar_sb = 0;
    body[3].depbar_n = 1;
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 5, 1);
    struct tu_issues is;
    struct stats_kernel st;
    run_obs(&a, &t, &is, &st);
    const uint64_t want[] = {0, 1, 2, 302, 303, 304};
    expect_times(&is, want, 6);
    stats_kernel_free(&st);
}

/* Stall counts replace the scoreboard: FFMA R0 then FFMA reading R0.  With
 * stall 4 on the producer the consumer issues at 4 (the FMA latency; 3
 * cycles of "wait"); with stall 6 at 6 (5 of wait); with stall 2 at 2 —
 * the compiler is trusted even below the pipe latency, as the hardware
 * does.  EXIT follows one cycle later. */
static void stall_count(void **state)
{
    (void)state;
    static const int stalls[] = {4, 6, 2};
    for (int i = 0; i < 3; i++) {
        int s = stalls[i];
        struct arch a;
        tu_arch(&a, 1);
        struct tr_inst body[2] = {ctl(tu_alu(PIPE_FMA, 0, 1, 2, 3), s, 0, -1, 0),
                                  ctl(tu_alu(PIPE_FMA, 4, 0, 2, 3), 1, 0, -1, 0)};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 32, body, 2, 1);
        struct tu_issues is;
        struct stats_kernel st;
        run_obs(&a, &t, &is, &st);
        const uint64_t want[] = {0, (uint64_t)s, (uint64_t)s + 1};
        expect_times(&is, want, 3);
        assert_int_equal(st.smsp[0].state[WS_WAIT], s - 1);
        stats_kernel_free(&st);
    }
}

/* Yield with one warp: the warp is not picked in the cycle after its
 * yielding instruction, and no other warp can take it: a bubble.  Two
 * independent FFMAs, the first with yield: issues 0, 2, EXIT 3; without
 * yield 0, 1, 2. */
static void yield_bubble(void **state)
{
    (void)state;
    for (int y = 1; y >= 0; y--) {
        struct arch a;
        tu_arch(&a, 1);
        struct tr_inst body[2] = {ctl(tu_alu(PIPE_FMA, 0, 1, 2, 3), 1, y, -1, 0),
                                  ctl(tu_alu(PIPE_FMA, 4, 5, 6, 7), 1, 0, -1, 0)};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 32, body, 2, 1);
        struct tu_issues is;
        struct stats_kernel st;
        run_obs(&a, &t, &is, &st);
        const uint64_t want_y[] = {0, 2, 3}, want_n[] = {0, 1, 2};
        expect_times(&is, y ? want_y : want_n, 3);
        stats_kernel_free(&st);
    }
}

/* Register banks (docs/model.md "Control bits"): an FFMA issued at t
 * passes the control stage (t + 1) and leaves the allocate stage at t + 2
 * unless the read ports are still busy; k reads from one bank keep the
 * ports k cycles.  While the allocate stage holds one instruction the
 * control stage keeps the next and nothing issues (dispatch_stall).
 * One warp, ten FFMAs with stall 1, then EXIT:
 * - R2, R4, R6 (three reads of bank 0): I0 issues at 0 and leaves allocate
 *   at 2 (ports busy to 5); I1 at 1 enters allocate at 2, leaves at 5
 *   (busy to 8); I2 at 2 waits in control until 5, so 3 and 4 are
 *   dispatch_stall; from then on I_k issues at 3k - 4 and enters allocate
 *   at 3k - 1: 0, 1, 2, 5, 8, ..., 23; I9 enters allocate at 26, EXIT
 *   issues at 26.  dispatch_stall: 2 cycles behind each of I2..I9 = 16.
 * - R2, R3, R4 (two in bank 0): ports 2 cycles each: 0, 1, 2, 4, ..., 16,
 *   EXIT at 18; 1 cycle behind each of I2..I9 = 8.
 * - R2.reuse R4.reuse R6 (reuse 0x3): I0 misses (3 reads, busy to 5), the
 *   others read only R6: I1 leaves at 5, I2 waits in control 3 and 4, then
 *   one per cycle: 0, 1, 2, 5, 6, ..., 11, EXIT at 12; dispatch_stall 2.
 * - R2, R2, R2: one register read once, one port cycle: 0..9, EXIT 10, no
 *   dispatch_stall (read three times it would be the first case). */
static void bank_conflicts_and_reuse(void **state)
{
    (void)state;
    enum { N = 10 };
    for (int c = 0; c < 4; c++) {
        struct arch a;
        tu_arch(&a, 1);
        struct tr_inst f = ctl(tu_alu(PIPE_FMA, 10, 2, 4, 6), 1, 0, -1, 0);
        f.opr[0] = 2;
        f.opr[1] = c == 1 ? 3 : c == 3 ? 2 : 4;
        f.opr[2] = c == 1 ? 4 : c == 3 ? 2 : 6;
        if (c == 2)
            f.reuse = 0x3;
        struct tr_inst body[1] = {f};
        struct tu_kernel t;
        tu_kernel_init(&t, 1, 32, body, 1, N);
        struct tu_issues is;
        struct stats_kernel st;
        run_obs(&a, &t, &is, &st);
        uint64_t want[N + 1];
        for (int i = 0; i < N; i++)
            want[i] = i < 3 || c == 3 ? (uint64_t)i
                      : c == 0 ? 3u * i - 4 : c == 1 ? 2u * i - 2 : (uint64_t)i + 2;
        want[N] = c == 0 ? 26 : c == 1 ? 18 : c == 2 ? 12 : 10;
        expect_times(&is, want, N + 1);
        uint64_t ds = c == 0 ? 16 : c == 1 ? 8 : c == 2 ? 2 : 0;
        assert_int_equal(st.smsp[0].state[WS_DISPATCH_STALL], ds);
        stats_kernel_free(&st);
    }
}

/* While the issue is blocked, stall counters stand still (the H200's wait
 * grows with the port bubbles: validate/calib_regbank.py).  One warp: I0,
 * I1 FFMA R2, R4, R6 with stall 1, I2 the same with stall 4, I3 an FFMA
 * reading no register (stall 1), EXIT.  I0 at 0 (allocate at 2, ports busy
 * to 5), I1 at 1 (allocate 2..5, busy to 8), I2 at 2: it waits in control
 * until 5, so issue is blocked at 3 and 4 and I2's stall count, 2 + 4 = 6,
 * ends 2 cycles later, at 8 (without the freeze: 6).  I3 at 8 enters
 * allocate at 9 (I2 left at 8), EXIT at 9.  wait: 3..7 = 5 cycles; no
 * dispatch_stall (the warp waits on its own counter while blocked). */
static void stall_counters_freeze(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst f = ctl(tu_alu(PIPE_FMA, 10, 2, 4, 6), 1, 0, -1, 0);
    f.opr[0] = 2;
    f.opr[1] = 4;
    f.opr[2] = 6;
    struct tr_inst body[4] = {f, f, f, ctl(tu_alu(PIPE_FMA, 12, 2, 4, 6), 1, 0, -1, 0)};
    body[2].stall = 4;
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 4, 1);
    struct tu_issues is;
    struct stats_kernel st;
    run_obs(&a, &t, &is, &st);
    const uint64_t want[] = {0, 1, 2, 8, 9};
    expect_times(&is, want, 5);
    assert_int_equal(st.smsp[0].state[WS_WAIT], 5);
    assert_int_equal(st.smsp[0].state[WS_DISPATCH_STALL], 0);
    stats_kernel_free(&st);
}

/* Greedy-then-youngest on four warps of one SMSP (W0 oldest .. W3 youngest:
 * warps 0, 4, 8, 12 of a 512-thread block), each 8 independent FFMAs and
 * EXIT, the second FFMA with stall 4 (modern-sm-core.md §2, Huerta et al.
 * Fig. 4).  W3 issues two (0, 1; out until 5), W2 two (2, 3; until 7), W1
 * two (4, 5; until 9); at 6 W3 is back and youngest: it runs to its EXIT
 * (6..12), then W2 (13..19), W1 (20..26), and W0 alone: 27, 28, then three
 * idle cycles (its stall 4; the reference counts four bubbles, which would
 * be a stall of 5) and 32..38.
 * With yield on the second FFMA instead of stall 4: W3 0, 1, W2 2, 3 (W3
 * yielded at 1, so W2 is the youngest other), then W3 is youngest again and
 * runs 4..10, W2 11..17, W1 18, 19 and W1's yield leaves W0: 20, 21, and
 * back to W1 22..28, W0 29..35.
 * GTO for contrast: W0 from 0 with the stall-4 variant: W0 0, 1, W1 2, 3,
 * W2 4, 5, W0 6.. (the oldest is ready again).
 * GYB (the youngest block, round robin among its warps; here all four warps
 * are of one block): W0 0, 1, W1 2, 3, W2 4, 5, W3 6, 7 (first after W2,
 * though W0 is ready again at 5), then W0 (first after W3, wrapping) runs
 * to its EXIT 8..14, W1 15..21, W2 22..28, W3 29..35: no bubble.
 * GOB (the oldest block, round robin among its warps) is GYB here.
 * Two blocks of 256 threads instead (W0, W1 of block 0, W2, W3 of block 1):
 * GOB takes block 0 first and its warps in turn: W0 0, 1, W1 2, 3, then
 * block 1's W2 4, 5; at 6 block 0's W0 is ready (W1 only at 7): W0 6..12,
 * W1 13..19, W2 20..26, W3 27, 28 and its stall to 32..38 — GTO's order,
 * as on every launch of one warp per block and SMSP.  GYB takes block 1
 * first: W2 0, 1, W3 2, 3, W0 4, 5 (block 0, first after W3, wrapping),
 * W2 6..12, W3 13..19, W0 20..26, W1 27, 28, 32..38.
 * GRR (round robin over all warps) on the two blocks: W0 0, 1, W1 2, 3,
 * W2 4, 5, W3 6, 7 (first after W2, though W0 is ready again at 5), W0
 * 8..14, W1 15..21, W2 22..28, W3 29..35: the one-block GOB order, block
 * or no block, and no bubble (kit15's calib_order: validate/calib_order.py). */
static void greedy_then_youngest(void **state)
{
    (void)state;
    struct {
        int policy, yield, blocks;
        int warp[36];
        uint64_t t0, t27;
    } cases[8] = {
        {SCHED_GTY, 0, 1, {3, 3, 2, 2, 1, 1, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2,
                           1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 27},
        {SCHED_GTY, 1, 1, {3, 3, 2, 2, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1,
                           0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}, 0, 0},
        {SCHED_GTO, 0, 1, {0, 0, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1,
                           2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 0, 0},
        {SCHED_GYB, 0, 1, {0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
                           1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3}, 0, 0},
        {SCHED_GOB, 0, 1, {0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
                           1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3}, 0, 0},
        {SCHED_GOB, 0, 2, {0, 0, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1,
                           2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 0, 27},
        {SCHED_GYB, 0, 2, {2, 2, 3, 3, 0, 0, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
                           0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 0, 27},
        {SCHED_GRR, 0, 2, {0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
                           1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3}, 0, 0}};
    for (int c = 0; c < 8; c++) {
        struct arch a;
        tu_arch(&a, 1);
        a.policy = cases[c].policy;
        struct tr_inst body[8];
        for (int i = 0; i < 8; i++)
            body[i] = ctl(tu_alu(PIPE_FMA, 20 + i, 1, 2, 3), 1, 0, -1, 0);
        if (cases[c].yield)
            body[1].yield = 1;
        else
            body[1].stall = 4;
        struct tu_kernel t;
        tu_kernel_init(&t, (uint32_t)cases[c].blocks, 512 / (uint32_t)cases[c].blocks, body, 8, 1);
        struct tu_issues is;
        struct stats_kernel st;
        run_obs(&a, &t, &is, &st);
        assert_int_equal(is.n, 36);
        /* SMSP 0 holds warps 0, 4, .. of each block: W k is block k / per,
         * warp 4 (k mod per) */
        int per = 4 / cases[c].blocks;
        for (int i = 0; i < 36; i++) {
            int k = cases[c].warp[i];
            if (is.warp[i] != 4 * (k % per) || is.blk[i] != (uint32_t)(k / per))
                fail_msg("case %d: issue %d (cycle %llu) by block %u warp %d, want W%d", c, i,
                         (unsigned long long)is.t[i], is.blk[i], is.warp[i], k);
        }
        if (cases[c].t27) {
            /* the last warp's lone stall: 28 -> 32 */
            assert_int_equal(is.t[28], 28);
            assert_int_equal(is.t[29], 32);
            assert_int_equal(is.t[35], 38);
        } else if (c == 1 || c == 3 || c == 4 || c == 7) {
            for (int i = 0; i < 36; i++)
                assert_int_equal(is.t[i], (uint64_t)i); /* never a bubble */
        }
        stats_kernel_free(&st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ldg_wait_counter),
        cmocka_unit_test(mufu_short_scoreboard),
        cmocka_unit_test(depbar_le),
        cmocka_unit_test(stall_count),
        cmocka_unit_test(yield_bubble),
        cmocka_unit_test(bank_conflicts_and_reuse),
        cmocka_unit_test(stall_counters_freeze),
        cmocka_unit_test(greedy_then_youngest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
