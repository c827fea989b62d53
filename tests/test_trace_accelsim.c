/* test_trace_accelsim.c — the Accel-Sim reader: versions 3 and 5 (lineinfo,
 * immediates), the three address modes, masks, every destination inference,
 * unknown opcodes, .xz through liblzma, out-of-order blocks, bounded
 * streaming memory, and one-line errors for malformed input.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <lzma.h>
#include <pthread.h>
#include "arch/arch.h"
#include "trace/trace.h"
#include "trace/trace_accelsim.h"

#define D "tests/data/accelsim/"

static char tmpdir[] = "/tmp/smsim_as_XXXXXX";

static const char *tpath(const char *name)
{
    static char buf[4][256]; /* test helper only: a few live paths at once */
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", tmpdir, name);
    return buf[i];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static struct trace_file *open_ok(const char *path)
{
    char err[TRACE_ERR_MAX] = "";
    struct trace_file *t = trace_open(path, err);
    if (!t)
        fail_msg("%s: unexpected error: %s", path, err);
    return t;
}

static const char HDR5[] =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
    "-shmem = 0\n-nregs = 32\n-binary version = 90\n-cuda stream id = 0\n"
    "-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0100000000\n"
    "-nvbit version = 1.7\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
    "#traces format = PC mask ...\n\n";

/* One kernel of one block of one warp holding `lines` (n of them), v5. */
static struct trace_file *one_warp(const char *name, const char *lines, int n, FILE *warn)
{
    char *text = malloc(strlen(HDR5) + strlen(lines) + 256);
    assert_non_null(text);
    sprintf(text, "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %d\n%s#END_TB\n",
            HDR5, n, lines);
    /* grid (2,1,1) block (64,1,1) in HDR5: make it one block of one warp */
    char *g = strstr(text, "(2,1,1)");
    memcpy(g, "(1,1,1)", 7);
    char *b = strstr(text, "(64,1,1)");
    memcpy(b, "(32,1,1)", 8);
    put(tpath(name), text);
    free(text);
    struct trace_file *t = calloc(1, sizeof *t);
    char err[TRACE_ERR_MAX] = "";
    if (trace_accelsim_open(tpath(name), warn, t, err))
        fail_msg("unexpected error: %s", err);
    return t;
}

/* The v3 and v5 sample kernels hold the same instructions. */
static void check_sample(struct trace_file *t, int version)
{
    assert_int_equal(t->nkernels, 1);
    struct trace_kernel *k = t->kernels[0];
    assert_string_equal(k->launch.name, "_Z6vecaddPKfS0_Pf");
    assert_int_equal(k->launch.grid[0], 2);
    assert_int_equal(k->launch.block[0], 64);
    assert_int_equal(k->launch.regs, 16);
    assert_int_equal(k->launch.barriers, 1);
    struct tr_accelsim_stats st;
    assert_int_equal(tr_accelsim_stats(k, &st), 0);
    assert_int_equal(st.version, version);
    assert_int_equal(st.binary_version, version == 3 ? 70 : 90);
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t w = 0; w < 2; w++) {
            struct tr_cursor c;
            struct tr_dyn d;
            assert_int_equal(tr_warp_insts(k, b, w), 12);
            assert_int_equal(k->ops->warp_begin(k, b, w, &c), 0);
            const struct tr_inst *in[12];
            uint32_t mask[12];
            uint64_t a[12][32];
            uint32_t na[12];
            for (int i = 0; i < 12; i++) {
                in[i] = k->ops->warp_next(k, &c, &d);
                assert_non_null(in[i]);
                mask[i] = d.active_mask;
                na[i] = d.naddr;
                for (uint32_t j = 0; j < d.naddr; j++)
                    a[i][j] = d.addr[j];
            }
            assert_null(k->ops->warp_next(k, &c, &d));
            k->ops->warp_end(k, &c);
            uint64_t gw = b * 2 + w;
            /* IMAD.MOV.U32 R1, RZ, RZ: RZ sources make no dependency */
            assert_int_equal(in[0]->ndst, 1);
            assert_int_equal(in[0]->dst[0], 1);
            assert_int_equal(in[0]->nsrc, 0);
            assert_int_equal(in[0]->pipe, PIPE_FMA);
            /* ISETP: its predicate destination is not in the format */
            assert_int_equal(in[4]->ndst, 0);
            /* mid-stream EXIT with mask 0: issues as a NOP, no lane left */
            assert_int_equal(mask[5], 0);
            assert_int_equal(in[5]->kind, TR_K_NOP);
            /* IMAD.WIDE R2 writes R2,R3 */
            assert_int_equal(in[6]->ndst, 2);
            assert_int_equal(in[6]->dst[1], 3);
            /* LDG.E.128 R4: R4..R7, mode 1 base+stride 16 */
            assert_int_equal(in[7]->kind, TR_K_LOAD);
            assert_int_equal(in[7]->ndst, 4);
            assert_int_equal(in[7]->dst[3], 7);
            assert_int_equal(in[7]->width, 16);
            assert_int_equal(in[7]->pattern, TR_PAT_ADDRESSES);
            assert_int_equal(na[7], 32);
            for (int j = 0; j < 32; j++)
                assert_int_equal(a[7][j], 0x7f2b6c000000ull + gw * 512 + 16u * (unsigned)j);
            /* LDG.E: mode 2, base and 31 deltas of 4 */
            assert_int_equal(na[8], 32);
            for (int j = 0; j < 32; j++)
                assert_int_equal(a[8][j], 0x7f2b6c100000ull + gw * 128 + 4u * (unsigned)j);
            /* FADD R9, R4, R8 */
            assert_int_equal(in[9]->nsrc, 2);
            assert_int_equal(in[9]->src[1], 8);
            /* STG: mode 0, one address per active lane; warp 1 has 16 lanes */
            assert_int_equal(in[10]->kind, TR_K_STORE);
            assert_int_equal(in[10]->ndst, 0);
            assert_int_equal(mask[10], w ? 0x0000ffffu : 0xffffffffu);
            assert_int_equal(na[10], w ? 16 : 32);
            assert_int_equal(a[10][na[10] - 1], 0x7f2b6c200000ull + gw * 128 + 4 * (na[10] - 1));
            /* the last EXIT ends the warp */
            assert_int_equal(in[11]->kind, TR_K_EXIT);
        }
    assert_int_equal(k->unknown_insts, 0);
}

