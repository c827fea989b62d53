/* test_engine_tags.c — the memory system's rooms for accesses with
 * addresses: LRU order and sectors of the tag array, a miss merging into a
 * line in flight, a full miss table holding the L1 stage (lines and the
 * entries of an instruction), L2 hits on a
 * second touch and empty caches at every launch, and the DRAM latency
 * spread (a warp waits for its slowest line), store credits, the DRAM
 * read/write turnaround, the bank time of an access and two L2
 * partitions.  Hand-computed
 * values.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"
#include "mem/mem.h"

/* tu_arch with tags: 128-byte lines of four 32-byte sectors. */
static void arch_tags(struct arch *a)
{
    tu_arch(a, 1);
    a->line_bytes = 128;
    a->l1_ways = 4;
    a->l2_ways = 16;
}

/* 32 lanes, 4 bytes each, from base: one line when base is aligned. */
static void lanes(struct tr_dyn *d, uint64_t *addr, uint64_t base)
{
    for (int i = 0; i < 32; i++)
        addr[i] = base + 4u * (uint64_t)i;
    d->active_mask = 0xffffffffu;
    d->naddr = 32;
    d->addr = addr;
}

static void lru_order(void **state)
{
    (void)state;
    struct mem_cache c;
    /* one set of two ways */
    assert_int_equal(mem_cache_init(&c, 256, 2, 128), 0);
    assert_int_equal(c.sets, 1);
    unsigned ev, v;
    mem_cache_fill(&c, 10, 0x1, 0, &ev);
    mem_cache_fill(&c, 11, 0x1, 0, &ev);
    assert_true(mem_cache_find(&c, 10, &v) >= 0); /* 10 is now the newer */
    mem_cache_fill(&c, 12, 0x1, 0, &ev);          /* evicts 11, the LRU */
    assert_true(mem_cache_find(&c, 11, &v) < 0);
    assert_true(mem_cache_find(&c, 10, &v) >= 0);
    assert_true(mem_cache_find(&c, 12, &v) >= 0);
    /* sectors: valid bits add up; a dirty line reports its dirty sectors
     * when evicted */
    mem_cache_fill(&c, 12, 0x4, 0x4, &ev);
    assert_true(mem_cache_find(&c, 12, &v) >= 0);
    assert_int_equal(v, 0x5);
    mem_cache_fill(&c, 13, 0x1, 0, &ev); /* evicts 10 (12 was used last) */
    assert_int_equal(ev, 0);
    mem_cache_fill(&c, 14, 0x1, 0, &ev); /* evicts 12: sector 2 dirty */
    assert_int_equal(ev, 0x4);
    mem_cache_clear(&c);
    assert_true(mem_cache_find(&c, 13, &v) < 0);
    mem_cache_free(&c);
}

/* A second load of a line whose miss is still in flight sends nothing and
 * waits for the first request's answer; after the answer the line is a
 * hit at the L1 latency. */
static void miss_merges(void **state)
{
    (void)state;
    struct arch a;
    arch_tags(&a);
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_sm m;
    assert_int_equal(mem_sm_init(&c, &m), 0);
    struct mem_counters cnt = {0};
    struct tr_inst in = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 10, 2, -1, 4, 0);
    uint64_t addr[32];
    struct tr_dyn d;
    lanes(&d, addr, 0x1000);
    struct mem_local_res res;
    struct mem_req q0, q1, q2;
    /* t = 100: 4 sectors miss; the L1 stage takes 4 * 32 / 128 = 1 cycle */
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 0, 0, 100, 0, &res, &q0), 0);
    assert_int_equal(res.global, 1);
    assert_int_equal(res.sent, 101);
    assert_int_equal(q0.m, 4);
    assert_int_equal(q0.nl, 1);
    assert_int_equal(q0.ndeps, 0);
    /* t = 110, same line: merged into request 0 */
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 1, 0, 110, 1, &res, &q1), 0);
    assert_int_equal(res.global, 1);
    assert_int_equal(q1.m, 0);
    assert_int_equal(q1.ndeps, 1);
    assert_int_equal(q1.deps[0], 0);
    assert_int_equal(cnt.l1_sectors, 8);
    assert_int_equal(cnt.l1_sector_hits, 4);
    /* epoch end: request 0's data arrives at 900 */
    mem_sm_answer(&m, &q0, 0, 900);
    mem_sm_epoch_end(&m);
    /* t = 200: still in flight, known now: ready at 900, nothing sent */
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 2, 0, 200, 0, &res, &q2), 0);
    assert_int_equal(res.global, 0);
    assert_int_equal(res.ready, 900);
    /* t = 1000: a hit: L1 stage 1 cycle + l1_latency 40 */
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 3, 0, 1000, 0, &res, &q2), 0);
    assert_int_equal(res.global, 0);
    assert_int_equal(res.ready, 1041);
    mem_sm_free(&m);
}

