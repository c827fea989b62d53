/* test_engine_front.c — the front end's caches (eng_fetch.h, docs/model.md
 * "Front end"): a warp's own L0 instruction cache, the SM's L1 behind it
 * and the SMSP's fill port (no_instruction), and the SM's constant caches
 * (imc_miss).  Every expectation is computed by hand from those rules.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"

static void run_ok(const struct arch *a, struct tu_kernel *t, struct stats_kernel *st)
{
    struct engine_opts o;
    tu_opts(&o);
    char err[512];
    if (engine_run(a, &t->k, &o, st, err) != 0)
        fail_msg("engine_run: %s", err);
}

/* n independent ALU instructions at byte addresses 0, 16, 32, ... (8 per
 * 128-byte line): one issues per cycle when its line is there. */
static void straight(struct tr_inst *body, int n)
{
    for (int i = 0; i < n; i++) {
        body[i] = tu_alu(PIPE_ALU, 10 + i % 32, -1, -1, -1);
        body[i].has_pc = 1;
        body[i].pc = (uint32_t)(16 * i);
    }
}

/* Instruction caches of the tests: a warp's L0 of 2 lines, an L1 of 8
 * (4 ways), fills of 10 cycles, L2 20 more, DRAM 50 more. */
static void icache_arch(struct arch *a)
{
    tu_arch(a, 1);
    a->icache_l0_bytes = 256;
    a->icache_l1_bytes = 1024;
    a->icache_l1_latency = 10;
    a->icache_l2_latency = 20;
    a->icache_dram_latency = 50;
}

/* One warp, 32 instructions (lines 0..3) run twice.  Trip 1: line 0 came
 * with the warp's start; lines 1, 2, 3 miss L0 and L1 and were never on
 * the SM: each waits 50 + 10 after the cycle it would have issued, so the
 * trip's lines issue at 0..7, 68..75, 136..143, 204..211.  Trip 2: the
 * L0 (2 lines, direct-mapped) has lost every line, the L1 holds all four:
 * 10 cycles each: 222..229, 240..247, 258..265, 276..283; EXIT (no
 * address) at 284, the end at 285.  no_instruction 3 x 60 + 4 x 10. */
static void l0_misses_one_warp(void **state)
{
    (void)state;
    struct arch a;
    icache_arch(&a);
    struct tr_inst body[32];
    straight(body, 32);
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 32, 2);
    struct stats_kernel st;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].inst_issued, 65);
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 3 * 60 + 4 * 10);
    assert_int_equal(st.cycles_elapsed, 285);
    stats_kernel_free(&st);

    /* the same trace without the caches: one instruction per cycle */
    a.icache_l0_bytes = 0;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 0);
    assert_int_equal(st.cycles_elapsed, 65);
    stats_kernel_free(&st);
}

/* Two warps on one SMSP (one sub-partition), 16 instructions (lines 0
 * and 1).  GTO: warp 0 issues 0..7 at 0..7, then waits for line 1 (L1
 * miss, first on the SM: in the L1 at 8 + 50 = 58, through the port by
 * 68).  Warp 1 issues its line 0 at 8..15; its own L0 lacks line 1 too
 * (warps do not share an L0); the L1 has it at 58, but the port is busy
 * with warp 0's fill until 68: warp 1's fill ends at 78.  Warp 0 issues
 * 68..75 and EXITs at 76; warp 1 issues 78..85 and EXITs at 86; the end is
 * 87.  no_instruction (68 - 8) + (78 - 16). */
static void second_warp_same_smsp(void **state)
{
    (void)state;
    struct arch a;
    icache_arch(&a);
    a.subpartitions = 1;
    struct tr_inst body[16];
    straight(body, 16);
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 64, body, 16, 1);
    struct stats_kernel st;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].inst_issued, 34);
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 60 + 62);
    assert_int_equal(st.smsp[0].state[WS_NOT_SELECTED], 8);
    assert_int_equal(st.cycles_elapsed, 87);
    stats_kernel_free(&st);
}

/* Constants: three instructions reading c[3][0x0], c[3][0x4] (the same
 * 64-byte line) and c[3][0x40] (the next 64-byte line, the same 256-byte
 * line), run twice; an L0 of 4 lines, a second level of 4, a miss served by
 * the second level 50 cycles, L2 200 more, DRAM 300 more.  Trip 1: the
 * first misses both levels, first read on the SM: in at 300 + 50 = 350,
 * issues at 350; the second hits, 351; the third misses L0 only: 352 + 50,
 * issues at 402.  Trip 2 hits: 403, 404, 405; EXIT 406, the end 407.
 * imc_miss 350 + 50. */
static void constant_miss_then_hit(void **state)
{
    (void)state;
    struct arch a;
    tu_arch(&a, 1);
    a.const_l0_bytes = 256;
    a.const_l0_latency = 50;
    a.const_l1_bytes = 1024;
    a.const_l2_latency = 200;
    a.const_dram_latency = 300;
    struct tr_inst body[3];
    static const uint16_t off[3] = {0x0, 0x4, 0x40};
    for (int i = 0; i < 3; i++) {
        body[i] = tu_alu(PIPE_ALU, -1, -1, -1, -1); /* (no register: no dependency) */
        body[i].has_c = 1;
        body[i].cbank = 3;
        body[i].coff = off[i];
    }
    struct tu_kernel t;
    tu_kernel_init(&t, 1, 32, body, 3, 2);
    struct stats_kernel st;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].state[WS_IMC_MISS], 350 + 50);
    assert_int_equal(st.cycles_elapsed, 407);
    stats_kernel_free(&st);

    /* the same trace without the constant caches */
    a.const_l0_bytes = 0;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].state[WS_IMC_MISS], 0);
    assert_int_equal(st.cycles_elapsed, 7);
    stats_kernel_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(l0_misses_one_warp),
        cmocka_unit_test(second_warp_same_smsp),
        cmocka_unit_test(constant_miss_then_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