static void test_samples(void **state)
{
    (void)state;
    struct trace_file *t = open_ok(D "v3/kernelslist.g");
    check_sample(t, 3);
    trace_close(t);
    t = open_ok(D "v5/kernel-1.traceg");
    check_sample(t, 5);
    trace_close(t);
    t = open_ok(D "v5/kernelslist.g");
    check_sample(t, 5);
    trace_close(t);
}

/* xz-compress src into dst with liblzma. */
static void xz_file(const char *src, const char *dst)
{
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    static uint8_t in[1 << 20], out[1 << 20];
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    size_t on = 0;
    assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, in, n, out, &on,
                                             sizeof out), LZMA_OK);
    f = fopen(dst, "wb");
    assert_non_null(f);
    fwrite(out, 1, on, f);
    fclose(f);
}

static void test_xz_and_seek(void **state)
{
    (void)state;
    /* any name: xz is recognised by its magic bytes */
    xz_file(D "v5/kernel-1.traceg", tpath("kernel-1.traceg.xz"));
    struct trace_file *t = open_ok(tpath("kernel-1.traceg.xz"));
    check_sample(t, 5);
    trace_close(t);
    /* out of order: block 1 first, then block 0 (a seek back = restart) */
    t = open_ok(tpath("kernel-1.traceg.xz"));
    struct trace_kernel *k = t->kernels[0];
    struct tr_cursor c1, c0;
    assert_int_equal(k->ops->warp_begin(k, 1, 0, &c1), 0);
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c0), 0);
    /* block 0 was passed over on the way to block 1 and remembered: no
     * second pass (the decoded text is read back from the temporary file) */
    struct tr_accelsim_stats st;
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.restarts, 0);
    assert_int_equal(st.blocks_loaded, 2);
    assert_int_equal(st.blocks_live, 2);
    assert_int_equal(st.sections_indexed, 0);
    /* both warps read correctly, out of order */
    struct tr_dyn d;
    int n0 = 0, n1 = 0;
    while (k->ops->warp_next(k, &c0, &d))
        n0++;
    while (k->ops->warp_next(k, &c1, &d))
        n1++;
    assert_int_equal(n0, 12);
    assert_int_equal(n1, 12);
    k->ops->warp_end(k, &c0);
    k->ops->warp_end(k, &c1);
    trace_close(t);
    /* a block passed, run and dropped is found again by a second pass from
     * the top (counted); the last released block is kept */
    t = open_ok(D "v5/kernel-1.traceg");
    k = t->kernels[0];
    assert_int_equal(k->ops->warp_begin(k, 1, 0, &c1), 0);
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.sections_indexed, 1); /* block 0, passed over */
    k->ops->warp_end(k, &c1);
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c0), 0);
    k->ops->warp_end(k, &c0);
    assert_int_equal(k->ops->warp_begin(k, 0, 1, &c0), 0); /* the cold block */
    k->ops->warp_end(k, &c0);
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.restarts, 0);
    assert_int_equal(k->ops->warp_begin(k, 1, 1, &c1), 0);
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.restarts, 1);
    assert_int_equal(st.blocks_loaded, 3);
    assert_int_equal(tr_warp_insts(k, 1, 1), 12);
    while (k->ops->warp_next(k, &c1, &d))
        n1++;
    assert_int_equal(n1, 24);
    k->ops->warp_end(k, &c1);
    trace_close(t);
}

