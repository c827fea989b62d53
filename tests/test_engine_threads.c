/* test_engine_threads.c — the time loop (eng_par.c) gives exactly the same
 * counters on any number of threads, with SMs moving between threads, with
 * or without skipping, and with or without an observer attached (which
 * forces one thread): the reference is a one-thread run with an observer.
 * (tests/cli_identical.sh holds whole reports to the ones 88fe758's
 * separate cycle-by-cycle reference loop gave.)
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include "test_engine_util.h"

/* A reader without tu_next's call counter: with threads the engine calls it
 * concurrently on distinct cursors, so it must not write shared state. */
static const struct trace_ops pure_ops = {
    .warp_begin = tu_begin, .warp_next = tu_step, .warp_end = NULL, .destroy = tu_destroy};

/* An observer that records nothing: attaching it forces one thread. */
static void nop_state(void *ud, int sm, int smsp, int slot, uint32_t block, uint32_t warp,
                      uint64_t from, uint64_t to, int st)
{
    (void)ud, (void)sm, (void)smsp, (void)slot, (void)block, (void)warp, (void)from, (void)to,
        (void)st;
}

static void run_ok(const struct arch *a, struct tu_kernel *t, const struct engine_opts *o,
                   struct stats_kernel *st)
{
    char err[512];
    if (engine_run(a, &t->k, o, st, err) != 0)
        fail_msg("engine_run: %s", err);
}

/* Everything observable, events (SM steps) included: every run steps each
 * SM at exactly the same cycles. */
static void assert_same(const struct stats_kernel *x, const struct stats_kernel *y)
{
    tu_assert_same(x, y, 1);
}

/* Every mechanism that crosses SMs or waits for memory: random loads over a
 * footprint between L1 and L2 (hit draws, L2 and DRAM servers shared by the
 * SMs), stores (drain and a MEMBAR wait for them), shared memory with bank
 * conflicts, MUFU, a barrier, a branch; warp 0 of each block runs fewer trips
 * (blocks end at different times); several waves (the dispatcher). */
static void mixed_kernel(struct tu_kernel *t, struct tr_inst *body)
{
    int k = 0;
    body[k++] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_RANDOM, 4, 1, -1, 4, 4u << 20);
    body[k++] = tu_alu(PIPE_FMA, 5, 4, 2, 3);
    body[k++] = tu_mem(TR_K_LOAD, TR_SP_SHARED, TR_PAT_COALESCED, 6, 1, -1, 4, 0);
    body[k - 1].conflict = 4;
    body[k++] = tu_alu(PIPE_MUFU, 7, 6, -1, -1);
    body[k++] = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 1, 7, 4, 1ull << 32);
    body[k++] = tu_inst(TR_K_MEMBAR, PIPE_LSU);
    body[k++] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 8, 9, -1, 16, 1ull << 30);
    body[k - 1].dst[body[k - 1].ndst++] = 10;
    body[k++] = tu_inst(TR_K_BARRIER, PIPE_CBU);
    body[k++] = tu_alu(PIPE_ALU, 1, 1, 8, -1);
    body[k++] = tu_inst(TR_K_BRANCH, PIPE_CBU);
    tu_kernel_init(t, 40, 192, body, k, 12);
    t->seg[0].loops0 = 7;
    /* a final store: EXIT then drains */
    body[k] = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_RANDOM, -1, 1, 5, 4, 1ull << 32);
    t->seg[1] = (struct tu_seg){&body[k], 1, 1, 1};
    t->nseg = 2;
    t->k.ops = &pure_ops;
    t->k.mt_safe = 1; /* pure_ops keeps all state in the cursor */
}

/* Epochs on `threads` threads with SMs moved between them every `every`
 * epochs (eng_par.c balance(), forced) against the reference counters:
 * a moved SM's pending answers must follow it. */
static void compare_moves(const struct arch *a, struct tu_kernel *t,
                          const struct stats_kernel *ref, int threads, int every)
{
    struct engine_opts o;
    tu_opts(&o);
    o.seed = 7;
    o.threads = threads;
    o.rebalance_every = every;
    struct stats_kernel s;
    run_ok(a, t, &o, &s);
    assert_same(ref, &s);
    stats_kernel_free(&s);
}

/* One thread with an observer vs 1..4 threads (4 > sm_count: capped), with
 * and without skipping, and with SMs moving between threads, on a
 * configuration `a`. */
static void compare_all(const struct arch *a, struct tu_kernel *t)
{
    struct engine_observer nop = {NULL, nop_state, NULL, 0, NULL, NULL};
    struct engine_opts o;
    tu_opts(&o);
    o.seed = 7;
    o.obs = &nop;
    struct stats_kernel ref;
    run_ok(a, t, &o, &ref);
    assert_true(tu_identity_ok(&ref));
    /* the mechanisms the scheme must handle were exercised */
    assert_true(tu_state_sum(&ref, WS_LONG_SCOREBOARD) > 0);
    assert_true(tu_state_sum(&ref, WS_BARRIER) > 0);
    assert_true(tu_state_sum(&ref, WS_MEMBAR) > 0);
    assert_true(tu_state_sum(&ref, WS_DRAIN) > 0);
    assert_true(ref.l2_sectors > ref.l2_sector_hits && ref.dram_bytes > 0);
    assert_true(ref.sm[0].blocks > (uint64_t)ref.occ.blocks_per_sm); /* several waves */
    o.obs = NULL;
    for (int skip = 0; skip < 2; skip++)
        for (int th = 1; th <= 4; th++) {
            o.no_skip = skip;
            o.threads = th;
            struct stats_kernel s;
            run_ok(a, t, &o, &s);
            if (skip) { /* no_skip steps every cycle: all but events equal */
                s.events = ref.events;
            }
            assert_same(&ref, &s);
            stats_kernel_free(&s);
        }
    /* SMs moved between threads (with 3 SMs on 2 threads SM 2 moves to
     * thread 1 and back every other epoch) */
    compare_moves(a, t, &ref, 2, 1);
    stats_kernel_free(&ref);
}

