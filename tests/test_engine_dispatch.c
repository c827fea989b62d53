/* test_engine_dispatch.c — block launch: the GPU-wide dispatcher's rate,
 * the per-SM start cost, the refill after a block is taken back, the start
 * and drain of the kernel (eng_disp.h).  Every expectation is computed by
 * hand from the rules in eng_disp.h.
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

/* Warps that only EXIT: with fetch_latency 0 a warp resident at t issues
 * its EXIT at t and retires at t + 1 (test_engine_grid.c, tail_and_cap). */
static void exit_only(struct tu_kernel *t, uint32_t grid)
{
    tu_kernel_init(t, grid, 32, NULL, 0, 0);
}

/* N = 10 one-warp blocks on one SM, all in the first wave (32 slots), the
 * SM busy sm_block_cycles = 100 per block start, no other cost: block k
 * starts at S + 100 k (S = launch_start = 20) and retires one cycle later;
 * the kernel ends launch_drain = 50 after the last one:
 * 20 + 100 x 9 + 1 + 50 = 971. */
static void per_sm_cost(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.sm_block_cycles = 100;
    a.launch_start = 20;
    a.launch_drain = 50;
    struct engine_opts o;
    tu_opts(&o);
    struct tu_kernel t;
    exit_only(&t, 10);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.occ.blocks_per_sm, 32);
    assert_int_equal(st.sm[0].blocks, 10);
    assert_int_equal(st.cycles_elapsed, 20 + 100 * 9 + 1 + 50);
    /* one warp at a time, each resident one cycle: 10 active cycles */
    assert_int_equal(st.sm[0].cycles_active, 10);
    stats_kernel_free(&st);
}

/* The per-warp cost: 4 blocks of 4 warps (128 threads) on one SM,
 * sm_warp_cycles = 10 and no per-block cost: the SM is busy 40 cycles per
 * block, so block k starts at 40 k, and its warp i is resident at
 * 40 k + 10 i, retiring a cycle later.  The last warp (k = 3, i = 3)
 * retires at 120 + 30 + 1 = 151.  The SM is active from a block's start
 * (its warps hold their slots while they wait to start) to its last warp's
 * retirement: 31 cycles per block, the blocks never overlap: 4 x 31 = 124;
 * each warp is counted active for its one cycle: 16 warp-cycles. */
static void per_warp_cost(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.sm_warp_cycles = 10;
    struct engine_opts o;
    tu_opts(&o);
    struct tu_kernel t;
    tu_kernel_init(&t, 4, 128, NULL, 0, 0);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.cycles_elapsed, 151);
    assert_int_equal(st.sm[0].cycles_active, 4 * 31);
    assert_int_equal(st.sm[0].warps_active, 16);
    stats_kernel_free(&st);
}

/* Block starts, recorded by the observer. */
struct starts {
    uint64_t from[16]; /* by block */
    int sm[16];        /* by block */
};

static void on_block(void *ud, int sm, uint32_t block, uint64_t from, uint64_t to)
{
    (void)to;
    struct starts *s = ud;
    if (block < 16) {
        s->from[block] = from;
        s->sm[block] = sm;
    }
}

/* Options whose observer records every block's start into *rec. */
static void record_starts(struct starts *rec, struct engine_observer *obs,
                          struct engine_opts *o)
{
    memset(rec, 0, sizeof *rec);
    memset(obs, 0, sizeof *obs);
    obs->ud = rec;
    obs->block_life = on_block;
    tu_opts(o);
    o->obs = obs;
}

/* The GPU-wide rate: 12 one-warp blocks on 3 SMs, the dispatcher busy
 * dispatch_launch = 7 cycles per block and nothing else: block k leaves it
 * at 7 k to SM k % 3 and starts there at once.  The dispatcher is one unit:
 * it takes finished blocks back (dispatch_retire = 0 cycles each) only when
 * it is free, after the last hand-out at 77 + 7 = 84, the kernel's end. */
static void gpu_rate(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 3);
    a.dispatch_launch = 7;
    struct starts rec;
    struct engine_observer obs;
    struct engine_opts o;
    record_starts(&rec, &obs, &o);
    struct tu_kernel t;
    exit_only(&t, 12);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    for (int k = 0; k < 12; k++) {
        assert_int_equal(rec.from[k], 7 * k);
        assert_int_equal(rec.sm[k], k % 3);
    }
    assert_int_equal(st.cycles_elapsed, 84);
    for (int m = 0; m < 3; m++)
        assert_int_equal(st.sm[m].blocks, 4);
    stats_kernel_free(&st);
}

/* Refill: 4 one-warp blocks through one slot (blocks_per_sm_cap 1) of one
 * SM; dispatch_retire = 5, block_launch_latency = 20.  Block 0 starts at 0
 * and retires at 1; the dispatcher takes it back over [1, 6); the next
 * block reaches the SM 20 cycles later, at 26.  So block k starts at 26 k
 * and retires at 26 k + 1; the last (k = 3) is taken back at 79 + 5 = 84,
 * the kernel's end. */
static void refill_after_take_back(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.dispatch_retire = 5;
    a.block_launch_latency = 20;
    struct engine_opts o;
    tu_opts(&o);
    o.blocks_per_sm_cap = 1;
    struct tu_kernel t;
    exit_only(&t, 4);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.cycles_elapsed, 26 * 3 + 1 + 5);
    assert_int_equal(st.sm[0].blocks, 4);
    stats_kernel_free(&st);
}

/* A stream whose odd blocks run one NOP before their EXIT (a warp resident
 * at t issues the NOP at t, the EXIT at t + 1 and retires at t + 2); even
 * blocks only EXIT (retire at t + 1). */