/* Two one-line loads on an empty L1 with a miss table of `lines` entries
 * and `per` entries per instruction: line 0x1000 at t = 100 (sent at 101,
 * after the 1-cycle L1 stage), then line 0x1080 at t = 110; returns the
 * cycle the second is sent. */
static uint64_t second_load_sent(int lines, int per)
{
    struct arch a;
    arch_tags(&a);
    a.l1_mshr_lines = lines;
    a.l1_mshr_inst_entries = per;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_sm m;
    assert_int_equal(mem_sm_init(&c, &m), 0);
    struct mem_counters cnt = {0};
    struct tr_inst in = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 10, 2, -1, 4, 0);
    uint64_t addr[32];
    struct tr_dyn d;
    struct mem_local_res res;
    struct mem_req q;
    lanes(&d, addr, 0x1000);
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 0, 0, 100, 0, &res, &q), 0);
    assert_int_equal(res.sent, 101);
    lanes(&d, addr, 0x1080);
    assert_int_equal(mem_local(&c, &m, &cnt, &in, &d, 1, 0, 110, 1, &res, &q), 0);
    assert_int_equal(res.global, 1);
    mem_sm_free(&m);
    return res.sent;
}

/* A full miss table holds the L1 stage (and so the LG queue slot, where
 * ncu's lg_throttle comes from) until an entry can have freed: an entry
 * not yet answered frees no earlier than its send + mem_min_latency. */
static void full_mshr_holds(void **state)
{
    (void)state;
    /* one entry: line 0x1080 waits until it frees at >= 101 + 300 (the
     * smaller of l2_latency 300 and dram_latency 700) */
    assert_int_equal(second_load_sent(1, 0), 401);
}

/* An instruction's own entries (memory.l1_mshr_inst_entries): with a
 * table of 2 entries, a one-line load takes 2 when each load takes 1
 * besides its line, so the next load's line waits as in full_mshr_holds;
 * with 0 it takes 1 and the next load is sent after its 1-cycle stage. */
static void inst_entries_hold(void **state)
{
    (void)state;
    assert_int_equal(second_load_sent(2, 0), 111);
    assert_int_equal(second_load_sent(2, 1), 401);
}

/* Globally ordered stage: the second touch of a line hits L2, a new
 * launch (a fresh mem_gpu, as engine_run makes one per launch: ncu's
 * --cache-control all) misses again. */
static void l2_second_touch_and_flush(void **state)
{
    (void)state;
    struct arch a;
    arch_tags(&a);
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    uint64_t lines[1] = {(uint64_t)0x40 << 8 | 0xf};
    struct mem_req q;
    memset(&q, 0, sizeof q);
    q.t = 100;
    q.t1 = 101;
    q.m = 4;
    q.tagged = 1;
    q.nl = 1;
    for (int launch = 0; launch < 2; launch++) {
        struct mem_gpu g;
        assert_int_equal(mem_gpu_init(&c, &g), 0);
        uint64_t r0 = mem_global(&c, &g, &q, lines);
        q.t = 2000;
        q.t1 = 2001;
        uint64_t r1 = mem_global(&c, &g, &q, lines);
        /* miss: L2 stage 4*32/4096 cycles, DRAM 128 B at 2000 B/cycle,
         * then 700 */
        assert_int_equal(r0, 802);
        /* hit: 2001 + 128/4096 + 300, rounded up */
        assert_int_equal(r1, 2302);
        assert_int_equal(g.cnt.l2_sectors, 8);
        assert_int_equal(g.cnt.l2_sector_hits, 4);
        assert_int_equal(g.cnt.dram_bytes, 128);
        mem_gpu_free(&g);
        q.t = 100;
        q.t1 = 101;
    }
}

/* The DRAM spread: a lone line waits dram_latency on average; four lines
 * of one access 4 KiB apart wait for the slowest of four draws, longer
 * than one line on average; four lines within one memory.dram_spread_bytes
 * span share one draw. */
