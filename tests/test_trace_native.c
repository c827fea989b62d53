/* test_trace_native.c — the native trace reader: sample traces, hand-computed
 * dynamic counts, register/attribute decoding, includes, every error message,
 * streaming memory behaviour.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>
#include "arch/arch.h"
#include "trace/trace.h"
#include "trace/trace_native.h"

#define D "tests/data/trace/"

static struct trace_file *open_ok(const char *path)
{
    char err[TRACE_ERR_MAX] = "";
    struct trace_file *t = trace_open(path, err);
    if (!t)
        fail_msg("%s: unexpected error: %s", path, err);
    return t;
}

/* Walk the stream of (block, warp); return the count, check it ends with EXIT. */
static uint64_t walk(struct trace_kernel *k, uint32_t b, uint32_t w)
{
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, b, w, &c), 0);
    const struct tr_inst *in, *last = NULL;
    uint64_t n = 0;
    struct tr_dyn dyn;
    while ((in = k->ops->warp_next(k, &c, &dyn))) {
        assert_int_equal(dyn.active_mask, in->active);
        last = in;
        n++;
    }
    assert_non_null(last);
    assert_int_equal(last->kind, TR_K_EXIT);
    assert_null(k->ops->warp_next(k, &c, NULL)); /* stays ended */
    assert_int_equal(c.seq, n);
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    return n;
}

static uint64_t sum_all(struct trace_kernel *k)
{
    uint64_t blocks = tr_grid_blocks(&k->launch), s = 0;
    uint32_t warps = tr_warps_per_block(&k->launch);
    for (uint64_t b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < warps; w++)
            s += tr_warp_insts(k, (uint32_t)b, w);
    return s;
}

/* Must run first: ru_maxrss is a high-water mark. */
static void test_streaming(void **state)
{
    (void)state;
    char path[] = "/tmp/smsim_trace_stream_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    /* 200,000 lines: 190,000 comment lines of 200 bytes (38 MB) around a kernel
     * of 10,000 static instructions inside one loop. */
    char pad[201];
    memset(pad, 'x', 200);
    pad[0] = '#';
    pad[200] = '\0';
    fprintf(f, "kernel big grid=(1000,1,1) block=(64,1,1) regs=32 {\n  loop 1000 {\n");
    for (int i = 0; i < 9999; i++) {
        for (int j = 0; j < 19; j++)
            fprintf(f, "%s\n", pad);
        fprintf(f, "    FFMA R%d, R%d, R1, R2\n", i % 200, i % 200);
    }
    fprintf(f, "  }\n  EXIT\n}\n");
    fclose(f);

    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    struct trace_file *t = open_ok(path);
    getrusage(RUSAGE_SELF, &r1);
    unlink(path);
    assert_int_equal(t->nkernels, 1);
    struct tr_native_stats st;
    assert_int_equal(tr_native_stats(t->kernels[0], &st), 0);
    /* 9,999 FFMA lines of 200 distinct instructions (R0..R199), interned,
     * and the EXIT */
    assert_int_equal(st.insts, 201);
    assert_int_equal(st.ops, 10000 + 2);               /* + loop begin/end  */
    /* Memory is proportional to static instructions, not to the file or the
     * dynamic count (about 10^7 per warp here). */
    assert_true(st.bytes <= (size_t)st.ops * 16 + (size_t)st.insts * sizeof(struct tr_inst));
    assert_int_equal(tr_warp_insts(t->kernels[0], 999, 1), 9999ull * 1000 + 1);
    assert_int_equal(t->kernels[0]->warp_insts_hint, (9999ull * 1000 + 1) * 2 * 1000);
    /* Reading the whole file into memory would raise the peak by 38 MB; the
     * program needs about 10,000 x (96 + 16) bytes = 1.1 MB. */
    long grown_kb = r1.ru_maxrss - r0.ru_maxrss;
    if (grown_kb >= 16 * 1024)
        fail_msg("parsing raised peak memory by %ld KB", grown_kb);
    trace_close(t);
}

struct sample {
    const char *file;       /* under traces/            */
    int nkernels;           /* kernels in the file      */
    uint64_t total[2];      /* warp-instructions each   */
    int dynamic[2];         /* hint expected to be 0    */
};

