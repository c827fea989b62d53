/* test_engine_mem.c — coalescing, cache levels and the bandwidth servers.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"
#include "mem/mem.h"

static void run_ok(const struct arch *a, struct tu_kernel *t, const struct engine_opts *o,
                   struct stats_kernel *st)
{
    char err[512];
    if (engine_run(a, &t->k, o, st, err) != 0)
        fail_msg("engine_run: %s", err);
}

/* Long-scoreboard cycles per trip of a warp (a proxy for the loaded
 * latency it sees: it issues 8 loads, then the next trip waits on the
 * first). */
struct lat_obs {
    uint64_t cycles; /* long_scoreboard cycles */
    uint64_t n;      /* intervals              */
};

static void obs_state(void *ud, int sm, int smsp, int slot, uint32_t block, uint32_t warp,
                      uint64_t from, uint64_t to, int st)
{
    struct lat_obs *l = ud;
    (void)sm, (void)smsp, (void)slot, (void)block, (void)warp;
    if (st == WS_LONG_SCOREBOARD) {
        l->cycles += to - from;
        l->n++;
    }
}

static double loaded_trips(uint64_t warps, uint32_t loops)
{
    return (double)warps * (double)(loops - 1); /* the last trip drains instead */
}

/* Streaming: every warp issues 8 independent coalesced LDG (128 B each)
 * over a footprint far above L2, so every sector comes from DRAM once.  The
 * next trip's loads overwrite the same registers (WAW), so a warp keeps at
 * most 8 loads in flight.  8 SMs x 64 warps x 1 KB in flight is far more
 * than bandwidth x latency (200 B/cycle x 700), so DRAM is the bottleneck:
 * bytes / cycles must match the configured 200 B/cycle, and the latency a
 * warp sees must rise well above the unloaded 700 cycles. */
static void dram_saturates(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 8);
    a.dram_gbps = 200; /* 1 GHz: 200 B/cycle */
    a.l2_bytes_per_clk = 4096;
    a.l1_bytes_per_clk = 128;
    assert_true(arch_dram_bytes_per_clk(&a) > 199.999 && arch_dram_bytes_per_clk(&a) < 200.001);
    struct tr_inst body[8];
    for (int i = 0; i < 8; i++)
        body[i] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 4 + i, 1, -1, 4, 1ull << 34);
    const uint32_t loops = 12;
    struct tu_kernel t;
    tu_kernel_init(&t, 16, 1024, body, 8, loops);
    struct engine_opts o;
    tu_opts(&o);
    struct lat_obs loaded = {0, 0}, idle = {0, 0};
    struct engine_observer eo = {&loaded, obs_state, NULL, 0, NULL, NULL};
    o.obs = &eo;
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    const uint64_t warps = 16 * 32;
    assert_int_equal(st.dram_bytes, warps * loops * 8 * 128);
    assert_int_equal(st.l2_sector_hits, 0);
    assert_int_equal(st.l1_sector_hits, 0);
    assert_int_equal(st.l1_sectors, warps * loops * 8 * 4);
    double bw = (double)st.dram_bytes / (double)st.cycles_elapsed;
    if (bw < 200 * 0.95 || bw > 200 * 1.0001)
        fail_msg("DRAM bytes/cycle %.2f, configured 200", bw);
    assert_true(tu_identity_ok(&st));
    stats_kernel_free(&st);

    /* the same trip with one warp on the GPU: the unloaded latency */
    struct tu_kernel t1;
    tu_kernel_init(&t1, 1, 32, body, 8, loops);
    eo.ud = &idle;
    run_ok(&a, &t1, &o, &st);
    double lat_idle = (double)idle.cycles / (double)loaded_trips(1, loops);
    double lat_loaded = (double)loaded.cycles / (double)loaded_trips(warps, loops);
    /* one warp: 8 loads at 0..7, the first back at ~702: waits ~694 */
    assert_true(lat_idle > 690 && lat_idle < 700);
    assert_true(lat_loaded > 2 * lat_idle);
    stats_kernel_free(&st);
}

/* L2 bandwidth: the same stream with a footprint that fits L2 saturates at
 * l2_bytes_per_clk instead, with no DRAM traffic. */
static void l2_saturates(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 8);
    a.l2_bytes_per_clk = 256;
    a.l1_bytes_per_clk = 1024;
    struct tr_inst body[8];
    for (int i = 0; i < 8; i++)
        body[i] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 4 + i, 1, -1, 4, 8u << 20);
    struct tu_kernel t;
    tu_kernel_init(&t, 16, 1024, body, 8, 20);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.dram_bytes, 0);
    assert_int_equal(st.l2_sector_hits, st.l2_sectors);
    double bw = (double)st.l2_bytes / (double)st.cycles_elapsed;
    if (bw < 256 * 0.95 || bw > 256 * 1.0001)
        fail_msg("L2 bytes/cycle %.2f, configured 256", bw);
    stats_kernel_free(&st);
}