static void spread_slowest_line(void **state)
{
    (void)state;
    struct arch a;
    arch_tags(&a);
    a.dram_latency_spread = 100;
    a.dram_spread_bytes = 512;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    double one = 0, apart = 0, near = 0;
    int n = 2000;
    for (int k = 0; k < n; k++) {
        struct mem_gpu g;
        assert_int_equal(mem_gpu_init(&c, &g), 0);
        struct mem_req q;
        memset(&q, 0, sizeof q);
        q.t = 0;
        q.t1 = 0;
        q.tagged = 1;
        q.key = (uint64_t)k * 7919u;
        uint64_t l1[1] = {(uint64_t)(1000 + 64 * k) << 8 | 0x1};
        q.m = 1;
        q.nl = 1;
        one += (double)mem_global(&c, &g, &q, l1);
        uint64_t l4[4], l4n[4];
        for (int i = 0; i < 4; i++) {
            l4[i] = (uint64_t)(100000 + 32 * i + 1000 * k) << 8 | 0x1; /* 4 KiB apart */
            l4n[i] = (uint64_t)(400000 + i + 64 * k) << 8 | 0x1;       /* one 512 B span */
        }
        q.m = 4;
        q.nl = 4;
        q.t1 = q.t = 10000;
        apart += (double)mem_global(&c, &g, &q, l4) - 10000;
        q.t1 = q.t = 20000;
        near += (double)mem_global(&c, &g, &q, l4n) - 20000;
        mem_gpu_free(&g);
    }
    one /= n, apart /= n, near /= n;
    /* one line: 700 on average (bank time and spread are inside it) */
    assert_true(one > 690 && one < 712);
    /* max of 4 exponential draws: 2.08 means: ~+108 */
    assert_true(apart > one + 80 && apart < one + 140);
    assert_true(near < one + 20);
}

/* memory.dram_corr_bytes / dram_corr_share: four accesses (four keys, as
 * four warps or four loads of one warp) each read one line of one 4 KiB
 * region at the same cycle.  With every line sharing (share 1) they take
 * the region's one draw: the four ready cycles are equal (within the one
 * cycle that queueing's fractions round to) and their slowest
 * waits like a lone line (700 on average); with share 0 each access draws
 * its own and the slowest of four waits ~+108 (spread_slowest_line); lines
 * of different regions never share.  A lone line's wait is 700 at any
 * share: sharing moves which lines wait together, not how long one does. */
static double corr_max4(double share, uint64_t region_stride, int *equal)
{
    struct arch a;
    arch_tags(&a);
    a.dram_latency_spread = 100;
    a.dram_spread_bytes = 512;
    a.dram_corr_bytes = 4096;
    a.dram_corr_share = share;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    double sum = 0;
    int n = 2000;
    *equal = 0;
    for (int k = 0; k < n; k++) {
        struct mem_gpu g;
        assert_int_equal(mem_gpu_init(&c, &g), 0);
        uint64_t r[4], mx = 0, mn = UINT64_MAX;
        for (int i = 0; i < 4; i++) {
            struct mem_req q;
            memset(&q, 0, sizeof q);
            q.t1 = q.t = 10000;
            q.tagged = 1;
            q.key = (uint64_t)(4 * k + i) * 7919u;
            q.m = 1;
            q.nl = 1;
            /* line 4 i of region k (512 B apart), or of region k + i stride */
            uint64_t l[1] = {(uint64_t)(32 * (1000 + k) + 4 * i + 32 * region_stride * i) << 8 | 0x1};
            r[i] = mem_global(&c, &g, &q, l);
            mx = r[i] > mx ? r[i] : mx;
            mn = r[i] < mn ? r[i] : mn;
        }
        /* equal but for the L2 stage's and banks' fractions of a cycle */
        *equal += mx - mn <= 1;
        sum += (double)mx - 10000;
        mem_gpu_free(&g);
    }
    return sum / n;
}

static void corr_shared_draws(void **state)
{
    (void)state;
    int eq;
    double all = corr_max4(1.0, 0, &eq);
    assert_int_equal(eq, 2000);
    assert_true(all > 685 && all < 715);
    double none = corr_max4(0.0, 0, &eq);
    assert_true(eq < 100);
    assert_true(none > all + 80 && none < all + 140);
    /* 70 %: on average ~2.2 distinct draws among four */
    double part = corr_max4(0.7, 0, &eq);
    assert_true(part > all + 20 && part < none - 20);
    /* four regions 4 KiB x 2000 apart: share 1 draws four times */
    double apart = corr_max4(1.0, 2000, &eq);
    assert_true(apart > all + 80 && apart < all + 140);
}

/* memory.l1_reserve_kb takes its KiB off what the carveout leaves, and
 * memory.l1_set_index = modulo puts consecutive lines in consecutive sets:
 * L1 of 256 KiB total (tu_arch) with a 228 KiB carveout and 4 KiB reserved
 * holds 24 KiB = 192 lines = 48 sets of 4 ways; lines 0..191 then fill
 * every set exactly and all stay, line 192 (set 0) evicts line 0, the
 * least recently used of set 0 (lines 0, 48, 96, 144). */