static void test_samples(void **state)
{
    (void)state;
    static const struct sample s[] = {
        {"vecadd.trace", 1, {10485760}, {0}},
        {"copy_float4.trace", 1, {14902272}, {0}},
        {"ffma_ilp1.trace", 1, {20575104}, {0}},
        {"ffma_ilp4.trace", 1, {20587776}, {0}},
        {"load_chain.trace", 1, {7645440}, {0}},
        {"smem_tile.trace", 1, {12902400}, {0}},
        {"seeds_32x12k.trace", 1, {3538944}, {0}},
        {"gemm_tile.trace", 1, {18173952}, {0}},
        {"spmv_ragged.trace", 1, {5427060}, {1}},
        {"two_kernels.trace", 2, {10485760, 1880064}, {0, 1}},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "traces/%s", s[i].file);
        struct trace_file *t = open_ok(path);
        assert_int_equal(t->nkernels, s[i].nkernels);
        for (int k = 0; k < t->nkernels; k++) {
            struct trace_kernel *kk = t->kernels[k];
            uint64_t total = sum_all(kk);
            if (total != s[i].total[k])
                fail_msg("%s kernel %d: %llu warp-instructions, expected %llu", path, k,
                         (unsigned long long)total, (unsigned long long)s[i].total[k]);
            assert_int_equal(kk->warp_insts_hint, s[i].dynamic[k] ? 0 : total);
            /* the stream agrees with the count (first and last warp) */
            uint32_t lb = (uint32_t)tr_grid_blocks(&kk->launch) - 1;
            uint32_t lw = tr_warps_per_block(&kk->launch) - 1;
            assert_int_equal(walk(kk, 0, 0), tr_warp_insts(kk, 0, 0));
            assert_int_equal(walk(kk, lb, lw), tr_warp_insts(kk, lb, lw));
            assert_true(total <= 50000000ull); /* keeps simulations short */
        }
        trace_close(t);
    }
}

static void test_sample_launches(void **state)
{
    (void)state;
    struct trace_file *t = open_ok("traces/seeds_32x12k.trace");
    const struct tr_launch *l = &t->kernels[0]->launch;
    assert_string_equal(l->name, "seeds_32x12k");
    assert_int_equal(l->block[0], 32);
    assert_int_equal(l->regs, 8);
    assert_int_equal(l->smem_static, 12288);
    assert_int_equal(l->smem_dynamic, 0);
    assert_int_equal(l->barriers, 1); /* BAR.SYNC in the body */
    assert_int_equal(tr_warps_per_block(l), 1);
    trace_close(t);
    t = open_ok("traces/gemm_tile.trace");
    l = &t->kernels[0]->launch;
    assert_int_equal(l->regs, 168);
    assert_int_equal(l->grid[0], 16);
    assert_int_equal(l->grid[1], 16);
    assert_int_equal(tr_grid_blocks(l), 256);
    assert_int_equal(tr_warps_per_block(l), 8);
    trace_close(t);
}

/* Hand-computed counts for tests/data/trace/counts.trace (see its comments). */
static uint64_t counts_ref(uint32_t b, uint32_t w)
{
    uint32_t by = b / 3;
    uint64_t n = 1 + 18;
    n += (b % 2 == 1) ? 2 : (w == 2) ? 1 : 3;
    n += (uint64_t)(b + 1) * (w + 1);
    n += (by == 0 && w == 0) ? 2 : 0;
    if (b == 5 && w == 2)
        return n + 1; /* EXIT in the when */
    return n + 3;
}