/* Sectors per access pattern (32-byte sectors, 32 lanes). */
static void coalescing(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[6];
    body[0] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 4, 1, -1, 4, 1024); /* 4 */
    body[1] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_COALESCED, 5, 1, -1, 16, 1024); /* 16 */
    body[2] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_STRIDED, 6, 1, -1, 4, 1024); /* 32 */
    body[2].stride = 64;
    body[3] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_STRIDED, 7, 1, -1, 4, 1024); /* 8 */
    body[3].stride = 8;
    body[4] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_BROADCAST, 8, 1, -1, 4, 1024); /* 1 */
    body[5] = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_RANDOM, 9, 1, -1, 4, 1024); /* 16 lanes */
    body[5].active = 0x0000ffffu;
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 6, 1);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.l1_sectors, 4 + 16 + 32 + 8 + 1 + 16);
    assert_int_equal(st.thread_inst, 5 * 32 + 16 + 32);
    stats_kernel_free(&st);
}

/* Random loads of `width` bytes per lane over a footprint 4x the L1 left
 * by the carveout: about a quarter of the sectors hit L1 (hash draws), the
 * rest hit L2. */
static void hit_rate_case(int width, int loops)
{
    struct arch a;
    tu_arch(&a, 1);
    struct tr_inst body[1] = {
        tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_RANDOM, 4, 1, -1, width, 0)};
    struct tu_kernel t;
    tu_kernel_init(&t, 4, 1024, body, 1, (uint32_t)loops);
    struct engine_opts o;
    tu_opts(&o);
    o.carveout_pct = 0; /* no shared memory: the whole 256 KB is L1 */
    a.smem_reserved_per_block = 0;
    body[0].footprint = 4ull * 256 * 1024;
    struct stats_kernel st;
    run_ok(&a, &t, &o, &st);
    assert_int_equal(st.occ.smem_config_bytes, 0);
    double h1 = (double)st.l1_sector_hits / (double)st.l1_sectors;
    assert_true(h1 > 0.23 && h1 < 0.27);
    assert_int_equal(st.l2_sector_hits, st.l2_sectors);
    assert_int_equal(st.l2_sectors, st.l1_sectors - st.l1_sector_hits);
    stats_kernel_free(&st);
}

/* 4-byte lanes: 32 sectors a load, one binomial draw per level. */
static void random_hit_rate(void **state)
{
    (void)state;
    hit_rate_case(4, 20);
}

/* 65535-byte lanes: 65536 sectors a load, where the binomial's P(0) =
 * 0.75^65536 underflows and the engine draws sector by sector. */
static void random_hit_rate_wide(void **state)
{
    (void)state;
    hit_rate_case(65535, 1);
}

/* Cycles of one warp running n dependent loads of `pattern` (32 lanes,
 * 8 bytes each) over `footprint` (0: unknown, an L2 hit). */
static uint64_t chase_cycles(const struct arch *a, int pattern, uint64_t footprint, uint32_t n)
{
    struct tr_inst body[1] = {tu_mem(TR_K_LOAD, TR_SP_GLOBAL, pattern, 4, 4, -1, 8, footprint)};
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 1, n);
    struct engine_opts o;
    tu_opts(&o);
    struct stats_kernel st;
    run_ok(a, &t, &o, &st);
    uint64_t c = st.cycles_elapsed;
    stats_kernel_free(&st);
    return c;
}

/* memory.*_cycles_per_line: a divergent load (32 lanes, 32 lines where 8
 * hold its 32 sectors: 24 excess lines) waits c per excess line longer at
 * the level that serves it; a coalesced one (no excess line) is unchanged,
 * and so is everything when the keys are 0 or line_bytes is unset. */
static void per_line_cost(void **state)
{
    (void)state;
    const uint32_t N = 50;
    struct arch a;
    tu_arch(&a, 1);
    a.line_bytes = 128;
    uint64_t l1_0 = chase_cycles(&a, TR_PAT_RANDOM, 4096, N);
    uint64_t l2_0 = chase_cycles(&a, TR_PAT_RANDOM, 0, N);
    uint64_t co_0 = chase_cycles(&a, TR_PAT_COALESCED, 4096, N);
    a.l1_cycles_per_line = 1.5;
    a.l2_cycles_per_line = 2.0;
    a.dram_cycles_per_line = 7.0;
    assert_int_equal(chase_cycles(&a, TR_PAT_RANDOM, 4096, N), l1_0 + N * 24 * 3 / 2);
    assert_int_equal(chase_cycles(&a, TR_PAT_RANDOM, 0, N), l2_0 + N * 24 * 2);
    assert_int_equal(chase_cycles(&a, TR_PAT_COALESCED, 4096, N), co_0);
    a.line_bytes = 0; /* the hand arch's unset line: no line model */
    assert_int_equal(chase_cycles(&a, TR_PAT_RANDOM, 4096, N), l1_0);
}