static void reserve_and_modulo(void **state)
{
    (void)state;
    struct arch a;
    arch_tags(&a);
    a.l1_smem_kb = 256;
    a.l1_reserve_kb = 4;
    a.l1_set_index = ARCH_INDEX_MODULO;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 228 * 1024, 1);
    assert_true(c.l1_cap == 24.0 * 1024);
    struct mem_sm m;
    assert_int_equal(mem_sm_init(&c, &m), 0);
    assert_int_equal(m.l1.sets, 48);
    assert_int_equal(m.l1.ways, 4);
    unsigned ev, v;
    for (uint64_t l = 0; l < 192; l++)
        mem_cache_fill(&m.l1, l, 0xf, 0, &ev);
    for (uint64_t l = 0; l < 192; l++)
        assert_true(mem_cache_find(&m.l1, l, &v) >= 0);
    /* the finds above touched 0..191 in order: 0 is set 0's LRU */
    mem_cache_fill(&m.l1, 192, 0xf, 0, &ev);
    assert_true(mem_cache_find(&m.l1, 0, &v) < 0);
    assert_true(mem_cache_find(&m.l1, 48, &v) >= 0);
    assert_true(mem_cache_find(&m.l1, 1, &v) >= 0);
    mem_sm_free(&m);
}

/* memory.l1_store_allocate: a store writes through (its sectors still go
 * to L2) and leaves them valid in L1, so a load of the same line at t = 200
 * hits: L1 stage 1 cycle + l1_latency 40 = 241, nothing sent.  Without it
 * the load misses and goes to L2. */
static void store_allocates(void **state)
{
    (void)state;
    for (int alloc = 0; alloc < 2; alloc++) {
        struct arch a;
        arch_tags(&a);
        a.l1_store_allocate = alloc;
        struct mem_cfg c;
        mem_cfg_init(&c, &a, 0, 1);
        struct mem_sm m;
        assert_int_equal(mem_sm_init(&c, &m), 0);
        struct mem_counters cnt = {0};
        struct tr_inst st = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 2, 10, 4, 0);
        struct tr_inst ld = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 10, 2, -1, 4, 0);
        uint64_t addr[32];
        struct tr_dyn d;
        struct mem_local_res res;
        struct mem_req q;
        lanes(&d, addr, 0x2000);
        assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 0, 0, 100, 0, &res, &q), 0);
        assert_int_equal(res.global, 1); /* write-through: the store goes on */
        assert_int_equal(q.m, 4);
        mem_sm_epoch_end(&m);
        assert_int_equal(mem_local(&c, &m, &cnt, &ld, &d, 1, 0, 200, 0, &res, &q), 0);
        if (alloc) {
            assert_int_equal(res.global, 0);
            assert_int_equal(res.ready, 241);
            assert_int_equal(cnt.l1_sector_hits, 4);
        } else {
            assert_int_equal(res.global, 1);
            assert_int_equal(q.m, 4);
            assert_int_equal(cnt.l1_sector_hits, 0);
        }
        /* the store's 4 sectors count as L1 lookups that miss (ncu) */
        assert_int_equal(cnt.l1_sectors, 8);
        mem_sm_free(&m);
    }
}

/* memory.l1_store_sectors: with 8 credits, two 4-sector stores leave the
 * L1 stage at 101 and 102; the third waits for the first's credits, which
 * free when L2 accepted it: not known yet, no earlier than its send +
 * mem_min_latency (101 + 300 = 401); answered (accepted at 250), at 250.
 * Without credits the third leaves at 103.  Mutation check (by hand): not
 * taking credits (mem_mshr_take skipped) sends it at 103 and fails this. */
static void store_credits_hold(void **state)
{
    (void)state;
    for (int known = 0; known < 3; known++) {
        struct arch a;
        arch_tags(&a);
        a.l1_store_sectors = known == 2 ? 0 : 8;
        struct mem_cfg c;
        mem_cfg_init(&c, &a, 0, 1);
        struct mem_sm m;
        assert_int_equal(mem_sm_init(&c, &m), 0);
        struct mem_counters cnt = {0};
        struct tr_inst st = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 2, 10, 4, 0);
        uint64_t addr[32];
        struct tr_dyn d;
        struct mem_local_res res;
        struct mem_req q0, q;
        lanes(&d, addr, 0x1000);
        assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 0, 0, 100, 0, &res, &q0), 0);
        assert_int_equal(res.sent, 101);
        lanes(&d, addr, 0x2000);
        assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 1, 0, 100, 1, &res, &q), 0);
        assert_int_equal(res.sent, 102);
        if (known == 1)
            mem_sm_answer(&m, &q0, 0, 250);
        lanes(&d, addr, 0x3000);
        assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 2, 0, 100, 2, &res, &q), 0);
        assert_int_equal(res.sent, known == 0 ? 401 : known == 1 ? 250 : 103);
        mem_sm_free(&m);
    }
}