static void small_arch(struct arch *a)
{
    tu_arch(a, 3);
    a->fetch_latency = 3;
    a->branch_latency = 5;
    a->lsu_queue_depth = 2;
    a->mio_queue_depth = 2;
    a->l1_bytes_per_clk = 32;
    a->l2_bytes_per_clk = 64;   /* the shared servers queue */
    a->dram_gbps = 16;
    a->l1_smem_kb = 64;         /* 4 MB footprint: L1 misses, L2 hits and misses */
    a->l2_size_kb = 2048;
}

/* Epochs bounded by the block launch latency (20 < L2 latency 300). */
static void epochs_by_launch_latency(void **state)
{
    (void)state;
    struct arch a;
    small_arch(&a);
    a.block_launch_latency = 20;
    struct tr_inst body[16];
    struct tu_kernel t;
    mixed_kernel(&t, body);
    for (int policy = SCHED_GTO; policy <= SCHED_LRR; policy++) {
        a.policy = policy;
        compare_all(&a, &t);
    }
}

/* Epochs of one cycle (block launch latency 0), and two issues per cycle. */
static void epochs_of_one_cycle(void **state)
{
    (void)state;
    struct arch a;
    small_arch(&a);
    a.block_launch_latency = 0;
    a.issue_width = 2;
    struct tr_inst body[16];
    struct tu_kernel t;
    mixed_kernel(&t, body);
    compare_all(&a, &t);
}

/* Epochs bounded by the memory latency (min(l2, dram) = 6 < launch 50):
 * answers come back a few cycles after the epoch that asked. */
static void epochs_by_memory_latency(void **state)
{
    (void)state;
    struct arch a;
    small_arch(&a);
    a.block_launch_latency = 50;
    a.l2_latency = 9;
    a.dram_latency = 6;
    struct tr_inst body[16];
    struct tu_kernel t;
    mixed_kernel(&t, body);
    compare_all(&a, &t);
}

/* Forced moves on 12 SMs, every third epoch, the two threads giving in
 * turn: balance() gives away the SM whose neighbourhood holds most of the
 * giver's SMs and fewest of the receiver's (pick_sm), so SMs leave from
 * inside a thread's list, not only its end.  Here (checked with a print in
 * pick_sm) the picks begin 11, 10, 9, 8, 7: thread 1 gives 11 (all of its
 * SMs tie), then thread 0 gives 10 out of 0, 2, ..., 10, 11, thread 1 gives
 * 9 out of 1, 3, 5, 7, 9, 10, and so on.  Their answers must still follow
 * them. */
static void moves_from_the_middle(void **state)
{
    (void)state;
    struct arch a;
    small_arch(&a);
    a.sm_count = 12;
    a.block_launch_latency = 20;
    struct tr_inst body[16];
    struct tu_kernel t;
    mixed_kernel(&t, body);
    struct engine_observer nop = {NULL, nop_state, NULL, 0, NULL, NULL};
    struct engine_opts o;
    tu_opts(&o);
    o.seed = 7;
    o.obs = &nop;
    struct stats_kernel ref;
    run_ok(&a, &t, &o, &ref);
    compare_moves(&a, &t, &ref, 2, 3);
    stats_kernel_free(&ref);
}

/* warp_begin/warp_end run on the engine's worker threads (eng_sm_step launches
 * and retires warps); a reader that is not mt_safe must see every call on
 * the calling thread.  The recorder notes a call from any other thread. */
static pthread_t rec_main;
static atomic_int rec_other; /* set when a call comes from another thread (atomic: worker threads write it) */

static int rec_begin(struct trace_kernel *k, uint32_t block, uint32_t warp, struct tr_cursor *c)
{
    if (!pthread_equal(pthread_self(), rec_main))
        rec_other = 1;
    return tu_begin(k, block, warp, c);
}

static void rec_end(struct trace_kernel *k, struct tr_cursor *c)
{
    (void)k, (void)c;
    if (!pthread_equal(pthread_self(), rec_main))
        rec_other = 1;
}

static const struct trace_ops rec_ops = {
    .warp_begin = rec_begin, .warp_next = tu_step, .warp_end = rec_end, .destroy = tu_destroy};

static void reader_not_mt_safe_runs_on_one_thread(void **state)
{
    (void)state;
    struct arch a;
    small_arch(&a);
    a.block_launch_latency = 20;
    struct tr_inst body[16];
    struct tu_kernel t;
    mixed_kernel(&t, body);
    t.k.ops = &rec_ops;
    struct engine_opts o;
    tu_opts(&o);
    o.seed = 7;
    o.threads = 1;
    struct stats_kernel ref, s;
    rec_main = pthread_self();
    t.k.mt_safe = 1; /* the recorder catches worker-thread calls when allowed */
    o.threads = 3;
    rec_other = 0;
    run_ok(&a, &t, &o, &ref);
    assert_int_equal(rec_other, 1);
    t.k.mt_safe = 0; /* not safe: every call on this thread, same counters */
    rec_other = 0;
    run_ok(&a, &t, &o, &s);
    assert_int_equal(rec_other, 0);
    assert_same(&ref, &s);
    stats_kernel_free(&ref);
    stats_kernel_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(epochs_by_launch_latency),
        cmocka_unit_test(epochs_of_one_cycle),
        cmocka_unit_test(epochs_by_memory_latency),
        cmocka_unit_test(moves_from_the_middle),
        cmocka_unit_test(reader_not_mt_safe_runs_on_one_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
