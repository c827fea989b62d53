/* test_occ_rules.c — occ_compute() on hand-computed cases (the worked cases
 * of the occupancy-rules reference note, each recomputed by hand below).
 * Device values: CUDA C++ Programming Guide (CUDA 13.0), "Technical
 * Specifications per Compute Capability"; carveouts from its per-architecture
 * "Shared Memory" sections; granularities as in cuda_occupancy.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "occ/occ.h"

static void base(struct arch *a, int major, int minor)
{
    memset(a, 0, sizeof *a);
    a->cc_major = major;
    a->cc_minor = minor;
    a->sm_count = 132;
    a->subpartitions = 4;
    a->warp_size = 32;
    a->max_threads_per_block = 1024;
    a->regs_per_sm = 65536;
    a->regs_per_block = 65536;
    a->max_regs_per_thread = 255;
    a->reg_alloc_unit = 256;
    a->smem_per_block = 49152;
    a->smem_reserved_per_block = 1024;
    a->smem_alloc_granularity = 128;
    a->barriers_per_block = 16;
}

static void set_carve(struct arch *a, const int *kb, int n)
{
    for (int i = 0; i < n; i++)
        a->carveouts_kb[i] = kb[i];
    a->n_carveouts = n;
}

static const int carve_h100[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
static const int carve_a100[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const int carve_ga10x[] = {0, 8, 16, 32, 64, 100};
static const int carve_t4[] = {32, 64};

static void h100(struct arch *a)
{
    base(a, 9, 0);
    a->max_warps_per_sm = 64;
    a->max_threads_per_sm = 2048;
    a->max_blocks_per_sm = 32;
    a->smem_per_sm = 233472;
    a->smem_per_block_optin = 232448;
    set_carve(a, carve_h100, 10);
    a->barrier_multiplier = 2;
}

static void a100(struct arch *a)
{
    base(a, 8, 0);
    a->max_warps_per_sm = 64;
    a->max_threads_per_sm = 2048;
    a->max_blocks_per_sm = 32;
    a->smem_per_sm = 167936;
    a->smem_per_block_optin = 166912;
    set_carve(a, carve_a100, 8);
}

static void ga10x(struct arch *a, int minor, int blocks) /* 8.6, 8.9, 12.0 */
{
    base(a, minor == 0 ? 12 : 8, minor);
    a->max_warps_per_sm = 48;
    a->max_threads_per_sm = 1536;
    a->max_blocks_per_sm = blocks;
    a->smem_per_sm = 102400;
    a->smem_per_block_optin = 101376;
    set_carve(a, carve_ga10x, 6);
    a->barrier_multiplier = minor == 0 ? 1 : 0;
}

static struct occ_launch launch(int threads, int regs, int st, int dyn)
{
    struct occ_launch l = {.threads = threads, .regs = regs, .smem_static = st,
                           .smem_dynamic = dyn, .max_dynamic = -1, .carveout_pct = -1};
    return l;
}

/* H100, 32 threads, 8 regs, 12 KB static: 12288 + 1024 reserve = 13312 B per
 * block; 233472 / 13312 = 17.5 -> 17.  17 warps of 64 = 26.5625 %. */
static void test_h100_smem_17(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(32, 8, 12288, 0);
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 17);
    assert_int_equal(r.limiters, OCC_LIM_SHARED_MEM);
    assert_int_equal(r.binding, OCC_LIM_SHARED_MEM);
    assert_int_equal(r.smem_per_block_alloc, 13312);
    assert_int_equal(r.limit_shared_mem, 17);
    assert_int_equal(r.limit_registers, 256); /* 16384/256 = 64 per SMSP x 4 / 1 */
    assert_int_equal(r.limit_warps, 64);
    assert_int_equal(r.limit_blocks, 32);
    assert_int_equal(r.limit_barriers, INT_MAX);
    assert_int_equal(r.active_warps, 17);
    assert_true(r.occupancy_pct > 26.5624 && r.occupancy_pct < 26.5626);
    assert_int_equal(r.smem_sm_bytes, 233472);
    /* 17 x 13312 = 226304 B needs the 228 KB carveout */
    assert_int_equal(r.smem_config_bytes, 233472);
    assert_null(r.error);
}