/* memory.dram_mix_read/_write/_window, one DRAM bank of 1.28 bytes per
 * cycle (a 4-sector line takes 100 cycles), requests without addresses.
 * X is a lone read's latency.  A read 500 cycles after a write (inside
 * the 1000-cycle window) takes 1 + 0.5 times as long: X + 50.  A write
 * right after a read takes 1 + 1.0 times (200 cycles), so a read arriving
 * during it waits for it and then pays its own turnaround: X + 200 (X + 50
 * without the write's share); a write 9500 cycles after the last read
 * takes 100, and a read queued behind it X + 100.  Outside the window
 * nothing is paid: X.
 * Mutation checks (done by hand): paying the write's or the read's
 * turnaround regardless of the window, or dropping either share, each
 * fails this test. */
static struct mem_req rw_req(uint64_t t, int is_store)
{
    struct mem_req q;
    memset(&q, 0, sizeof q);
    q.t = t;
    q.t1 = (double)t;
    q.m = 4;
    q.is_store = is_store;
    q.h2 = is_store ? 4 : 0;
    q.m3 = is_store ? 0 : 4;
    q.wb = is_store ? 4 : 0;
    return q;
}

static void dram_turnaround(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.line_bytes = 128; /* the request's 4 sectors are one line */
    a.dram_gbps = 1.28;
    a.dram_banks = 1;
    a.dram_mix_read = 0.5;
    a.dram_mix_write = 1.0;
    a.dram_mix_window = 1000;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_gpu g;
    assert_int_equal(mem_gpu_init(&c, &g), 0);
    struct mem_req q = rw_req(10000, 0);
    int64_t x = (int64_t)mem_global(&c, &g, &q, NULL) - 10000;
    /* 128/4096 at L2, 100 at the bank, dram_latency 700 */
    assert_int_equal(x, 801);
    q = rw_req(20000, 1); /* the last read is 10000 cycles back: 100 */
    mem_global(&c, &g, &q, NULL);
    q = rw_req(20500, 0);
    assert_int_equal((int64_t)mem_global(&c, &g, &q, NULL) - 20500, x + 50);
    q = rw_req(30000, 1); /* the last read is 9500 back: 30000 .. 30100 */
    mem_global(&c, &g, &q, NULL);
    q = rw_req(30050, 0); /* 30100 .. 30250, then 700 */
    assert_int_equal((int64_t)mem_global(&c, &g, &q, NULL) - 30050, x + 100);
    q = rw_req(50000, 0);
    assert_int_equal((int64_t)mem_global(&c, &g, &q, NULL) - 50000, x);
    q = rw_req(50200, 1); /* 200 cycles: 50200 .. 50400 */
    mem_global(&c, &g, &q, NULL);
    q = rw_req(50250, 0); /* 50400 .. 50550, then 700 */
    assert_int_equal((int64_t)mem_global(&c, &g, &q, NULL) - 50250, x + 200);
    q = rw_req(60000, 0); /* the write was 9800 cycles back */
    assert_int_equal((int64_t)mem_global(&c, &g, &q, NULL) - 60000, x);
    mem_gpu_free(&g);
}

/* memory.dram_write_batch: a bank gathers written-back lines and serves
 * them together when the batch is full.  One bank of 1.28 bytes per cycle
 * (a line: 100 cycles), batch 3, no turnaround, requests without
 * addresses; x = 801 is a lone read (dram_turnaround).  Write-backs at
 * 10000 and 10010 are gathered, so a read at 10020 finds the bank idle: x
 * (without batches it queues behind both until 10200: x + 180).  The third
 * write-back, at 11000, sends the batch: the bank is busy 11000 .. 11300,
 * and a read at 11050 waits for all of it: 11300 .. 11400, then 700, so
 * x + 250 (without batches only the one line, until 11100: x + 50).
 * Mutation check (by hand): serving each write-back as it comes (the batch
 * branch skipped) fails both assertions. */