/* Destination inference per opcode; unknown opcodes. */
static void test_inference(void **state)
{
    (void)state;
    static const struct {
        const char *line;   /* instruction line (v5, no lineinfo)      */
        int ndst;           /* destination registers inferred          */
        int first;          /* first destination                       */
        int pipe;           /* enum arch_pipe                          */
    } cases[] = {
        {"0000 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x1000 16 0", 4, 4, PIPE_LSU},
        {"0010 ffffffff 1 R6 LDG.E.64 1 R2 8 1 0x1000 8 0", 2, 6, PIPE_LSU},
        {"0020 ffffffff 1 R8 LDS.U.128 1 R2 16 1 0x0 16 0", 4, 8, PIPE_LSU},
        {"0030 ffffffff 1 R2 IMAD.WIDE.U32 2 R3 R4 0 0", 2, 2, PIPE_FMA},
        {"0040 ffffffff 1 R12 HMMA.16816.F32 2 R4 R8 0 0", 4, 12, PIPE_TENSOR},
        {"0050 ffffffff 1 R12 HMMA.16816.F16 2 R4 R8 0 0", 2, 12, PIPE_TENSOR},
        {"0060 ffffffff 1 R8 HMMA.884.F32.F32.STEP0 2 R4 R6 0 0", 2, 8, PIPE_TENSOR},
        {"0070 ffffffff 1 R8 HMMA.884.F16.F16.STEP1 2 R4 R6 0 0", 1, 8, PIPE_TENSOR},
        {"0080 ffffffff 1 R16 IMMA.8816.S32.S8.S8 2 R4 R6 0 0", 2, 16, PIPE_TENSOR},
        {"0090 ffffffff 1 R20 IMMA.16832.S32.S8.S8 2 R4 R6 0 0", 4, 20, PIPE_TENSOR},
        {"00a0 ffffffff 1 R2 DFMA 3 R4 R6 R8 0 0", 2, 2, PIPE_FP64},
        {"00b0 ffffffff 1 R2 F2F.F64.F32 1 R4 0 0", 2, 2, PIPE_MUFU},
        {"00c0 ffffffff 1 R2 F2F.F32.F64 1 R4 0 0", 1, 2, PIPE_MUFU},
        {"00c4 ffffffff 1 R7 I2F.U64 1 R8 0 0", 1, 7, PIPE_MUFU},           /* source type only */
        {"00c8 ffffffff 1 R2 I2F.F64.S64 1 R4 0 0", 2, 2, PIPE_MUFU},
        {"00cc ffffffff 1 R2 F2I.U64.TRUNC 1 R4 0 0", 2, 2, PIPE_MUFU},
        {"00ce ffffffff 1 R3 F2I.F64.TRUNC 1 R4 0 0", 1, 3, PIPE_MUFU},     /* source type only */
        {"00d8 ffffffff 1 R24 HGMMA.64x64x16.F32.BF16 1 R4 0 0", 4, 24, PIPE_TENSOR}, /* shape */
        {"00d0 ffffffff 1 R2 LDSM.16.M88.4 1 R4 16 1 0x0 16 0", 4, 2, PIPE_LSU},
        {"00e0 ffffffff 1 R254 LDG.E.64 1 R2 8 1 0x1000 8 0", 1, 254, PIPE_LSU}, /* clipped at R254 */
        {"00f0 ffffffff 1 R255 LDG.E 1 R2 4 1 0x1000 4 0", 0, -1, PIPE_LSU},     /* RZ: discarded */
        {"0100 ffffffff 1 R5 FOOBAR.X 1 R4 0 0", 1, 5, PIPE_ALU},                /* unknown ALU */
        {"0110 ffffffff 1 R6 FOOBAR.Y 1 R4 0 0", 1, 6, PIPE_ALU},                /* same base */
        {"0120 ffffffff 1 R7 NEWLD.E 1 R4 4 1 0x2000 4 0", 1, 7, PIPE_LSU},      /* unknown load */
    };
    enum { N = sizeof cases / sizeof cases[0] };
    char lines[8192] = "";
    for (int i = 0; i < N; i++) {
        strcat(lines, cases[i].line);
        strcat(lines, "\n");
    }
    FILE *warn = tmpfile();
    assert_non_null(warn);
    struct trace_file *t = one_warp("infer.traceg", lines, N, warn);
    struct trace_kernel *k = t->kernels[0];
    struct tr_cursor c;
    struct tr_dyn d;
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    for (int i = 0; i < N; i++) {
        const struct tr_inst *in = k->ops->warp_next(k, &c, &d);
        assert_non_null(in);
        if (in->ndst != cases[i].ndst || in->pipe != cases[i].pipe)
            fail_msg("%s: ndst %d pipe %d", cases[i].line, in->ndst, in->pipe);
        for (int j = 0; j < in->ndst; j++)
            assert_int_equal(in->dst[j], cases[i].first + j);
    }
    k->ops->warp_end(k, &c);
    /* the unknown load became a global load with its address */
    assert_int_equal(k->unknown_insts, 3);
    struct tr_accelsim_stats st;
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.unknown_opcodes, 2);
    /* one warning per base name */
    rewind(warn);
    char buf[4096] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, warn);
    buf[n] = '\0';
    fclose(warn);
    int nl = 0;
    for (char *p = buf; *p; p++)
        nl += *p == '\n';
    assert_int_equal(nl, 2);
    char want[512];
    snprintf(want, sizeof want, "%s:42:20: warning: unknown opcode 'FOOBAR'", tpath("infer.traceg"));
    if (!strstr(buf, want))
        fail_msg("warnings: %s (want %s)", buf, want);
    assert_non_null(strstr(buf, "'NEWLD' (not in the SASS table): modelled as a global load"));
    trace_close(t);
}