/* A100, 256 threads x 64 regs: 2048 regs per warp, 16384/2048 = 8 warps per
 * SMSP, 32 per SM / 8 warps per block = 4. */
static void test_a100_registers(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(256, 64, 0, 0);
    a100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 4);
    assert_int_equal(r.limiters, OCC_LIM_REGISTERS);
    assert_int_equal(r.limit_warps, 8);
    assert_int_equal(r.limit_shared_mem, 164); /* 167936 / 1024 */
    assert_int_equal(r.regs_per_block_alloc, 16384);
    assert_true(r.occupancy_pct == 50.0);
    /* no barrier limit before 9.0 */
    l.barriers = 16;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.limit_barriers, INT_MAX);
    assert_int_equal(r.blocks_per_sm, 4);
}

/* A100, 256 x 32, 48 KB dynamic: 49152 + 1024 = 50176 B (above the 48 KB
 * default, so the opt-in ceiling 166912 + 1024 applies); 167936 / 50176 = 3.
 * With a 25 % preference: 25 x 167936 / 100 = 41984 -> 64 KB carveout, which
 * holds one 50176 B block. */
static void test_a100_smem_and_carveout(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(256, 32, 0, 49152);
    a100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 3);
    assert_int_equal(r.limiters, OCC_LIM_SHARED_MEM);
    assert_int_equal(r.smem_per_block_alloc, 50176);
    /* 3 x 50176 = 150528 B -> the driver needs the 164 KB carveout */
    assert_int_equal(r.smem_config_bytes, 167936);

    l.carveout_pct = 25;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 1);
    assert_int_equal(r.limiters, OCC_LIM_SHARED_MEM);
    assert_int_equal(r.smem_sm_bytes, 65536);
    assert_int_equal(r.smem_config_bytes, 65536);

    /* 10 %: 16793 B -> 32 KB carveout, too small for one block, so the
     * block's own 50176 B rounds up to the 64 KB carveout: 1 block. */
    l.carveout_pct = 10;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 1);
    assert_int_equal(r.smem_sm_bytes, 65536);

    /* 0 % with no shared memory: 0 KB preference < 1024 B reserve -> 8 KB
     * carveout -> 8 blocks of 1 KB. */
    l = launch(32, 8, 0, 0);
    l.carveout_pct = 0;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 8);
    assert_int_equal(r.smem_config_bytes, 8192);
}

/* T4 (7.5): legal carveouts 32 and 64 KB only, no reserve, 256 B granules.
 * 0 % -> 32 KB; 1000 B static -> 1024 B per block -> 32 blocks, but the
 * SM holds only 16. */
static void test_turing_carveout(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(32, 16, 1000, 0);
    base(&a, 7, 5);
    a.max_warps_per_sm = 32;
    a.max_threads_per_sm = 1024;
    a.max_blocks_per_sm = 16;
    a.smem_per_sm = 65536;
    a.smem_per_block_optin = 65536;
    a.smem_reserved_per_block = 0;
    a.smem_alloc_granularity = 256;
    set_carve(&a, carve_t4, 2);
    l.carveout_pct = 0;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.smem_per_block_alloc, 1024);
    assert_int_equal(r.smem_sm_bytes, 32768);
    assert_int_equal(r.limit_shared_mem, 32);
    assert_int_equal(r.blocks_per_sm, 16);
    assert_int_equal(r.limiters, OCC_LIM_BLOCKS);
    /* no shared memory at all and no reserve: unlimited by shared memory */
    l = launch(32, 16, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.limit_shared_mem, INT_MAX);
    assert_int_equal(occ_carveout_round_up(&a, 0), 32768);
    assert_int_equal(occ_carveout_round_up(&a, 65537), -1);
}

/* 8.6, 128 threads x 40 regs: warps 48/4 = 12; regs 1280 per warp, 16384/1280
 * = 12 per SMSP, 48/4 = 12: two limiters. */