static void batch_reads(int batch, int64_t *idle, int64_t *behind)
{
    struct arch a;
    tu_arch(&a, 1);
    a.line_bytes = 128;
    a.dram_gbps = 1.28;
    a.dram_banks = 1;
    a.dram_write_batch = batch;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_gpu g;
    assert_int_equal(mem_gpu_init(&c, &g), 0);
    struct mem_req q = rw_req(10000, 1);
    mem_global(&c, &g, &q, NULL);
    q = rw_req(10010, 1);
    mem_global(&c, &g, &q, NULL);
    q = rw_req(10020, 0);
    *idle = (int64_t)mem_global(&c, &g, &q, NULL) - 10020;
    q = rw_req(11000, 1);
    mem_global(&c, &g, &q, NULL);
    q = rw_req(11050, 0);
    *behind = (int64_t)mem_global(&c, &g, &q, NULL) - 11050;
    mem_gpu_free(&g);
}

static void dram_write_batch(void **state)
{
    (void)state;
    int64_t idle, behind;
    batch_reads(3, &idle, &behind);
    assert_int_equal(idle, 801);
    assert_int_equal(behind, 801 + 250);
    /* the bank's calendar keeps 25-cycle slots of 32 bytes (the arrivals
     * 128 / 4096 cycles into a slot): a cycle either way */
    batch_reads(0, &idle, &behind);
    assert_true(idle >= 801 + 179 && idle <= 801 + 180);
    assert_true(behind >= 801 + 49 && behind <= 801 + 50);
}

/* memory.dram_write_queue on the path with tags: a store that displaces a
 * dirty L2 line is accepted once the line's write-back is queued within
 * that many lines of bank time of its service.  One bank of 1.28 bytes per
 * cycle (a 128-byte line: 100 cycles, 25 per sector), a 1 KiB L2 of one
 * set of 8 ways: stores dirty lines 0..7, three reads keep the bank busy
 * 10000 .. 10300, and at 10000 a store to line 8 evicts line 0, the least
 * recently used: its write-back starts at 10300.  Accepted at 10300 with a queue of 0,
 * at 10300 - 2 lines x 100 = 10100 with 2, and at once (its L2 arrival:
 * it leaves L1 at 10001, plus 128 / 4096 cycles at L2, rounded up to
 * 10002) with 100 lines: each answer is the acceptance plus the same L2
 * latency.  Mutation check (by hand): dropping the slack from global_tags
 * (acc stays the start) fails it; so does measuring it in sectors, not
 * lines. */
static uint64_t wq_store_ready(double queue)
{
    struct arch a;
    arch_tags(&a);
    a.l2_size_kb = 1;
    a.l2_ways = 8;
    a.dram_gbps = 1.28;
    a.dram_banks = 1;
    a.dram_write_queue = queue;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_gpu g;
    struct mem_sm m;
    assert_int_equal(mem_gpu_init(&c, &g), 0);
    assert_int_equal(mem_sm_init(&c, &m), 0);
    struct mem_counters cnt = {0};
    struct tr_inst st = tu_mem(TR_K_STORE, TR_SP_GLOBAL, TR_PAT_COALESCED, -1, 2, 10, 4, 0);
    uint64_t addr[32];
    struct tr_dyn d;
    struct mem_local_res res;
    struct mem_req q;
    for (int i = 0; i < 8; i++) {
        lanes(&d, addr, 0x80u * (uint64_t)i);
        assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 0, (uint64_t)i, 100 + (uint64_t)i, 0,
                                   &res, &q), 0);
        mem_global(&c, &g, &q, m.lines.v);
        mem_sm_epoch_end(&m);
    }
    assert_int_equal(g.cnt.dram_bytes, 0);
    for (int i = 0; i < 3; i++) {
        struct mem_req r = rw_req(10000, 0);
        mem_global(&c, &g, &r, NULL);
    }
    lanes(&d, addr, 0x400);
    assert_int_equal(mem_local(&c, &m, &cnt, &st, &d, 1, 0, 10000, 1, &res, &q), 0);
    uint64_t ready = mem_global(&c, &g, &q, m.lines.v);
    assert_int_equal(g.cnt.dram_bytes, 128); /* the write-back of line 0 */
    mem_sm_free(&m);
    mem_gpu_free(&g);
    return ready;
}

static void dram_write_queue(void **state)
{
    (void)state;
    uint64_t r0 = wq_store_ready(0), r2 = wq_store_ready(2), rn = wq_store_ready(100);
    assert_int_equal(r0 - r2, 200);
    /* with room in the queue: accepted at its L2 arrival, 10002 */
    assert_int_equal(r2 - rn, 98);
}