static void test_counts(void **state)
{
    (void)state;
    struct trace_file *t = open_ok(D "counts.trace");
    struct trace_kernel *k = t->kernels[0];
    assert_int_equal(tr_grid_blocks(&k->launch), 6);
    assert_int_equal(tr_warps_per_block(&k->launch), 3);
    assert_int_equal(k->launch.smem_static, 1024);
    /* explicit hand values */
    assert_int_equal(tr_warp_insts(k, 0, 0), 28);
    assert_int_equal(tr_warp_insts(k, 0, 2), 26);
    assert_int_equal(tr_warp_insts(k, 1, 1), 28);
    assert_int_equal(tr_warp_insts(k, 4, 0), 30);
    assert_int_equal(tr_warp_insts(k, 5, 1), 36);
    assert_int_equal(tr_warp_insts(k, 5, 2), 40);
    for (uint32_t b = 0; b < 6; b++)
        for (uint32_t w = 0; w < 3; w++) {
            assert_int_equal(tr_warp_insts(k, b, w), counts_ref(b, w));
            assert_int_equal(walk(k, b, w), counts_ref(b, w));
        }
    assert_int_equal(k->warp_insts_hint, 0); /* control depends on block/warp */
    assert_int_equal(tr_warp_insts(k, 6, 0), UINT64_MAX);
    assert_int_equal(tr_warp_insts(k, 0, 3), UINT64_MAX);
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, 6, 0, &c), -1);

    /* block 0 warp 0: the guarded EXIT is a no-op, the final one ends the warp */
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    const struct tr_inst *in, *prev = NULL, *prev2 = NULL;
    while ((in = k->ops->warp_next(k, &c, NULL))) {
        prev2 = prev;
        prev = in;
    }
    assert_string_equal(prev->opcode, "EXIT");
    assert_int_equal(prev->kind, TR_K_EXIT);
    assert_string_equal(prev2->opcode, "LDG.E.64");
    /* the stream of block 5 warp 2 ends at the EXIT inside the when */
    assert_int_equal(k->ops->warp_begin(k, 5, 2, &c), 0);
    while ((in = k->ops->warp_next(k, &c, NULL)))
        prev = in;
    assert_int_equal(prev->kind, TR_K_EXIT);
    assert_int_equal(prev->line, 31);
    trace_close(t);
}

static void test_hint_static(void **state)
{
    (void)state;
    struct trace_file *t = open_ok(D "include_ok.trace");
    assert_int_equal(t->nkernels, 3);
    assert_string_equal(t->kernels[0]->launch.name, "first");
    assert_string_equal(t->kernels[1]->launch.name, "sub_good");
    assert_string_equal(t->kernels[2]->launch.name, "last");
    assert_int_equal(t->kernels[0]->warp_insts_hint, 1);
    assert_int_equal(t->kernels[1]->warp_insts_hint, 2 * 2 * 2); /* 2 blocks x 2 warps x 2 */
    assert_int_equal(t->kernels[2]->warp_insts_hint, 2);
    assert_int_equal(t->kernels[0]->launch.barriers, 0);
    trace_close(t);
}

static const struct tr_inst *nth(struct trace_kernel *k, struct tr_cursor *c, int n)
{
    const struct tr_inst *in = NULL;
    for (int i = 0; i < n; i++)
        in = k->ops->warp_next(k, c, NULL);
    assert_non_null(in);
    return in;
}

static void expect_regs(const uint16_t *got, int ngot, const int *exp, int nexp)
{
    assert_int_equal(ngot, nexp);
    for (int i = 0; i < nexp; i++)
        assert_int_equal(got[i], exp[i]);
}

#define DST(in, ...) do { const int e_[] = {__VA_ARGS__}; \
    expect_regs((in)->dst, (in)->ndst, e_, (int)(sizeof e_ / sizeof e_[0])); } while (0)
#define SRC(in, ...) do { const int e_[] = {__VA_ARGS__}; \
    expect_regs((in)->src, (in)->nsrc, e_, (int)(sizeof e_ / sizeof e_[0])); } while (0)