static void test_ga10x_two_limiters(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(128, 40, 0, 0);
    char buf[64];
    ga10x(&a, 6, 16);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 12);
    assert_int_equal(r.limiters, OCC_LIM_WARPS | OCC_LIM_REGISTERS);
    assert_true(r.occupancy_pct == 100.0);
    occ_limiter_string(r.limiters, buf, sizeof buf);
    assert_string_equal(buf, "warps, registers");
}

/* 8.9, 32 threads x 16 regs: 24 blocks per SM is the binding limit. */
static void test_ada_blocks(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(32, 16, 0, 0);
    ga10x(&a, 9, 24);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 24);
    assert_int_equal(r.limiters, OCC_LIM_BLOCKS);
    assert_true(r.occupancy_pct == 50.0);
}

/* Barriers: 9.0 has 2 x 32 barrier sets: 64 / 4 = 16 blocks; 12.0 has
 * 1 x 24: 24 / 4 = 6.  The header keeps the flags set before the barrier
 * limit (warps and blocks were tied at 32); `binding` has only barriers. */
static void test_barriers(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(64, 16, 0, 0);
    char buf[64];
    l.barriers = 4;
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 16);
    assert_int_equal(r.limit_barriers, 16);
    assert_int_equal(r.limiters, OCC_LIM_WARPS | OCC_LIM_BLOCKS | OCC_LIM_BARRIERS);
    assert_int_equal(r.binding, OCC_LIM_BARRIERS);
    occ_limiter_string(r.binding, buf, sizeof buf);
    assert_string_equal(buf, "barriers");

    ga10x(&a, 0, 24);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 6);
    assert_int_equal(r.binding, OCC_LIM_BARRIERS);
    assert_true(r.occupancy_pct == 25.0);

    /* one barrier (any __syncthreads kernel) never limits on 9.0: 64 > 32 */
    l.barriers = 1;
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.limit_barriers, 64);
    assert_int_equal(r.blocks_per_sm, 32);

    /* more than a block's 16 named barriers is not a kernel */
    l.barriers = 17;
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_int_equal(r.blocks_per_sm, 0);
    assert_string_equal(r.error, "too many barriers");
}

/* 96 threads x 255 regs: 255 x 32 = 8160 -> 8192 per warp; 16384/8192 = 2
 * warps per SMSP, 8 per SM / 3 warps = 2 blocks. */
static void test_96x255(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(96, 255, 0, 0);
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 2);
    assert_int_equal(r.limiters, OCC_LIM_REGISTERS);
    a100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 2);
}

/* 1024 x 65: 65 x 32 = 2080 -> 2304 per warp x 32 warps = 73728 > 65536. */
static void test_1024x65_fails(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(1024, 65, 0, 0);
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_int_equal(r.blocks_per_sm, 0);
    assert_int_equal(r.limit_registers, 0);
    assert_int_equal(r.limiters, OCC_LIM_REGISTERS);
    assert_string_equal(r.error, "registers per block exceeded");
    assert_non_null(strstr(r.detail, "73728"));
    /* 64 registers fit exactly: 2048 x 32 = 65536 */
    l.regs = 64;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 1);
}

/* Partial warps: 257 threads are 9 warps.  Warps: 64/9 = 7.  Registers at
 * 40: 1280 per warp, 12 per SMSP, 48 / 9 = 5.  Active 45 warps = 70.3125 %. */
static void test_partial_warps(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(257, 40, 0, 0);
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.warps_per_block, 9);
    assert_int_equal(r.limit_warps, 7);
    assert_int_equal(r.limit_registers, 5);
    assert_int_equal(r.blocks_per_sm, 5);
    assert_int_equal(r.active_warps, 45);
    assert_true(r.occupancy_pct > 70.3124 && r.occupancy_pct < 70.3126);
    /* one thread is still a whole warp */
    l = launch(1, 8, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.warps_per_block, 1);
    assert_int_equal(r.blocks_per_sm, 32);
    /* the per-block register check rounds 9 warps up to 12 (sub-partitions):
     * 9 x 7168 = 64512 fits, 12 x 7168 = 86016 does not (224 registers) */
    a.regs_per_sm = 131072; /* a hypothetical larger SM so only that check bites */
    l = launch(288, 224, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "registers per block exceeded");
    l = launch(256, 224, 0, 0); /* 8 warps x 7168 = 57344 */
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 2); /* 32768/7168 = 4 per SMSP x 4 / 8 */
}