/* memory.dram_access_sectors: each DRAM access (the sectors of one line a
 * bank serves at once) costs that many sectors' bank time besides its own,
 * all scaled by 4 / (4 + that) so that a whole line takes four sectors'
 * time.  One bank of 1.28 bytes per cycle (25 cycles a sector), empty L2;
 * at t = 10000 line 0x1000 is read whole (one access) or in two halves (two
 * accesses), then a one-sector probe of another line queues behind it.  The
 * probe's answer, less 10000: the bank's calendar holds 32 bytes per
 * 25-cycle slot, and the line and the probe fill slots from 10000 (the
 * line arrives 128 / 4096 cycles into the first, the probe takes what it
 * left), then dram_latency 700.  With 4 sectors per access (scale 1/2):
 *   whole:  ((4 + 4) + (1 + 4)) / 2 x 25 + 700     = 862.5 -> 863
 *   halves: (2 x (2 + 4) + (1 + 4)) / 2 x 25 + 700 = 912.5 -> 913
 * and without (0): 5 x 25 + 700 = 825 both.  Mutation check (by hand):
 * dropping the access's sectors from bank_serve fails it. */
/* n one-line tagged reads at t = 10000 on an empty L2, lines[i] (line <<
 * 8 | sector mask) of m[i] sectors, through `banks` DRAM banks of 1.28
 * bytes per cycle in all, with `per_access` sectors per access: the last
 * read's answer less 10000; *bytes the DRAM bytes read. */
static uint64_t dram_reads(int banks, double per_access, const uint64_t *lines, const int *m,
                           int n, uint64_t *bytes)
{
    struct arch a;
    arch_tags(&a);
    a.dram_gbps = 1.28;
    a.dram_banks = banks;
    a.dram_access_sectors = per_access;
    struct mem_cfg c;
    mem_cfg_init(&c, &a, 0, 1);
    struct mem_gpu g;
    assert_int_equal(mem_gpu_init(&c, &g), 0);
    struct mem_req q;
    memset(&q, 0, sizeof q);
    q.t = 10000;
    q.t1 = 10000;
    q.tagged = 1;
    q.nl = 1;
    uint64_t r = 0;
    for (int i = 0; i < n; i++) {
        q.m = m[i];
        r = mem_global(&c, &g, &q, &lines[i]) - 10000;
    }
    *bytes = g.cnt.dram_bytes;
    mem_gpu_free(&g);
    return r;
}

/* Line 0x1000 whole or in two halves, then the probe (one sector of line
 * 0x2000), on one bank. */
static uint64_t probe_after_line(double per_access, int halves)
{
    const uint64_t L = (uint64_t)0x1000 << 8, P = (uint64_t)0x2000 << 8 | 0x1;
    const uint64_t whole[2] = {L | 0xf, P}, split[3] = {L | 0x3, L | 0xc, P};
    const int mw[2] = {4, 1}, ms[3] = {2, 2, 1};
    uint64_t bytes, r = halves ? dram_reads(1, per_access, split, ms, 3, &bytes)
                               : dram_reads(1, per_access, whole, mw, 2, &bytes);
    assert_int_equal(bytes, 5 * 32);
    return r;
}

/* With several banks the configured dram_latency stays the unloaded mean
 * of a one-sector access whatever it costs at its bank: two banks of 0.64
 * bytes per cycle (50 cycles a sector), a lone sector read at 10000 is
 * answered at 10000 + 32 / 4096 + 700, rounded up, with 0 or 3 sectors per
 * access.  Mutation check (by hand): taking only one sector's bank time
 * off dram_base fails it. */
static uint64_t lone_sector(double per_access)
{
    const uint64_t l[1] = {(uint64_t)0x3000 << 8 | 0x1};
    const int m[1] = {1};
    uint64_t bytes;
    return dram_reads(2, per_access, l, m, 1, &bytes);
}

static void dram_access_cost(void **state)
{
    (void)state;
    assert_int_equal(probe_after_line(4, 0), 863);
    assert_int_equal(probe_after_line(4, 1), 913);
    assert_int_equal(probe_after_line(0, 0), 825);
    assert_int_equal(probe_after_line(0, 1), 825);
    assert_int_equal(lone_sector(0), 701);
    assert_int_equal(lone_sector(3), 701);
}

