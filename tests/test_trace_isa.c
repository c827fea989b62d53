/* test_trace_isa.c — the SASS opcode table.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "arch/arch.h"
#include "trace/trace_isa.h"

static void test_sorted_unique(void **state)
{
    (void)state;
    int n = tr_isa_count();
    assert_true(n > 150);
    for (int i = 1; i < n; i++)
        if (strcmp(tr_isa_name(i - 1), tr_isa_name(i)) >= 0)
            fail_msg("table out of order at %s / %s", tr_isa_name(i - 1), tr_isa_name(i));
    assert_null(tr_isa_name(n));
    /* every row is found by its own name */
    for (int i = 0; i < n; i++) {
        struct tr_inst in;
        struct tr_isa_info info;
        assert_int_equal(tr_isa_decode(tr_isa_name(i), &in, &info), 1);
    }
}

struct row {
    const char *op; int kind, pipe, space, dep, width, regs, ndst;
};

static void test_decode(void **state)
{
    (void)state;
    static const struct row r[] = {
        {"FFMA", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"FFMA.FTZ.RN", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"HFMA2.MMA", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"IMAD", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 2},
        {"IMAD.WIDE", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 2},
        {"IMAD.WIDE.U32", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 2},
        {"IMAD.HI.U32", TR_K_ALU, PIPE_FMA, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 2},
        {"IADD3.X", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 3},
        {"FSETP.GT.AND", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 2},
        {"FMNMX", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"SHF.L.U64.HI", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"UIADD3", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 3},
        {"ULDC.64", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"S2R", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_SHORT, 0, 1, 1},
        {"CS2R", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"CS2R.32", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"DFMA.RM", TR_K_ALU, PIPE_FP64, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"DSETP.GT.AND", TR_K_ALU, PIPE_FP64, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 2},
        {"MUFU.EX2", TR_K_ALU, PIPE_MUFU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"MUFU.RCP64H", TR_K_ALU, PIPE_MUFU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"F2I.S64.F64", TR_K_ALU, PIPE_MUFU, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"I2F.F32.S64", TR_K_ALU, PIPE_MUFU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"CGAERRBAR", TR_K_MEMBAR, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"UCGABAR_ARV", TR_K_NOP, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"F2FP.BF16.F32.PACK_AB", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 1},
        {"HMMA.16816.F32.BF16", TR_K_ALU, PIPE_TENSOR, TR_SP_NONE, TR_DEP_PIPE, 0, 4, 1},
        {"HMMA.1688.F16", TR_K_ALU, PIPE_TENSOR, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"DMMA.884", TR_K_ALU, PIPE_TENSOR, TR_SP_NONE, TR_DEP_PIPE, 0, 2, 1},
        {"LDG.E.128.SYS", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 16, 4, 1},
        {"LDG.E.LTC128B", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 4, 1, 1},
        {"LDG.E.64.CONSTANT", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 8, 2, 1},
        {"LDG.E.U16", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 2, 1, 1},
        {"STG.E.128", TR_K_STORE, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 16, 4, 0},
        {"LDL.64", TR_K_LOAD, PIPE_LSU, TR_SP_LOCAL, TR_DEP_LONG, 8, 2, 1},
        {"STL", TR_K_STORE, PIPE_LSU, TR_SP_LOCAL, TR_DEP_LONG, 4, 1, 0},
        {"LDS.U.128", TR_K_LOAD, PIPE_LSU, TR_SP_SHARED, TR_DEP_SHORT, 16, 4, 1},
        {"STS.64", TR_K_STORE, PIPE_LSU, TR_SP_SHARED, TR_DEP_SHORT, 8, 2, 0},
        {"LDSM.16.M88.4", TR_K_LOAD, PIPE_LSU, TR_SP_SHARED, TR_DEP_SHORT, 16, 4, 1},
        {"LDSM.16.MT88.2", TR_K_LOAD, PIPE_LSU, TR_SP_SHARED, TR_DEP_SHORT, 8, 2, 1},
        {"LDC.64", TR_K_LOAD, PIPE_LSU, TR_SP_CONST, TR_DEP_SHORT, 8, 2, 1},
        {"LD.E", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 4, 1, 1},
        {"ATOMG.E.ADD.STRONG.GPU", TR_K_ATOMIC, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 4, 1, 2},
        {"ATOMS.POPC.INC.32", TR_K_ATOMIC, PIPE_LSU, TR_SP_SHARED, TR_DEP_SHORT, 4, 1, 2},
        {"RED.E.ADD.F32.FTZ.RN", TR_K_ATOMIC, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 4, 1, 0},
        {"TEX.SCR.LL", TR_K_LOAD, PIPE_LSU, TR_SP_TEX, TR_DEP_LONG, 4, 1, 1},
        {"SUST.D.BA.2D", TR_K_STORE, PIPE_LSU, TR_SP_TEX, TR_DEP_LONG, 4, 1, 0},
        {"LDGSTS.E.BYPASS.128", TR_K_LOAD, PIPE_LSU, TR_SP_GLOBAL, TR_DEP_LONG, 16, 4, 0},
        {"SHFL.BFLY", TR_K_ALU, PIPE_LSU, TR_SP_NONE, TR_DEP_SHORT, 0, 1, 2},
        {"BAR.SYNC.DEFER_BLOCKING", TR_K_BARRIER, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"BAR.ARV", TR_K_BARRIER, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"MEMBAR.SC.GPU", TR_K_MEMBAR, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"DEPBAR.LE", TR_K_MEMBAR, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"BRA.U", TR_K_BRANCH, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"BSSY", TR_K_NOP, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"EXIT", TR_K_EXIT, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"NOP", TR_K_NOP, PIPE_CBU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 0},
        {"VOTE.ANY", TR_K_ALU, PIPE_ALU, TR_SP_NONE, TR_DEP_PIPE, 0, 1, 2},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        struct tr_inst in;
        struct tr_isa_info info;
        if (tr_isa_decode(r[i].op, &in, &info) != 1)
            fail_msg("%s not known", r[i].op);
        if (in.kind != r[i].kind || in.pipe != r[i].pipe || in.space != r[i].space ||
            in.dep != r[i].dep || in.width != r[i].width || info.dst_regs != r[i].regs ||
            info.ndst_ops != r[i].ndst)
            fail_msg("%s: kind %d pipe %d space %d dep %d width %d regs %d ndst %d", r[i].op,
                     in.kind, in.pipe, in.space, in.dep, in.width, info.dst_regs, info.ndst_ops);
        assert_int_equal(info.is_memory, r[i].space != TR_SP_NONE);
        assert_string_equal(in.opcode, r[i].op);
        assert_int_equal(in.latency, -1);
        assert_int_equal(in.conflict, 1);
        assert_int_equal(in.active, 0xffffffffu);
        assert_int_equal(in.ndst, 0);
        assert_int_equal(in.nsrc, 0);
    }
}