/* Lines of v4 with lineinfo, and address corner cases. */
static void test_v4_lineinfo_masks(void **state)
{
    (void)state;
    const char *text =
        "-kernel name = k4\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 48\n"
        "-nregs = 8\n-binary version = 86\n-accelsim tracer version = 4\n"
        "-enable lineinfo = 1\n-future key = whatever\n#traces\n"
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 5\n"
        "17 0000 00000000 1 R2 LDG.E 1 R4 4 1 0x0 0\n"        /* predicated off: no access */
        "17 0010 0000000f 1 R2 LDG.E 1 R4 4 1 0x100 -4\n"     /* negative stride */
        "18 0020 00000005 1 R3 LDG.E 1 R4 4 2 0x200 64\n"     /* lanes 0 and 2 */
        "19 0030 80000001 0 STG.E 2 R4 R3 4 0 0x300 0x0400\n" /* lanes 0 and 31 */
        "20 0040 ffffffff 0 EXIT 0 0\n"
        "#END_TB\n";
    put(tpath("v4.traceg"), text);
    struct trace_file *t = open_ok(tpath("v4.traceg"));
    struct trace_kernel *k = t->kernels[0];
    assert_int_equal(k->launch.smem_static, 48);
    struct tr_cursor c;
    struct tr_dyn d;
    assert_int_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    const struct tr_inst *in = k->ops->warp_next(k, &c, &d);
    assert_int_equal(d.active_mask, 0);
    assert_int_equal(d.naddr, 0);
    in = k->ops->warp_next(k, &c, &d);
    assert_int_equal(d.naddr, 4);
    assert_int_equal(d.addr[3], 0x100 - 12);
    in = k->ops->warp_next(k, &c, &d);
    assert_int_equal(d.naddr, 2);
    assert_int_equal(d.addr[1], 0x240);
    in = k->ops->warp_next(k, &c, &d);
    assert_int_equal(d.naddr, 2);
    assert_int_equal(d.addr[1], 0x400);
    in = k->ops->warp_next(k, &c, &d);
    assert_int_equal(in->kind, TR_K_EXIT);
    k->ops->warp_end(k, &c);
    trace_close(t);
}

/* Memory is bounded by resident blocks, not by the file. */
static size_t peak_for(int blocks, int resident)
{
    char name[64];
    snprintf(name, sizeof name, "big%d.traceg", blocks);
    FILE *f = fopen(tpath(name), "w");
    assert_non_null(f);
    fprintf(f, "-kernel name = big\n-grid dim = (%d,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n"
               "-nregs = 8\n-binary version = 80\n-accelsim tracer version = 3\n#\n", blocks);
    for (int b = 0; b < blocks; b++) {
        fprintf(f, "#BEGIN_TB\nthread block = %d,0,0\n", b);
        for (int w = 0; w < 2; w++) {
            fprintf(f, "warp = %d\ninsts = 400\n", w);
            for (int i = 0; i < 399; i++)
                fprintf(f, "%04x ffffffff 1 R4 LDG.E 1 R2 4 1 0x%x 4\n", i * 16, (b * 1000 + i) * 128);
            fprintf(f, "18f0 ffffffff 0 EXIT 0 0\n");
        }
        fprintf(f, "#END_TB\n");
    }
    fclose(f);
    struct trace_file *t = open_ok(tpath(name));
    struct trace_kernel *k = t->kernels[0];
    /* the engine's order: up to `resident` blocks at once, in block order */
    struct tr_cursor c[64][2];
    for (int b = 0; b < blocks + resident; b++) {
        if (b < blocks)
            for (uint32_t w = 0; w < 2; w++) {
                assert_int_equal(k->ops->warp_begin(k, (uint32_t)b, w, &c[b % 64][w]), 0);
                int n = 0;
                while (k->ops->warp_next(k, &c[b % 64][w], NULL))
                    n++;
                assert_int_equal(n, 400);
            }
        int e = b - resident + 1;
        if (e >= 0 && e < blocks)
            for (uint32_t w = 0; w < 2; w++)
                k->ops->warp_end(k, &c[e % 64][w]);
    }
    struct tr_accelsim_stats st;
    tr_accelsim_stats(k, &st);
    assert_int_equal(st.blocks_loaded, (uint64_t)blocks);
    assert_int_equal(st.statics, 401); /* + the NOP twin made with the EXIT */
    size_t peak = (size_t)st.bytes_peak;
    trace_close(t);
    return peak;
}