static int odd_nop_begin(struct trace_kernel *k, uint32_t block, uint32_t warp,
                         struct tr_cursor *c)
{
    tu_begin(k, block, warp, c);
    if (!(block & 1)) {
        c->left[0] = 0;
        tu_skip_empty((struct tu_kernel *)k->impl, c);
    }
    return 0;
}

/* Round-robin over the SMs: 6 one-warp blocks on 2 SMs of 2 slots, the
 * dispatcher busy dispatch_retire = 10 per take-back, block_launch_latency
 * 1.  The first wave is resident at 0: SM 0 holds blocks 0 and 2 (retire at
 * 1), SM 1 blocks 1 and 3 (one NOP: retire at 2).  At 1 only SM 0 has a
 * finished block: taken back over [1, 11), block 4 reaches SM 0 at 12.  At
 * 11 both SMs have one waiting; the SM after the last served goes first:
 * SM 1 over [11, 21), block 5 reaches it at 22 (in retirement order it
 * would go to SM 0's second slot).  Then SM 0 [21, 31), SM 1 [31, 41)
 * (nothing left to hand out), block 4 (retired 13, SM 0) [41, 51), block 5
 * (retired 24, SM 1) [51, 61): the kernel ends at 61. */
static void round_robin(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 2);
    a.dispatch_retire = 10;
    a.block_launch_latency = 1;
    struct starts rec;
    struct engine_observer obs;
    struct engine_opts o;
    record_starts(&rec, &obs, &o);
    o.blocks_per_sm_cap = 2;
    struct tr_inst nop = tu_inst(TR_K_NOP, PIPE_ALU);
    strcpy(nop.opcode, "NOP");
    struct tu_kernel t;
    tu_kernel_init(&t, 6, 32, &nop, 1, 1);
    struct trace_ops ops = *t.k.ops;
    ops.warp_begin = odd_nop_begin;
    t.k.ops = &ops;
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(rec.sm[4], 0);
    assert_int_equal(rec.from[4], 12);
    assert_int_equal(rec.sm[5], 1);
    assert_int_equal(rec.from[5], 22);
    assert_int_equal(st.cycles_elapsed, 61);
    stats_kernel_free(&st);
}

/* A cold instruction cache: the SM's first fetch waits icache_cold = 30
 * more cycles, and so does every warp that starts before the code is in.
 * 3 one-warp blocks on one SM, sm_block_cycles 20: resident at 0, 20, 40;
 * the code is in at 30, so the first two EXIT at 30 and retire at 31, the
 * third EXITs at 40 and retires at 41. */
static void icache_cold(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.sm_block_cycles = 20;
    a.icache_cold = 30;
    struct engine_opts o;
    tu_opts(&o);
    struct tu_kernel t;
    exit_only(&t, 3);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.cycles_elapsed, 41);
    /* warps_active: (31 - 0) + (31 - 20) + (41 - 40) = 43 */
    assert_int_equal(st.sm[0].warps_active, 43);
    stats_kernel_free(&st);
}

/* The warp release: the SM frees an exited warp's slot warp_release = 10
 * cycles after its SMSP is rid of it.  4 one-warp blocks through one slot
 * (blocks_per_sm_cap 1) of one SM, dispatch_retire = 5,
 * block_launch_latency = 20: block 0 starts at 0, EXITs at 0 and retires
 * from its SMSP at 1; the SM frees the slot at 11, the dispatcher takes it
 * back over [11, 16), the next block reaches the SM 20 later, at 36.
 * So block k starts at 36 k; the last (k = 3) is released at 119 and taken
 * back at 124, the kernel's end.  The SMSP counts each warp 1 cycle, the
 * SM 11 (sm__ vs smsp__warps_active), and the SM is active 11 per block. */
static void release_one_slot(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.dispatch_retire = 5;
    a.block_launch_latency = 20;
    a.warp_release = 10;
    struct engine_opts o;
    tu_opts(&o);
    o.blocks_per_sm_cap = 1;
    struct tu_kernel t;
    exit_only(&t, 4);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.cycles_elapsed, 36 * 3 + 11 + 5);
    assert_int_equal(st.sm[0].blocks, 4);
    assert_int_equal(st.sm[0].warps_active, 4 * 11);
    assert_int_equal(st.sm[0].cycles_active, 4 * 11);
    assert_int_equal(st.smsp[0].warps_active, 4 * 1);
    assert_int_equal(st.smsp[0].cycles_active, 4 * 1);
    stats_kernel_free(&st);
}

/* Releases overlapping the next block: 2 one-warp blocks on one SM in the
 * first wave, sm_block_cycles = 5, warp_release = 10.  Block 0 is resident
 * at 0, retires at 1, released at 11; block 1 resident at 5, retires at 6,
 * released at 16.  The SM counts 11 warp-cycles each (22) and is active
 * over the union [0, 16) = 16 cycles, not 22; the kernel ends at 16. */
static void release_overlap(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.sm_block_cycles = 5;
    a.warp_release = 10;
    struct engine_opts o;
    tu_opts(&o);
    struct tu_kernel t;
    exit_only(&t, 2);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.cycles_elapsed, 16);
    assert_int_equal(st.sm[0].warps_active, 22);
    assert_int_equal(st.sm[0].cycles_active, 16);
    stats_kernel_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_sm_cost),
        cmocka_unit_test(per_warp_cost),
        cmocka_unit_test(gpu_rate),
        cmocka_unit_test(refill_after_take_back),
        cmocka_unit_test(round_robin),
        cmocka_unit_test(icache_cold),
        cmocka_unit_test(release_one_slot),
        cmocka_unit_test(release_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