/* Two L2 partitions (memory.l2_partitions 2, l2_far_latency 50): a load
 * looks up its SM's near partition, then the line's home; a far hit costs
 * 50 more and leaves a copy near; what misses at home comes from DRAM
 * into both; a store writes at home and drops the other copy, unless it
 * came through it (from the far side: allocated there, two lookups that
 * hit).  Lines F and
 * G are homed in partition 1 (mem_l2_home), SMs in partition 0 or 1 read
 * them (q.part).  Cycles as in l2_second_touch_and_flush: a DRAM read is
 * answered at 802 from 100, an L2 hit at t + 1 + 128/4096 + 300 rounded up
 * (t + 302), a far hit at t + 352.  Lookups count every partition looked
 * at: F from partition 0 misses twice (8 lookups).  With one partition the
 * same reads are a miss and hits only.  Mutation checks (by hand): no copy
 * kept near on a far hit, no far latency, a store that leaves the other
 * copy, far lookups not counted, a far store's near lookup not counted or
 * no copy allocated near each fail it. */
static uint64_t part_read(struct mem_cfg *c, struct mem_gpu *g, uint64_t line, int part,
                          uint64_t t, int store)
{
    uint64_t l = line << 8 | 0xf;
    struct mem_req q;
    memset(&q, 0, sizeof q);
    q.t = t;
    q.t1 = (double)t + 1;
    q.m = 4;
    q.tagged = 1;
    q.nl = 1;
    q.part = part;
    q.is_store = store;
    return mem_global(c, g, &q, &l) - t;
}

static void l2_two_partitions(void **state)
{
    (void)state;
    for (int parts = 1; parts <= 2; parts++) {
        struct arch a;
        arch_tags(&a);
        a.l2_partitions = parts;
        a.l2_far_latency = 50;
        struct mem_cfg c;
        mem_cfg_init(&c, &a, 0, 1);
        struct mem_gpu g;
        assert_int_equal(mem_gpu_init(&c, &g), 0);
        uint64_t F = 0, G;
        while (mem_l2_home(&g, F) != parts - 1)
            F++;
        G = F + 1;
        while (mem_l2_home(&g, G) != parts - 1)
            G++;
        uint64_t far = parts == 2 ? 50 : 0;
        /* F: partition 0 reads it from DRAM (kept in both), then both hit near */
        assert_int_equal(part_read(&c, &g, F, 0, 100, 0), 702);
        assert_int_equal(g.cnt.l2_sectors, parts == 2 ? 8 : 4);
        assert_int_equal(part_read(&c, &g, F, 1, 2000, 0), 302);
        assert_int_equal(part_read(&c, &g, F, 0, 3000, 0), 302);
        /* G: its home reads it first; partition 0 then hits far once, near after */
        assert_int_equal(part_read(&c, &g, G, 1, 4000, 0), 702);
        assert_int_equal(part_read(&c, &g, G, 0, 6000, 0), 302 + far);
        assert_int_equal(part_read(&c, &g, G, 0, 7000, 0), 302);
        /* a store at home drops partition 0's copy: far again */
        part_read(&c, &g, G, 1, 8000, 1);
        assert_int_equal(part_read(&c, &g, G, 0, 9000, 0), 302 + far);
        /* once more dropped; then a store from partition 0 passes its copy
         * and fills it again: near after */
        part_read(&c, &g, G, 1, 10000, 1);
        part_read(&c, &g, G, 0, 11000, 1);
        assert_int_equal(part_read(&c, &g, G, 0, 12000, 0), 302);
        /* lookups: F 8 + 4 + 4, G 4 + 8 + 4, the stores 4, G 8, the stores
         * 4 + 8, G 4 (one partition: 4 each); hits: F 0 + 4 + 4, G 0 + 4 +
         * 4, the store 4, G 4, the stores 4 + 8, G 4 */
        assert_int_equal(g.cnt.l2_sectors, parts == 2 ? 60 : 44);
        assert_int_equal(g.cnt.l2_sector_hits, parts == 2 ? 40 : 36);
        assert_int_equal(g.cnt.dram_bytes, 256);
        /* each partition holds half the L2 */
        assert_int_equal((uint64_t)g.l2[0].sets * (uint64_t)g.l2[0].ways * 128,
                         (uint64_t)a.l2_size_kb * 1024 / (uint64_t)parts);
        mem_gpu_free(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lru_order),
        cmocka_unit_test(miss_merges),
        cmocka_unit_test(full_mshr_holds),
        cmocka_unit_test(inst_entries_hold),
        cmocka_unit_test(l2_second_touch_and_flush),
        cmocka_unit_test(spread_slowest_line),
        cmocka_unit_test(corr_shared_draws),
        cmocka_unit_test(reserve_and_modulo),
        cmocka_unit_test(store_allocates),
        cmocka_unit_test(store_credits_hold),
        cmocka_unit_test(dram_turnaround),
        cmocka_unit_test(dram_write_queue),
        cmocka_unit_test(dram_write_batch),
        cmocka_unit_test(dram_access_cost),
        cmocka_unit_test(l2_two_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