static void test_streaming(void **state)
{
    (void)state;
    size_t small = peak_for(8, 4), large = peak_for(64, 4);
    /* 8x the file, same peak: 4 resident blocks + 1 cached */
    assert_int_equal(small, large);
    /* 800 records x 12 B and 800 x 3 address words per block, rounded up */
    assert_true(large < 5 * 48 * 1024);
    assert_true(peak_for(64, 1) < large);
}

/* A kernel of `blocks` blocks x 2 warps x 400 lines (v3, like peak_for's),
 * with `bad` (if not NULL) replacing instruction `badline` of warp 1 of the
 * blocks in the bit mask `badblocks`.  Returns the path. */
static const char *write_big(const char *name, int blocks, unsigned badblocks, int badline,
                             const char *bad)
{
    const char *path = tpath(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "-kernel name = big\n-grid dim = (%d,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n"
               "-nregs = 8\n-binary version = 80\n-accelsim tracer version = 3\n#\n", blocks);
    for (int b = 0; b < blocks; b++) {
        fprintf(f, "#BEGIN_TB\nthread block = %d,0,0\n", b);
        for (int w = 0; w < 2; w++) {
            fprintf(f, "warp = %d\ninsts = 400\n", w);
            for (int i = 0; i < 399; i++) {
                if (bad && (badblocks >> b & 1) && w == 1 && i == badline)
                    fprintf(f, "%s\n", bad);
                else if (i % 7 == 3)
                    fprintf(f, "%04x %08x 1 R4 LDG.E 1 R2 4 2 0x%x %d %d\n", i * 16,
                            0x7u << (i % 29), (b * 1000 + i) * 128, 4 * i, -8);
                else
                    fprintf(f, "%04x ffffffff 1 R4 LDG.E 1 R2 4 1 0x%x 4\n", i * 16,
                            (b * 1000 + i) * 128);
            }
            fprintf(f, "18f0 ffffffff 0 EXIT 0 0\n");
        }
        fprintf(f, "#END_TB\n");
    }
    fclose(f);
    return path;
}

/* What a walk of one warp saw, folded into one number. */
static uint64_t warp_digest(struct trace_kernel *k, struct tr_cursor *c)
{
    uint64_t h = 1469598103934665603ull;
    const struct tr_inst *in;
    struct tr_dyn d;
    while ((in = k->ops->warp_next(k, c, &d))) {
        h = (h ^ (uint64_t)in->kind ^ (uint64_t)in->dst[0] << 8 ^ (uint64_t)d.active_mask << 16) *
            1099511628211ull;
        for (uint32_t i = 0; i < d.naddr; i++)
            h = (h ^ d.addr[i]) * 1099511628211ull;
    }
    return h;
}

struct walker {
    struct trace_kernel *k; /* the kernel          */
    int first, step, blocks; /* blocks first, first+step, ... */
    uint64_t *digest;       /* [blocks * 2]        */
    int fails;              /* warp_begin failures */
};

static void *walk_blocks(void *arg)
{
    struct walker *w = arg;
    for (int b = w->first; b < w->blocks; b += w->step) {
        struct tr_cursor c[2];
        for (uint32_t i = 0; i < 2; i++)
            w->fails += w->k->ops->warp_begin(w->k, (uint32_t)b, i, &c[i]) != 0;
        for (uint32_t i = 0; i < 2; i++) {
            w->digest[b * 2 + (int)i] = warp_digest(w->k, &c[i]);
            w->k->ops->warp_end(w->k, &c[i]);
        }
    }
    return NULL;
}

/* The reader is mt_safe: warps walked on 3 threads at once read exactly
 * what one thread reads. */