static void test_registers_attributes(void **state)
{
    (void)state;
    struct trace_file *t = open_ok(D "regs.trace");
    struct trace_kernel *k = t->kernels[0];
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    const struct tr_inst *in;
    enum { UR = TR_REG_UR, P = TR_REG_P };

    in = nth(k, &c, 1); /* IMAD.WIDE R4, R0, 0x4, R2 */
    DST(in, 4, 5); SRC(in, 0, 2);
    assert_int_equal(in->pipe, PIPE_FMA);
    assert_int_equal(in->kind, TR_K_ALU);
    assert_int_equal(in->line, 3);

    in = nth(k, &c, 1); /* LDG.E.128 R8, desc[UR4][R4.64+0x10] strided 128, 4M */
    DST(in, 8, 9, 10, 11); SRC(in, UR + 4, 4);
    assert_int_equal(in->kind, TR_K_LOAD);
    assert_int_equal(in->space, TR_SP_GLOBAL);
    assert_int_equal(in->width, 16);
    assert_int_equal(in->pattern, TR_PAT_STRIDED);
    assert_int_equal(in->stride, 128);
    assert_int_equal(in->footprint, 4u << 20);
    assert_int_equal(in->dep, TR_DEP_LONG);
    assert_int_equal(in->latency, -1);
    assert_int_equal(in->active, 0xffffffffu);
    assert_int_equal(in->conflict, 1);

    in = nth(k, &c, 1); /* LDG.E.64 R2, [R6.64] width=4 lat=300 mask=0xffff */
    DST(in, 2, 3); SRC(in, 6);
    assert_int_equal(in->width, 4);
    assert_int_equal(in->latency, 300);
    assert_int_equal(in->active, 0xffff);
    assert_int_equal(in->pattern, TR_PAT_COALESCED);
    assert_int_equal(in->footprint, 0);

    in = nth(k, &c, 1); /* FFMA RZ, R1, RZ, R3 */
    assert_int_equal(in->ndst, 0); SRC(in, 1, 3);

    in = nth(k, &c, 1); /* ISETP.GE.AND P0, PT, R5, UR6, PT */
    DST(in, P + 0); SRC(in, 5, UR + 6);
    assert_int_equal(in->pipe, PIPE_ALU);

    in = nth(k, &c, 1); /* IADD3 R14, P1, R14, 0x40, RZ */
    DST(in, 14, P + 1); SRC(in, 14);

    in = nth(k, &c, 1); /* @!P1 SHFL.BFLY PT, R20, R21.reuse, 0x1, 0x1f */
    DST(in, 20); SRC(in, P + 1, 21);
    assert_int_equal(in->pipe, PIPE_LSU);
    assert_int_equal(in->dep, TR_DEP_SHORT);

    in = nth(k, &c, 1); /* STS [R30+0x80], R31 conflict=4 pattern=broadcast */
    assert_int_equal(in->ndst, 0); SRC(in, 30, 31);
    assert_int_equal(in->kind, TR_K_STORE);
    assert_int_equal(in->space, TR_SP_SHARED);
    assert_int_equal(in->conflict, 4);
    assert_int_equal(in->pattern, TR_PAT_BROADCAST);
    assert_int_equal(in->dep, TR_DEP_SHORT);

    in = nth(k, &c, 1); /* STG.E.128 desc[UR4][R2.64], R8 random 1G */
    SRC(in, UR + 4, 2, 8);
    assert_int_equal(in->width, 16);
    assert_int_equal(in->pattern, TR_PAT_RANDOM);
    assert_int_equal(in->footprint, 1ull << 30);

    in = nth(k, &c, 1); /* LDS.U8 R40, [R41] */
    DST(in, 40); SRC(in, 41);
    assert_int_equal(in->width, 1);

    in = nth(k, &c, 1); /* MUFU.EX2 R42, -|R43| */
    DST(in, 42); SRC(in, 43);
    assert_int_equal(in->pipe, PIPE_MUFU);

    in = nth(k, &c, 1); /* HMMA.16816.F32 R44, R48, R52, R44 */
    DST(in, 44, 45, 46, 47); SRC(in, 48, 52, 44);
    assert_int_equal(in->pipe, PIPE_TENSOR);

    in = nth(k, &c, 1); /* DFMA R56, R58, R60, R56 */
    DST(in, 56, 57); SRC(in, 58, 60, 56);
    assert_int_equal(in->pipe, PIPE_FP64);

    in = nth(k, &c, 1); /* S2R R62, SR_LANEID ; */
    DST(in, 62); assert_int_equal(in->nsrc, 0);
    assert_int_equal(in->dep, TR_DEP_SHORT);

    in = nth(k, &c, 1); /* LOP3.LUT P2, R63, R1, 0x3, RZ, 0xc0, !PT */
    DST(in, P + 2, 63); SRC(in, 1);

    in = nth(k, &c, 1); /* BAR.SYNC.DEFER_BLOCKING 0x0 */
    assert_int_equal(in->kind, TR_K_BARRIER);
    assert_int_equal(in->nsrc, 0);

    in = nth(k, &c, 1); /* BRA `(.L_x_1) */
    assert_int_equal(in->kind, TR_K_BRANCH);
    assert_int_equal(in->nsrc, 0);

    in = nth(k, &c, 1); /* LDC.64 R64, c[0x0][0x210] */
    DST(in, 64, 65);
    assert_int_equal(in->space, TR_SP_CONST);
    assert_int_equal(in->pattern, TR_PAT_BROADCAST);
    assert_int_equal(in->width, 8);

    in = nth(k, &c, 1); /* F2F.F64.F32 R66, R1 */
    DST(in, 66, 67); SRC(in, 1);
    assert_int_equal(in->pipe, PIPE_MUFU);

    in = nth(k, &c, 1); /* ULDC.64 UR8, c[0x0][0x208] */
    DST(in, UR + 8, UR + 9);

    in = nth(k, &c, 1); /* @PT EXIT */
    assert_int_equal(in->kind, TR_K_EXIT);
    assert_int_equal(in->nsrc, 0);
    assert_null(k->ops->warp_next(k, &c, NULL));
    assert_int_equal(k->launch.barriers, 1);
    trace_close(t);
}