/* Which FMA datapath (kit8 misl1p, ncu's per-pipe counts): IMAD.WIDE holds
 * FMA-heavy twice, IMAD and VIADD run there alone, FFMA on either, HFMA2 on
 * both; IADD3 is not on the fma pipe. */
static void test_fma_path(void **state)
{
    (void)state;
    static const struct { const char *op; int pipe, path; } r[] = {
        {"IMAD.WIDE.U32", PIPE_FMA, TR_FMA_WIDE}, {"IMAD.WIDE", PIPE_FMA, TR_FMA_WIDE},
        {"IMAD", PIPE_FMA, TR_FMA_HEAVY},         {"IMAD.MOV.U32", PIPE_FMA, TR_FMA_HEAVY},
        {"VIADD", PIPE_FMA, TR_FMA_HEAVY},        {"FFMA", PIPE_FMA, TR_FMA_ANY},
        {"HFMA2", PIPE_FMA, TR_FMA_BOTH},         {"IADD3", PIPE_ALU, TR_FMA_ANY},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        struct tr_inst in;
        struct tr_isa_info info;
        memset(&in, 0, sizeof in);
        assert_int_equal(tr_isa_decode(r[i].op, &in, &info), 1);
        if (in.pipe != r[i].pipe || in.fma_path != r[i].path)
            fail_msg("%s: pipe %d path %d", r[i].op, in.pipe, in.fma_path);
    }
}

static void test_unknown(void **state)
{
    (void)state;
    struct tr_inst in;
    struct tr_isa_info info;
    assert_int_equal(tr_isa_decode("FFMAX.FTZ", &in, &info), 0);
    assert_int_equal(info.known, 0);
    assert_int_equal(in.kind, TR_K_ALU);
    assert_int_equal(in.pipe, PIPE_ALU);
    assert_int_equal(in.space, TR_SP_NONE);
    assert_int_equal(info.dst_regs, 1);
    /* prefixes and extensions of real names are not matches */
    assert_int_equal(tr_isa_decode("FFM", &in, &info), 0);
    assert_int_equal(tr_isa_decode("LDGX", &in, &info), 0);
    assert_int_equal(tr_isa_decode("", &in, &info), 0);
    /* long opcodes are truncated for display only */
    assert_int_equal(tr_isa_decode("LDGSTS.E.BYPASS.LTC128B.128.ZFILL", &in, &info), 1);
    assert_int_equal(strlen(in.opcode), sizeof in.opcode - 1);
    assert_int_equal(in.width, 16);
    assert_int_equal(tr_isa_base_len("LDG.E.128"), 3);
    assert_int_equal(tr_isa_base_len("EXIT"), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_unique),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_fma_path),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