/* Registers per thread: ptxas's maximum is 255, the header accepts 256 (the
 * allocation of a 255-register thread) and rejects 257. */
static void test_register_maximum(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l = launch(256, 256, 0, 0);
    h100(&a);
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 1); /* 8192 x 8 = 65536 */
    l.regs = 257;
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "too many registers per thread");
    assert_non_null(strstr(r.detail, "257"));
    l.regs = 0; /* an empty kernel: no register limit */
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.limit_registers, INT_MAX);
}

/* Invalid launches and their reasons. */
static void test_invalid_launches(void **s)
{
    (void)s;
    struct arch a;
    struct occ_result r;
    struct occ_launch l;
    h100(&a);

    l = launch(1025, 8, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_int_equal(r.blocks_per_sm, 0);
    assert_int_equal(r.limit_warps, 0);
    assert_string_equal(r.error, "too many threads per block");
    assert_non_null(strstr(r.detail, "1025"));

    /* 232449 + 1024 -> 233600 > 232448 + 1024 */
    l = launch(32, 8, 0, 232449);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "shared memory per block exceeded");
    l.smem_dynamic = 232448; /* exactly the opt-in maximum: one block */
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 1);

    /* dynamic above the kernel's attribute */
    l = launch(32, 8, 0, 60000);
    l.max_dynamic = 49152;
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "dynamic shared memory above the kernel's maximum");

    /* a kernel that never opted in: 48 KB + reserve is the ceiling */
    l = launch(32, 8, 0, 49152);
    l.smem_no_optin = 1;
    assert_int_equal(occ_compute(&a, &l, &r), 0);
    assert_int_equal(r.blocks_per_sm, 4); /* 233472 / 50176 */
    l.smem_dynamic = 49153;
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "shared memory per block exceeded");

    /* malformed inputs */
    l = launch(0, 8, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_non_null(r.error);
    l = launch(32, 8, 0, 0);
    l.carveout_pct = 101;
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_non_null(r.error);
    l = launch(32, -1, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_non_null(r.error);

    /* a config whose carveouts cannot hold the SM's shared memory */
    a.n_carveouts = 3; /* 0, 8, 16 KB */
    l = launch(32, 8, 0, 0);
    assert_int_equal(occ_compute(&a, &l, &r), -1);
    assert_string_equal(r.error, "no legal carveout");
}

static void test_limiter_string(void **s)
{
    (void)s;
    char buf[80];
    occ_limiter_string(0, buf, sizeof buf);
    assert_string_equal(buf, "none");
    occ_limiter_string(OCC_LIM_SHARED_MEM, buf, sizeof buf);
    assert_string_equal(buf, "shared memory");
    occ_limiter_string(0x1f, buf, sizeof buf);
    assert_string_equal(buf, "warps, registers, shared memory, blocks, barriers");
    occ_limiter_string(0x1f, buf, 10); /* truncates, stays terminated */
    assert_true(strlen(buf) < 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_smem_17),
        cmocka_unit_test(test_a100_registers),
        cmocka_unit_test(test_a100_smem_and_carveout),
        cmocka_unit_test(test_turing_carveout),
        cmocka_unit_test(test_ga10x_two_limiters),
        cmocka_unit_test(test_ada_blocks),
        cmocka_unit_test(test_barriers),
        cmocka_unit_test(test_96x255),
        cmocka_unit_test(test_1024x65_fails),
        cmocka_unit_test(test_partial_warps),
        cmocka_unit_test(test_register_maximum),
        cmocka_unit_test(test_invalid_launches),
        cmocka_unit_test(test_limiter_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