/* Control-bit attributes (docs/trace-format.md "Control bits"). */
static void test_control_bits(void **state)
{
    (void)state;
    struct trace_file *t = open_ok(D "ctl.trace");
    struct trace_kernel *k = t->kernels[0];
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    const struct tr_inst *in;

    in = nth(k, &c, 1); /* S2R: stall=7 wbar=0 */
    assert_int_equal(in->ctl, 1);
    assert_int_equal(in->stall, 7);
    assert_int_equal(in->yield, 0);
    assert_int_equal(in->wbar, 0);
    assert_int_equal(in->rbar, TR_SB_NONE);
    assert_int_equal(in->wait, 0);
    assert_int_equal(in->reuse, 0);
    assert_int_equal(in->depbar_sb, TR_SB_NONE);

    in = nth(k, &c, 1); /* LEA: stall=2 yield=1 wait=0x01 */
    assert_int_equal(in->stall, 2);
    assert_int_equal(in->yield, 1);
    assert_int_equal(in->wbar, TR_SB_NONE);
    assert_int_equal(in->wait, 0x01);

    in = nth(k, &c, 1); /* FFMA: reuse=0x3 */
    assert_int_equal(in->stall, 1);
    assert_int_equal(in->reuse, 0x3);
    /* the R registers of the source operand slots (register-file banks):
     * R4.reuse, R7.reuse, and the immediate 1 reads none */
    assert_int_equal(in->opr[0], 4);
    assert_int_equal(in->opr[1], 7);
    assert_int_equal(in->opr[2], TR_OPR_NONE);

    in = nth(k, &c, 1); /* LDG: memory attributes and control bits together */
    assert_int_equal(in->pattern, TR_PAT_RANDOM);
    assert_int_equal(in->footprint, 1u << 20);
    assert_int_equal(in->wbar, 5);
    assert_int_equal(in->rbar, 4);

    in = nth(k, &c, 1); /* DEPBAR.LE SB5, 0x2 */
    assert_int_equal(in->depbar_sb, 5);
    assert_int_equal(in->depbar_n, 2);
    assert_int_equal(in->stall, 3);
    assert_int_equal(in->wbar, TR_SB_NONE);
    assert_int_equal(in->rbar, TR_SB_NONE);

    in = nth(k, &c, 1); /* no attributes: no control bits */
    assert_int_equal(in->ctl, 0);
    assert_int_equal(in->opr[0], 4); /* FFMA R6, R4, R7, 1 */
    assert_int_equal(in->opr[1], 7);
    assert_int_equal(in->opr[2], TR_OPR_NONE);
    assert_int_equal(in->wbar, TR_SB_NONE);
    assert_int_equal(in->rbar, TR_SB_NONE);
    assert_int_equal(in->depbar_sb, TR_SB_NONE);

    in = nth(k, &c, 1); /* MUFU.EX2 R42, -|R43|: the modifiers are skipped */
    assert_int_equal(in->opr[0], 43);
    assert_int_equal(in->opr[1], TR_OPR_NONE);
    in = nth(k, &c, 1); /* FFMA RZ, R1, RZ, -R3: RZ reads no port */
    assert_int_equal(in->opr[0], 1);
    assert_int_equal(in->opr[1], TR_OPR_NONE);
    assert_int_equal(in->opr[2], 3);
    trace_close(t);
}