static void test_threads(void **state)
{
    (void)state;
    enum { B = 48 };
    const char *path = write_big("mt.traceg", B, 0, 0, NULL);
    uint64_t one[B * 2], many[B * 2];
    struct trace_file *t = open_ok(path);
    assert_int_equal(t->kernels[0]->mt_safe, 1);
    struct walker w = {t->kernels[0], 0, 1, B, one, 0};
    walk_blocks(&w);
    assert_int_equal(w.fails, 0);
    trace_close(t);
    t = open_ok(path);
    struct walker ws[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        ws[i] = (struct walker){t->kernels[0], i, 3, B, many, 0};
        assert_int_equal(pthread_create(&th[i], NULL, walk_blocks, &ws[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(ws[i].fails, 0);
    }
    struct tr_accelsim_stats st;
    tr_accelsim_stats(t->kernels[0], &st);
    assert_int_equal(st.statics, 401);
    assert_int_equal(st.blocks_live, 1); /* only the cold one is left */
    trace_close(t);
    for (int i = 0; i < B * 2; i++)
        assert_true(one[i] == many[i]);
}

/* An error deep inside a long warp (past its first window of text) names
 * its own line; with two bad blocks, the message is the first error in the
 * file whichever block starts first, and it sticks. */
static void test_error_lines(void **state)
{
    (void)state;
    /* 8 header lines, 807 per block; in a block, warp 1's instruction i is
     * line 407 + i */
    const char *path = write_big("deep.traceg", 4, 1u << 2, 300, "12c0 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1z 4");
    uint64_t want_line = 8 + 2 * 807 + 407 + 300;
    struct trace_file *t = open_ok(path);
    struct trace_kernel *k = t->kernels[0];
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, 2, 0, &c), 0); /* warp 0 is fine */
    k->ops->warp_end(k, &c);
    assert_int_not_equal(k->ops->warp_begin(k, 2, 1, &c), 0);
    char want[TRACE_ERR_MAX];
    snprintf(want, sizeof want, "%s:%llu:35: base address must be hex, got '0x1z'", path,
             (unsigned long long)want_line);
    assert_string_equal(k->error, want);
    /* sticky: a good block now fails with the same message */
    assert_int_not_equal(k->ops->warp_begin(k, 0, 0, &c), 0);
    assert_string_equal(k->error, want);
    trace_close(t);

    /* two bad blocks (and a duplicate block at the end); the later one is
     * started first: the message is still the first error in the file */
    path = write_big("two.traceg", 4, 1u << 1 | 1u << 3, 5, "0050 fffffffff 0 NOP 0 0");
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n");
    fclose(f);
    snprintf(want, sizeof want, "%s:%d:6: active mask must be 8 hex digits, got 'fffffffff'",
             path, 8 + 807 + 407 + 5);
    t = open_ok(path);
    k = t->kernels[0];
    assert_int_not_equal(k->ops->warp_begin(k, 3, 1, &c), 0);
    assert_string_equal(k->error, want);
    trace_close(t);
    /* in block order, the same */
    t = open_ok(path);
    k = t->kernels[0];
    int failed = 0;
    for (uint32_t b = 0; b < 4 && !failed; b++)
        for (uint32_t w = 0; w < 2 && !failed; w++) {
            failed = k->ops->warp_begin(k, b, w, &c) != 0;
            if (!failed)
                k->ops->warp_end(k, &c);
        }
    assert_true(failed);
    assert_string_equal(k->error, want);
    trace_close(t);
}

/* -binary version = 0 (NVBit could not query the kernel, as in a real
 * version-5 trace): warned about, and a garbage -nregs is replaced by the
 * registers the first block uses (R9, and R12..R15 written by an LDG.128:
 * 16), rounded up to 8, with a second warning.  Elsewhere it is an error. */
static void test_untrusted_header(void **state)
{
    (void)state;
    const char *text =
        "-kernel name = k0\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
        "-nregs = 21955\n-binary version = 0\n-accelsim tracer version = 5\n#\n"
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
        "0000 ffffffff 1 R9 MOV 0 0 0 \n"
        "0010 ffffffff 1 R12 LDG.E.128.SYS 1 R2 16 1 0x7f580face400 16 0 \n"
        "0020 ffffffff 0 EXIT 0 0 0 \n#END_TB\n";
    put(tpath("b0.traceg"), text);
    FILE *warn = tmpfile();
    assert_non_null(warn);
    struct trace_file *t = calloc(1, sizeof *t);
    char err[TRACE_ERR_MAX] = "";
    if (trace_accelsim_open(tpath("b0.traceg"), warn, t, err))
        fail_msg("unexpected error: %s", err);
    assert_int_equal(t->kernels[0]->launch.regs, 16);
    assert_int_equal(tr_warp_insts(t->kernels[0], 0, 0), 3);
    trace_close(t);
    rewind(warn);
    char buf[2048] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, warn);
    buf[n] = '\0';
    fclose(warn);
    assert_non_null(strstr(buf, "b0.traceg:6:19: warning: -binary version = 0"));
    assert_non_null(strstr(buf, "b0.traceg:5:1: warning: -nregs = 21955 is not a register "
                                "count: using 16, from the highest register the first thread "
                                "block uses (R15)"));
    /* with a real binary version the same -nregs is an error */
    char *bad = strdup(text);
    memcpy(strstr(bad, "version = 0"), "version = 9", 11);
    put(tpath("b0.traceg"), bad);
    free(bad);
    /* (9 is not a SASS version either: 1..9 are rejected) */
    assert_null(trace_open(tpath("b0.traceg"), err));
    assert_non_null(strstr(err, "b0.traceg:6:19: -binary version must be the SASS version"));
}