/* One load with per-lane addresses: mem_shape's sectors and excess lines
 * (the path mem_local uses) against hand counts, and mem_sectors' sectors. */
static void shape_case(const struct arch *a, int width, const uint64_t *addr, uint32_t n,
                       uint32_t mask, int want_sec, int want_excess)
{
    struct tr_inst in = tu_mem(TR_K_LOAD, TR_SP_GLOBAL, TR_PAT_ADDRESSES, 4, 1, -1, width, 0);
    struct tr_dyn d = {mask, n, addr};
    int ex = -7;
    assert_int_equal(mem_shape(a, &in, &d, &ex), want_sec);
    assert_int_equal(ex, want_excess);
    assert_int_equal(mem_shape(a, &in, &d, NULL), want_sec);
    assert_int_equal(mem_sectors(a, &in, &d, NULL), want_sec);
}

/* Sectors and lines of address traces (32-byte sectors, 128-byte lines
 * unless said): lanes in order and out of order (the two ways of counting
 * distinct values), repeats, lanes spanning sectors, the 128-sector cap,
 * sizes that are not powers of two, a line that is not a whole number of
 * sectors (counted apart), no active lane. */
static void address_shapes(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.sector_bytes = 32;
    a.line_bytes = 128;
    uint64_t v[32];
    const uint32_t all = 0xffffffffu;
    /* 32 x 4 B from 0x1000: 128 B = 4 sectors of one line */
    for (int i = 0; i < 32; i++)
        v[i] = 0x1000 + 4u * (uint64_t)i;
    shape_case(&a, 4, v, 32, all, 4, 0);
    for (int i = 0; i < 32; i++) /* the same bytes, lanes reversed */
        v[i] = 0x1000 + 4u * (uint64_t)(31 - i);
    shape_case(&a, 4, v, 32, all, 4, 0);
    /* each lane its own line: 32 sectors, 32 lines where 8 would hold them */
    for (int i = 0; i < 32; i++)
        v[i] = 128u * (uint64_t)i;
    shape_case(&a, 4, v, 32, all, 32, 24);
    for (int i = 0; i < 32; i++) /* the same lines in a scrambled order */
        v[i] = 128u * (uint64_t)((i * 13) % 32);
    shape_case(&a, 4, v, 32, all, 32, 24);
    for (int i = 0; i < 32; i++) /* all lanes on one word */
        v[i] = 0x40;
    shape_case(&a, 4, v, 32, all, 1, 0);
    for (int i = 0; i < 32; i++) /* two lines, alternating: 2 sectors, 1 excess line */
        v[i] = (i & 1) ? 0x2000 : 0x1000;
    shape_case(&a, 4, v, 32, all, 2, 1);
    /* 8 lanes of 16 B at 24 + 64 i: two sectors each (16), lines 0..3 (4 =
     * 16 / 4: no excess) */
    for (int i = 0; i < 8; i++)
        v[i] = 24 + 64u * (uint64_t)i;
    shape_case(&a, 16, v, 8, 0xffu, 16, 0);
    /* 65535-byte lanes: the sector list stops at 128 (lane 0's first 128
     * sectors); the lines are then counted apart, with the same cap (lane
     * 0's first 128 lines): 128 - 128 / 4 = 96 in excess */
    for (int i = 0; i < 32; i++)
        v[i] = 65536u * (uint64_t)i;
    shape_case(&a, 65535, v, 32, all, 128, 96);
    /* no active lane */
    shape_case(&a, 4, v, 32, 0, 0, 0);
    /* 24-byte sectors, 96-byte lines: 32 x 4 B from 0 is bytes 0..127,
     * sectors 0..5, lines 0..1 (no excess); one lane per line: 24 excess */
    a.sector_bytes = 24;
    a.line_bytes = 96;
    for (int i = 0; i < 32; i++)
        v[i] = 4u * (uint64_t)i;
    shape_case(&a, 4, v, 32, all, 6, 0);
    for (int i = 0; i < 32; i++)
        v[i] = 96u * (uint64_t)((i * 7) % 32);
    shape_case(&a, 4, v, 32, all, 32, 24);
    /* a 48-byte line over 32-byte sectors (not a whole number of them; a
     * hand-filled arch only): 1 sector per line for the count, lanes at
     * 128 i touch 32 sectors and 32 lines, none in excess */
    a.sector_bytes = 32;
    a.line_bytes = 48;
    for (int i = 0; i < 32; i++)
        v[i] = 128u * (uint64_t)i;
    shape_case(&a, 4, v, 32, all, 32, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dram_saturates),
        cmocka_unit_test(l2_saturates),
        cmocka_unit_test(coalescing),
        cmocka_unit_test(random_hit_rate),
        cmocka_unit_test(random_hit_rate_wide),
        cmocka_unit_test(per_line_cost),
        cmocka_unit_test(address_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
