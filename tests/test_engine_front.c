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
 * (4 ways), fills 10 cycles from the port taking the line, the port busy 4
 * per line, L2 20 more, DRAM 50 more. */
static void icache_arch(struct arch *a)
{
    tu_arch(a, 1);
    a->icache_l0_bytes = 256;
    a->icache_l1_bytes = 1024;
    a->icache_l1_latency = 10;
    a->icache_fill_cycles = 4;
    a->icache_l2_latency = 20;
    a->icache_dram_latency = 50;
}

/* One warp, 32 instructions (lines 0..3) run twice.  Line 0 came with the
 * warp's start, which asks for line 1 at 0: never on the SM, in the L1 at
 * 50, the port takes it then (busy to 54), in the L0 at 60.  Trip 1: 0..7,
 * line 1 at 60 (which asks for line 2: 110 -> 120), 60..67, line 2 at 120
 * (line 3: 180), 120..127, line 3 at 180, 180..187; line 3 asks for line 4
 * (past the code: the port is busy 230..234, the L0 entry of line 0 and 2
 * gets it).  Trip 2: line 0 is in the L1 but no longer in the L0 (2 lines,
 * direct-mapped): asked at 188, the port is free at 234: in at 244;
 * 244..251 (line 1 asked at 244: 254), 254..261 (line 2: 264), 264..271
 * (line 3: 274), 274..281; EXIT (no address) at 282, the end 283.
 * no_instruction 52 + 52 + 52 + 56 + 2 + 2 + 2. */
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
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 3 * 52 + 56 + 3 * 2);
    assert_int_equal(st.cycles_elapsed, 283);
    stats_kernel_free(&st);

    /* the same trace without the caches: one instruction per cycle */
    a.icache_l0_bytes = 0;
    run_ok(&a, &t, &st);
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 0);
    assert_int_equal(st.cycles_elapsed, 65);
    stats_kernel_free(&st);
}

/* Two warps on one SMSP (one sub-partition), 16 instructions (lines 0
 * and 1).  At their start both ask for line 1: warp 0's request misses the
 * L1 (in it at 50; port 50..54; in warp 0's L0 at 60); warp 1's own L0
 * lacks it too (warps do not share an L0): the L1 has it at 50, the port
 * is free at 54: in at 64.  GTO: warp 0 issues 0..7 at 0..7, waits for
 * line 1 until 60 (asking for line 2 then: port 110..114), issues 60..67
 * and EXITs at 68; warp 1 issues 8..15, waits for line 1 until 64 (its
 * line 2 request waits for the port until 114), is not selected 64..68,
 * issues 69..76 and EXITs at 77; the end is 78.  no_instruction
 * (60 - 8) + (64 - 16); not_selected 8 + 5. */
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
    assert_int_equal(st.smsp[0].state[WS_NO_INSTRUCTION], 52 + 48);
    assert_int_equal(st.smsp[0].state[WS_NOT_SELECTED], 8 + 5);
    assert_int_equal(st.cycles_elapsed, 78);
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