/* Errors: one line "file:line:col: message". */
struct err_case {
    const char *body;  /* text after HDR5 (or a whole file if it starts with '-') */
    int at_open;       /* 1: trace_open fails; 0: warp_begin of block 0 warp 0 fails */
    const char *msg;   /* expected message after "path:" */
};

static const struct err_case errs[] = {
    /* header */
    {"-kernel name = k\n-grid dim = (0,1,1)\n", 1,
     "2:14: -grid dim must be (x,y,z) with each 1..2147483647, got '(0,1,1)'"},
    {"-kernel name = k\n-grid dim = (1,1)\n", 1,
     "2:17: -grid dim must be (x,y,z) with each 1..2147483647, got '(1,1)'"},
    {"-kernel name = k\n-nregs = 0\n", 1, "2:10: -nregs must be 1..255, got '0'"},
    {"-kernel name = k\n-accelsim tracer version = 2\n", 1,
     "2:28: -accelsim tracer version '2' is not supported (3, 4 or 5)"},
    {"-kernel name = k\n-enable lineinfo = yes\n", 1, "2:20: -enable lineinfo must be 0 or 1, got 'yes'"},
    {"-kernel name = k\n-binary version = sm_90\n", 1,
     "2:19: -binary version must be the SASS version (70, 75, 80, 86, 89, 90, 100, 120, ...), got 'sm_90'"},
    {"-kernel name = k\n-kernel name = j\n", 1, "2:1: '-kernel name' given twice (first at line 1)"},
    {"-kernel name = k\nbogus\n", 1,
     "2:1: expected a '-key = value' header line or the '#traces format' line, got 'bogus'"},
    {"-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
     "-binary version = 90\n-accelsim tracer version = 5\n#\n", 1,
     "7:1: header has no '-nregs = ...' line"},
    {"-kernel name = k\n-shmem base_addr = 0xZZ\n", 1, "2:20: -shmem base_addr must be a hex address, got '0xZZ'"},
    /* body */
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 NOP 0 0 0\n", 0,
     "21:1: file ends after 1 of the 2 instructions of warp 0 ('insts = 2' at line 20; truncated?)"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0\n", 0,
     "21:1: file ends inside the thread block that starts at line 17 (no '#END_TB'; truncated?)"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 NOP 0 0 0\n#END_TB\n", 0,
     "22:1: warp 0 has 1 instruction lines but 'insts = 2' (line 20) declares 2"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0 0\n"
     "0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n", 0,
     "22:1: instruction line after the 1 declared by 'insts = 1' of warp 0"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 fffffffg 0 NOP 0 0 0\n#END_TB\n", 0,
     "21:6: active mask must be 8 hex digits, got 'fffffffg'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n00x0 ffffffff 0 NOP 0 0 0\n#END_TB\n", 0,
     "21:1: PC must be hex, got '00x0'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 X4 MOV 0 0 0\n#END_TB\n", 0,
     "21:17: expected a destination register R0..R255, got 'X4'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 LDG.E 1 R2 4 1 0x1g 4 0\n#END_TB\n", 0,
     "21:32: base address must be hex, got '0x1g'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 LDG.E 1 R2 4 3 0x10 0\n#END_TB\n", 0,
     "21:30: address mode must be 0, 1 or 2, got '3'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000005 0 LDG.E 1 R2 4 1 0x10 4 0\n#END_TB\n", 0,
     "21:37: address mode 1 (base and stride) needs contiguous active lanes, but the mask is 00000005"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000003 0 LDG.E 1 R2 4 0 0x10\n#END_TB\n", 0,
     "21:36: instruction line ends before its address (one per active lane, address mode 0)"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0 0 7\n#END_TB\n", 0,
     "21:27: unexpected '7' at the end of the instruction (tracer version 5)"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 nop 0 0 0\n#END_TB\n", 0,
     "21:17: expected an opcode (upper case, e.g. LDG.E.128), got 'nop'"},
    {"#BEGIN_TB\nthread block = 5,0,0\n", 0, "18:16: thread block index x must be 0..1 (the grid is (2,1,1))"},
    {"#BEGIN_TB\nthread block = 1,0,0\n#END_TB\n", 0,
     "19:1: thread block 0,0,0 (linear 0) is not in the trace (1 thread blocks found; the grid has 2)"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n", 0,
     "19:8: 'warp = W' needs W in 0..1 (a block of 64 threads), got '2'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = many\n", 0,
     "20:9: 'insts' must be an instruction count 0..4294967295, got 'many'"},
    {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\nwarp = 0\n", 0,
     "21:1: warp 0 appears twice in the thread block at line 17"},
    {"hello\n", 0, "17:1: expected '#BEGIN_TB' (a thread block), got 'hello'"},
};