struct errcase {
    const char *name; /* fixture tests/data/trace/NAME.trace */
    const char *msg;  /* "line:col: message" after the path  */
};

static const struct errcase errs[] = {
#include "data/trace/errors.inc"
};

static void expect_error(const char *path, const char *want)
{
    char err[TRACE_ERR_MAX];
    memset(err, 0, sizeof err);
    struct trace_file *t = trace_open(path, err);
    if (t)
        fail_msg("%s: parsed, expected error %s", path, want);
    if (strcmp(err, want))
        fail_msg("%s:\n  got:  %s\n  want: %s", path, err, want);
    assert_null(strchr(err, '\n'));
}

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        char path[256], want[TRACE_ERR_MAX];
        snprintf(path, sizeof path, D "%s.trace", errs[i].name);
        snprintf(want, sizeof want, "%s:%s", path, errs[i].msg);
        expect_error(path, want);
    }
}

static void test_include_errors(void **state)
{
    (void)state;
    expect_error(D "cycle_a.trace",
                 D "cycle_b.trace:4:9: include cycle: \"cycle_a.trace\" is already being read");
    /* an error in an included file names that file */
    expect_error(D "inc_bad_inner.trace", D "sub/bad.trace:2:3: unknown opcode 'FOO'");
    expect_error(D "does_not_exist.trace",
                 D "does_not_exist.trace: cannot open: No such file or directory");
    /* Accel-Sim detection hook */
    expect_error(D "x.traceg", D "x.traceg:1:1: expected a '-key = value' header line or "
                               "the '#traces format' line, got 'x'");
}

static void test_include_depth(void **state)
{
    (void)state;
    /* 18 files each including the next: deeper than 16 */
    char dir[] = "/tmp/smsim_trace_inc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    for (int i = 0; i < 18; i++) {
        snprintf(path, sizeof path, "%s/f%d.trace", dir, i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "include \"f%d.trace\"\n", i + 1);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/f0.trace", dir);
    char err[TRACE_ERR_MAX], want[TRACE_ERR_MAX];
    assert_null(trace_open(path, err));
    snprintf(want, sizeof want, "%s/f16.trace:1:9: includes nested deeper than 16", dir);
    assert_string_equal(err, want);
    for (int i = 0; i < 18; i++) {
        snprintf(path, sizeof path, "%s/f%d.trace", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

static void test_helpers(void **state)
{
    (void)state;
    struct tr_launch l;
    memset(&l, 0, sizeof l);
    l.grid[0] = 7, l.grid[1] = 3, l.grid[2] = 2;
    l.block[0] = 33, l.block[1] = 1, l.block[2] = 1;
    assert_int_equal(tr_grid_blocks(&l), 42);
    assert_int_equal(tr_warps_per_block(&l), 2);
    l.block[0] = 16, l.block[1] = 16;
    assert_int_equal(tr_warps_per_block(&l), 8);
    l.block[0] = 1024, l.block[1] = 1;
    assert_int_equal(tr_warps_per_block(&l), 32);
}

int main(void)
{
    if (chdir(SMSIM_SOURCE_DIR)) {
        perror(SMSIM_SOURCE_DIR);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streaming),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_sample_launches),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_hint_static),
        cmocka_unit_test(test_registers_attributes),
        cmocka_unit_test(test_control_bits),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_include_errors),
        cmocka_unit_test(test_include_depth),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