static void test_errors(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        const char *p = tpath("err.traceg");
        char *text = malloc(strlen(HDR5) + strlen(errs[i].body) + 1);
        strcpy(text, errs[i].body[0] == '-' ? "" : HDR5);
        strcat(text, errs[i].body);
        put(p, text);
        free(text);
        char want[TRACE_ERR_MAX], err[TRACE_ERR_MAX] = "";
        snprintf(want, sizeof want, "%s:%s", p, errs[i].msg);
        struct trace_file *t = trace_open(p, err);
        if (errs[i].at_open) {
            if (t)
                fail_msg("case %zu: opened, want error %s", i, want);
            if (strcmp(err, want))
                print_message("case %zu:\n got  %s\n want %s\n", i, err, want), bad++;
            continue;
        }
        if (!t)
            fail_msg("case %zu: open failed: %s", i, err);
        struct trace_kernel *k = t->kernels[0];
        struct tr_cursor c;
        if (k->ops->warp_begin(k, 0, 0, &c) == 0)
            fail_msg("case %zu: warp_begin succeeded, want %s", i, want);
        assert_non_null(k->error);
        if (strcmp(k->error, want))
            print_message("case %zu:\n got  %s\n want %s\n", i, k->error, want), bad++;
        assert_null(strchr(k->error, '\n'));
        trace_close(t);
    }
    assert_int_equal(bad, 0);
}

static void test_list_errors(void **state)
{
    (void)state;
    char want[TRACE_ERR_MAX], err[TRACE_ERR_MAX];
    put(tpath("kernelslist.g"), "MemcpyHtoD,0x10,64\nkernel-9.traceg\n");
    snprintf(want, sizeof want, "%s:2:1: cannot open kernel trace '%s': No such file or directory",
             tpath("kernelslist.g"), tpath("kernel-9.traceg"));
    assert_null(trace_open(tpath("kernelslist.g"), err));
    assert_string_equal(err, want);
    put(tpath("kernelslist.g"), "MemcpyHtoD,0xZZ,64\n");
    snprintf(want, sizeof want,
             "%s:1:1: expected 'MemcpyHtoD,0x<address>,<bytes>', got 'MemcpyHtoD,0xZZ,64'",
             tpath("kernelslist.g"));
    assert_null(trace_open(tpath("kernelslist.g"), err));
    assert_string_equal(err, want);
    put(tpath("kernelslist.g"), "MemcpyHtoD,0x10,64\n");
    snprintf(want, sizeof want, "%s:1:1: the kernel list names no kernel trace file",
             tpath("kernelslist.g"));
    assert_null(trace_open(tpath("kernelslist.g"), err));
    assert_string_equal(err, want);
    /* a bad kernel header surfaces at open, with the kernel file's name */
    put(tpath("kernel-1.traceg"), "-kernel name = k\n-nregs = 300\n");
    put(tpath("kernelslist.g"), "kernel-1.traceg\n");
    snprintf(want, sizeof want, "%s:2:10: -nregs must be 1..255, got '300'", tpath("kernel-1.traceg"));
    assert_null(trace_open(tpath("kernelslist.g"), err));
    assert_string_equal(err, want);
    /* a truncated .xz */
    xz_file(D "v5/kernel-1.traceg", tpath("cut.traceg.xz"));
    FILE *f = fopen(tpath("cut.traceg.xz"), "r+b");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), 300), 0);
    fclose(f);
    struct trace_file *t = trace_open(tpath("cut.traceg.xz"), err);
    if (t) { /* the header fits in 300 bytes or not: either way one line */
        struct tr_cursor c;
        assert_int_not_equal(t->kernels[0]->ops->warp_begin(t->kernels[0], 0, 0, &c), 0);
        assert_non_null(strstr(t->kernels[0]->error, "truncated xz data"));
        trace_close(t);
    } else {
        assert_non_null(strstr(err, "truncated xz data"));
    }
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_xz_and_seek),
        cmocka_unit_test(test_inference),
        cmocka_unit_test(test_v4_lineinfo_masks),
        cmocka_unit_test(test_streaming),
        cmocka_unit_test(test_untrusted_header),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_error_lines),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_list_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
