/* test_convert_events.c — tracer event file + SASS -> Accel-Sim trace
 * (sim/convert/conv_smev.c, conv_events.c; docs/tracing.md).
 *
 * Data: tests/data/events/recon.sass, a hand-written listing in cuobjdump's
 * layout (function _Z5reconPf, after a function _Z5reconPfi whose name a
 * regex for the kernel would also match, and before _Z5exitsPf, used by
 * test_partial_exit):
 *   0000 S2R; 0010 ISETP P0; 0020 MOV
 *   0030 IADD3; 0040 ISETP P1; 0050 @P1 BRA 0x30     loop A, nothing recorded
 *   0060 LDG; 0070 IADD3; 0080 ISETP; 0090 @P1 BRA 0x60   loop B, an LDG per trip
 *   00a0 @P0 BRA 0xd0; 00b0 STS; 00c0 BRA 0xe0; 00d0 STG   if/else
 *   00e0 @P0 STG; 00f0 EXIT; 0100 BRA 0x100; 0110 NOP
 * and the event file is written here: one block of 64 threads (2 warps),
 *   warp 0: enter, LDG x3, STS, exit at 0xf0  -> loop B 3 trips, the STS side,
 *           the @P0 STG without a record (predicated off: mask 0)
 *   warp 1: enter, LDG x2, STG 0xd0, STG 0xe0 (lanes 0-15), exit
 * Hand count without counts (loop A once, the fewest instructions):
 *   warp 0: 7 + 4 + 4 + 5 (0x70..0x90, 0xa0, STS) + 3 (0xc0, 0xe0, EXIT) = 23
 *   warp 1: 7 + 4 + 5 (.., 0xa0, STG 0xd0) + 1 + 1                        = 18
 * With recon.counts (`pc,count`: loop A's 0x30 executes 8 times over the
 * 2 warps, i.e. 4 per warp) loop A runs 4 times: 9 more per warp, 59 in all,
 * the sum of the counts file.
 *
 * Mutation checks (sim/convert/conv_events.c, each alone):
 *   predication ignored (every instrumented instruction needs a record):
 *     test_reconstruct, test_counts_decide_loop, test_addresses, test_divergence fail;
 *   the path rule dropped (nothing needs a record):
 *     test_reconstruct, test_counts_decide_loop, test_errors, test_roundtrip_validation fail;
 *   predicated-off instructions with the segment's mask instead of 0:
 *     test_reconstruct, test_counts_decide_loop, test_divergence fail;
 *   one trip too many per loop entry ('>=' in choose()'s back-edge rule):
 *     test_counts_decide_loop, test_roundtrip_validation fail;
 *   no divergence fallback (other_side): test_divergence fails.
 *
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

#include "convert/conv_events.h"
#include "convert/conv_sass.h"
#include "convert/conv_smev.h"
#include "trace/trace.h"

#define SASS "tests/data/events/recon.sass"
#define COUNTS "tests/data/events/recon.counts"

struct buf {
    unsigned char d[1 << 16];
    size_t n;
    size_t off[64]; /* byte offset of each record */
    int nrec;
};

static void put32(struct buf *b, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b->d[b->n++] = (unsigned char)(v >> (8 * k));
}

static void rec(struct buf *b, uint32_t warp, int kind, uint32_t pc, uint32_t mask)
{
    b->off[b->nrec++] = b->n;
    put32(b, warp);
    int mem = kind == 3 || kind == 4 || kind == 5 || kind == 14;
    b->d[b->n++] = (unsigned char)kind;
    b->d[b->n++] = mem ? 4 : 0;
    b->d[b->n++] = mem ? 1 : 0; /* flags: read */
    b->d[b->n++] = 0;
    put32(b, pc);
    put32(b, mask);
    if (mem)
        for (int l = 0, k = 0; l < 32; l++)
            if (mask >> l & 1) {
                uint64_t a = 0x7f0000001000ull + 0x1000ull * warp + 4ull * (uint64_t)k++;
                put32(b, (uint32_t)a);
                put32(b, (uint32_t)(a >> 32));
            }
}

static const char header[] =
    "smev version = 1\n"
    "kernel = _Z5reconPf\n"
    "module = module-1.cubin\n"
    "grid = 1,1,1\n"
    "block = 64,1,1\n"
    "nregs = 16\n"
    "shmem static = 256\n"
    "shmem dynamic = 0\n"
    "launch = 0\n"
    "sampled blocks = 0:1\n"
    "records = %d\n"
    "overflow = 0\n"
    "pc base = 0x7f12340000\n"
    "#events\n";

/* The event file of the header comment; hdr (a printf format with %d for
 * the record count) replaces the header when not NULL. */
static void build(struct buf *b, const char *hdr)
{
    memset(b, 0, sizeof *b);
    struct buf r = {0};
    rec(&r, 0, 1, 0x0, ~0u);
    rec(&r, 1, 1, 0x0, ~0u);
    rec(&r, 0, 3, 0x60, ~0u);
    rec(&r, 1, 3, 0x60, ~0u);
    rec(&r, 0, 3, 0x60, ~0u);
    rec(&r, 0, 3, 0x60, ~0u);
    rec(&r, 1, 3, 0x60, ~0u);
    rec(&r, 0, 4, 0xb0, ~0u);
    rec(&r, 1, 3, 0xd0, ~0u);
    rec(&r, 0, 2, 0xf0, ~0u);
    rec(&r, 1, 3, 0xe0, 0x0000ffffu);
    rec(&r, 1, 2, 0xf0, ~0u);
    b->n = (size_t)snprintf((char *)b->d, sizeof b->d, hdr ? hdr : header, r.nrec);
    memcpy(b->d + b->n, r.d, r.n);
    for (int k = 0; k < r.nrec; k++)
        b->off[k] = r.off[k] + b->n;
    b->nrec = r.nrec;
    b->n += r.n;
}

static char dir[64];

static void write_file(const char *path, const unsigned char *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_convert_events_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int convert(const struct buf *b, const char *counts, struct conv_events_stats *st,
                   char err[TRACE_ERR_MAX], char *ev, char *out)
{
    sprintf(ev, "%s/launch-0.smev", dir);
    sprintf(out, "%s/out", dir);
    write_file(ev, b->d, b->n);
    char f[160];
    snprintf(f, sizeof f, "%s/kernelslist.g", out);
    unlink(f); /* what an earlier test wrote */
    snprintf(f, sizeof f, "%s/kernel-1.traceg", out);
    unlink(f);
    struct conv_events_opts o = {.events_path = ev, .sass_path = SASS, .counts_path = counts,
                                 .out_dir = out};
    err[0] = 0;
    return conv_events_convert(&o, st, err);
}

/* Warps 0..nw-1 of a block of the written trace as "PC PC/MASK ..." (the mask only
 * where it is not the whole warp), and the total. */
static uint64_t streams_of(const char *out, uint32_t block, char s[][512], int nw)
{
    char list[256], err[TRACE_ERR_MAX];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    struct trace_file *t = trace_open(list, err);
    if (!t)
        fail_msg("%s", err);
    assert_int_equal(t->nkernels, 1);
    struct trace_kernel *k = t->kernels[0];
    uint64_t total = 0;
    for (int w = 0; w < nw; w++) {
        struct tr_cursor c;
        assert_int_equal(k->ops->warp_begin(k, block, (uint32_t)w, &c), 0);
        const struct tr_inst *in;
        struct tr_dyn d;
        size_t n = 0;
        s[w][0] = 0;
        while ((in = k->ops->warp_next(k, &c, &d))) {
            assert_true(in->has_pc);
            n += (size_t)snprintf(s[w] + n, 512 - n, "%s%04x", n ? " " : "", in->pc);
            if (d.active_mask != ~0u)
                n += (size_t)snprintf(s[w] + n, 512 - n, "/%08x", d.active_mask);
            total++;
        }
        if (k->ops->warp_end)
            k->ops->warp_end(k, &c);
    }
    trace_close(t);
    return total;
}

static uint64_t streams(const char *out, char s[][512], int nw)
{
    return streams_of(out, 0, s, nw);
}

#define HEAD "0000 0010 0020 0030 0040 0050 0060 0070 0080 0090 0060 0070 0080 0090 "
#define LOOPA4 "0000 0010 0020 0030 0040 0050 0030 0040 0050 0030 0040 0050 0030 0040 0050 " \
               "0060 0070 0080 0090 0060 0070 0080 0090 "

static void test_reconstruct(void **state)
{
    (void)state;
    struct buf b;
    build(&b, NULL);
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, NULL, &st, err, ev, out))
        fail_msg("%s", err);
    char s[2][512];
    assert_int_equal(streams(out, s, 2), 41);
    /* loop B: 3 trips from the 3 LDG records, the STS side of the if/else,
     * the guarded STG without a record predicated off */
    assert_string_equal(s[0], HEAD "0060 0070 0080 0090 00a0 00b0 00c0 00e0/00000000 00f0");
    /* 2 trips, the STG side, the guarded STG with its record's lanes */
    assert_string_equal(s[1], HEAD "00a0 00d0 00e0/0000ffff 00f0");
    assert_int_equal(st.warps, 2);
    assert_int_equal(st.blocks, 1);
    assert_int_equal(st.insts, 41);
    assert_int_equal(st.records, 12);
    /* loop A's back edge in each warp: its head and the LDG both lead on */
    assert_int_equal(st.ambiguous, 2);
    assert_int_equal(st.by_counts, 0);
    assert_int_equal(st.masked_off, 1);
}

static void test_counts_decide_loop(void **state)
{
    (void)state;
    struct buf b;
    build(&b, NULL);
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, COUNTS, &st, err, ev, out))
        fail_msg("%s", err);
    char s[2][512];
    assert_int_equal(streams(out, s, 2), 59); /* = the counts' sum */
    assert_string_equal(s[0], LOOPA4 "0060 0070 0080 0090 00a0 00b0 00c0 00e0/00000000 00f0");
    assert_string_equal(s[1], LOOPA4 "00a0 00d0 00e0/0000ffff 00f0");
    /* 4 choices at 0x50 per warp: 3 back, 1 on (all by the counts) */
    assert_int_equal(st.ambiguous, 8);
    assert_int_equal(st.by_counts, 8);
}

/* The addresses and the header come through. */
static void test_addresses(void **state)
{
    (void)state;
    struct buf b;
    build(&b, NULL);
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, NULL, &st, err, ev, out))
        fail_msg("%s", err);
    char list[256];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    struct trace_file *t = trace_open(list, err);
    assert_non_null(t);
    struct trace_kernel *k = t->kernels[0];
    assert_string_equal(k->launch.name, "_Z5reconPf");
    assert_int_equal(k->launch.block[0], 64);
    assert_int_equal(k->launch.regs, 16);
    assert_int_equal(k->launch.smem_static + k->launch.smem_dynamic, 256);
    struct tr_cursor c;
    assert_int_equal(k->ops->warp_begin(k, 0, 1, &c), 0);
    const struct tr_inst *in;
    struct tr_dyn d;
    int seen = 0;
    while ((in = k->ops->warp_next(k, &c, &d)))
        if (in->pc == 0xe0) {
            assert_int_equal(d.naddr, 16);
            assert_int_equal(d.addr[0], 0x7f0000002000ull);
            assert_int_equal(d.addr[15], 0x7f0000002000ull + 60);
            seen = 1;
        }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    assert_true(seen);
    trace_close(t);
}

/* A divergent warp: lanes 0-15 take the STS side of the if/else at 0xa0,
 * lanes 16-31 the STG side, one after the other.  No path leads from the
 * STS to the STG; the stream goes on from the branch's other successor
 * (the then-part's BRA 0xe0 of lanes 0-15 is not seen, docs/tracing.md). */
static void test_divergence(void **state)
{
    (void)state;
    struct buf b, r = {0};
    memset(&b, 0, sizeof b);
    rec(&r, 0, 1, 0x0, ~0u);
    rec(&r, 0, 3, 0x60, ~0u);
    rec(&r, 0, 4, 0xb0, 0x0000ffffu);
    rec(&r, 0, 3, 0xd0, 0xffff0000u);
    rec(&r, 0, 2, 0xf0, ~0u);
    char hdr[sizeof header + 8];
    snprintf(hdr, sizeof hdr, "%s", header);
    memcpy(strstr(hdr, "64,1,1"), "32,1,1", 6);
    b.n = (size_t)snprintf((char *)b.d, sizeof b.d, hdr, r.nrec);
    memcpy(b.d + b.n, r.d, r.n);
    b.n += r.n;
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, NULL, &st, err, ev, out))
        fail_msg("%s", err);
    char s[1][512];
    assert_int_equal(streams(out, s, 1), 15);
    /* (0x70..0xa0: the lanes of the STS record and of every later one) */
    assert_string_equal(s[0], "0000 0010 0020 0030 0040 0050 0060 0070 0080 0090 00a0 "
                              "00b0/0000ffff 00d0/ffff0000 00e0/00000000 00f0");
    assert_int_equal(st.diverged, 1);
}

/* Lanes leaving early: _Z5exitsPf of recon.sass (S2R; ISETP P0 = tid >= 16;
 * @P0 EXIT; STG; EXIT).  Lanes 16-31 leave at the guarded EXIT (a block
 * exit record there), lanes 0-15 store and leave at the last one. */
static void test_partial_exit(void **state)
{
    (void)state;
    struct buf b, r = {0};
    memset(&b, 0, sizeof b);
    rec(&r, 0, 1, 0x0, ~0u);
    rec(&r, 0, 2, 0x20, 0xffff0000u);
    rec(&r, 0, 3, 0x30, 0x0000ffffu);
    rec(&r, 0, 2, 0x40, 0x0000ffffu);
    char hdr[sizeof header + 8];
    snprintf(hdr, sizeof hdr, "%s", header);
    memcpy(strstr(hdr, "64,1,1"), "32,1,1", 6);
    memcpy(strstr(hdr, "_Z5reconPf"), "_Z5exitsPf", 10);
    b.n = (size_t)snprintf((char *)b.d, sizeof b.d, hdr, r.nrec);
    memcpy(b.d + b.n, r.d, r.n);
    b.n += r.n;
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, NULL, &st, err, ev, out))
        fail_msg("%s", err);
    char s[1][512];
    assert_int_equal(streams(out, s, 1), 5);
    /* S2R and ISETP with every lane (alive until the EXIT), the guarded EXIT
     * with the lanes that left there, the rest with lanes 0-15 */
    assert_string_equal(s[0], "0000 0010 0020/ffff0000 0030/0000ffff 0040/0000ffff");
    /* more records after a block exit at the unguarded EXIT, of lanes that
     * left there (lanes that had not would be a diverged side arriving
     * later: tests/cli_sass2trace_events.sh, hopper.smev) */
    memset(&r, 0, sizeof r);
    rec(&r, 0, 2, 0x20, 0xffff0000u);
    rec(&r, 0, 2, 0x40, 0x0000ffffu);
    rec(&r, 0, 3, 0x30, 0x0000ffffu);
    b.n = (size_t)snprintf((char *)b.d, sizeof b.d, hdr, r.nrec);
    size_t at = b.n + r.off[1];
    memcpy(b.d + b.n, r.d, r.n);
    b.n += r.n;
    assert_int_equal(convert(&b, NULL, &st, err, ev, out), -1);
    char want[TRACE_ERR_MAX];
    snprintf(want, sizeof want, "%s: record 2 (byte %zu): warp 0 has records after its block "
             "exit at the unguarded EXIT 0x0040, and only of lanes that left there", ev, at);
    assert_string_equal(err, want);
}

static void expect_error(const struct buf *b, const char *want_fmt, ...);

/* Sampled blocks: a grid of 4 one-warp blocks of which blocks 1 and 2 were
 * recorded: the trace holds those two, as a grid of (2,1,1), in order. */
static void test_sampled(void **state)
{
    (void)state;
    struct buf b, r = {0};
    memset(&b, 0, sizeof b);
    rec(&r, 2, 2, 0x20, ~0u);        /* block 2: all lanes leave at @P0 EXIT */
    rec(&r, 1, 3, 0x30, 0x0000ffffu); /* block 1: lanes 0-15 store, the rest ... */
    rec(&r, 1, 2, 0x40, 0x0000ffffu);
    char hdr[sizeof header + 8];
    snprintf(hdr, sizeof hdr, "%s", header);
    memcpy(strstr(hdr, "64,1,1"), "32,1,1", 6);
    memcpy(strstr(hdr, "1,1,1"), "4,1,1", 5);
    memcpy(strstr(hdr, "0:1"), "1:2", 3);
    memcpy(strstr(hdr, "_Z5reconPf"), "_Z5exitsPf", 10);
    b.n = (size_t)snprintf((char *)b.d, sizeof b.d, hdr, r.nrec);
    memcpy(b.d + b.n, r.d, r.n);
    b.n += r.n;
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128];
    if (convert(&b, NULL, &st, err, ev, out))
        fail_msg("%s", err);
    assert_int_equal(st.blocks, 2);
    assert_int_equal(st.grid[0], 2);
    char list[256];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    struct trace_file *t = trace_open(list, err);
    assert_non_null(t);
    assert_int_equal(t->kernels[0]->launch.grid[0], 2);
    assert_int_equal(t->kernels[0]->launch.grid[1], 1);
    trace_close(t);
    char s[1][512];
    /* output block 0 = block 1: (lanes 16-31 leave unrecorded: the tracer
     * gives them no block exit here, so the masks before the STG are its) */
    assert_int_equal(streams(out, s, 1), 5);
    assert_string_equal(s[0], "0000/0000ffff 0010/0000ffff 0020/0000ffff 0030/0000ffff "
                              "0040/0000ffff");
    /* output block 1 = block 2: all lanes leave at the guarded EXIT */
    assert_int_equal(streams_of(out, 1, s, 1), 3);
    assert_string_equal(s[0], "0000 0010 0020");
    /* block 0 was not sampled */
    b.d[b.n - r.n + r.off[0]] = 0;
    snprintf(err, sizeof err, ": record 1 (byte %zu): warp 0 is in block 0, outside sampled "
             "blocks = 1:2", b.n - r.n + r.off[0]);
    expect_error(&b, "%s", err);
}

static void expect_error(const struct buf *b, const char *want_fmt, ...)
{
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX], ev[128], out[128], want[TRACE_ERR_MAX];
    int rc = convert(b, NULL, &st, err, ev, out);
    char tail[TRACE_ERR_MAX];
    va_list ap;
    va_start(ap, want_fmt);
    vsnprintf(tail, sizeof tail, want_fmt, ap);
    va_end(ap);
    snprintf(want, sizeof want, "%s%s", ev, tail);
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
    char list[256];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    assert_int_equal(access(list, F_OK), -1); /* nothing written */
}

static void test_errors(void **state)
{
    (void)state;
    struct buf b;
    /* truncated: the last record (16 bytes, block exit) loses 5 */
    build(&b, NULL);
    b.n -= 5;
    expect_error(&b, ": record 12 (byte %zu): truncated record (11 of its 16 header bytes)",
                 b.off[11]);
    /* a memory record cut inside its addresses */
    build(&b, NULL);
    b.n = b.off[10] + 16 + 8 * 3;
    expect_error(&b, ": record 11 (byte %zu): truncated record (40 of its 144 bytes: 16 "
                     "addresses)", b.off[10]);
    /* bad header key (line 6) */
    char hdr[sizeof header + 8];
    snprintf(hdr, sizeof hdr, "%s", header);
    memcpy(strstr(hdr, "nregs"), "nrogs", 5);
    build(&b, hdr);
    expect_error(&b, ":6: unknown header key 'nrogs'");
    /* unknown version */
    snprintf(hdr, sizeof hdr, "%s", header);
    strstr(hdr, "= 1\n")[2] = '2';
    build(&b, hdr);
    expect_error(&b, ":1: smev version 2 is not supported (this smsim reads version 1)");
    /* header without #events */
    build(&b, "smev version = 1\nkernel = x\n");
    expect_error(&b, ":3: NUL byte in the header (not an smev file?)");
    b.n = strlen("smev version = 1\nkernel = x\n");
    expect_error(&b, ":2: the header ends without the line '#events' (truncated?)");
    /* a key missing */
    build(&b, "smev version = 1\n#events\n");
    expect_error(&b, ":2: missing header key 'kernel'");
    /* the record count disagrees */
    snprintf(hdr, sizeof hdr, "%s", header);
    memcpy(strstr(hdr, "%d"), "13", 2);
    build(&b, hdr);
    expect_error(&b, ": the header says records = 13, the file holds 12 (truncated?)");
    /* warp out of range: record 3 names warp 5 of a 2-warp launch */
    build(&b, NULL);
    b.d[b.off[2]] = 5;
    expect_error(&b, ": record 3 (byte %zu): warp 5 outside the launch (2 warps: grid 1,1,1, "
                     "2 per block)", b.off[2]);
    /* pc not 16-aligned, pc not in the listing */
    build(&b, NULL);
    b.d[b.off[2] + 8] = 0x64;
    expect_error(&b, ": record 3 (byte %zu): pc 0x64 is not a multiple of 16", b.off[2]);
    build(&b, NULL);
    b.d[b.off[2] + 8] = 0x00;
    b.d[b.off[2] + 9] = 0x02;
    expect_error(&b, ": record 3 (byte %zu): pc 0x0200 is not an instruction of '_Z5reconPf' "
                     "(18 instructions in " SASS ")", b.off[2]);
    /* unknown kind; a kind the instruction cannot have */
    build(&b, NULL);
    b.d[b.off[0] + 4] = 11;
    expect_error(&b, ": record 1 (byte %zu): kind 11 unknown (expected 1-10 or 14)", b.off[0]);
    build(&b, NULL);
    b.d[b.off[7] + 4] = 3; /* the STS record as a global access */
    expect_error(&b, ": record 8 (byte %zu): kind 3 (global) at pc 0x00b0, which is 'STS' "
                     "(" SASS ":42), not an instruction of that kind", b.off[7]);
    /* no path: warp 0's second LDG record turned into one of the @P0 STG at
     * 0xe0, which is reached only through the STS or the STG (both unpredicated,
     * both without a record there) */
    build(&b, NULL);
    b.d[b.off[4] + 8] = 0xe0;
    expect_error(&b, ": record 5 (byte %zu): pc: warp 0 has no path from after 0x0060 to 0x00e0 "
                     "'STG.E' that passes no unpredicated instrumented instruction without a "
                     "record", b.off[4]);
}

/* ---------- round trip on the validation kernels ----------
 * For each case of validate/traces (the b1 point), the native trace's warps
 * of the first blocks stand in for the GPU: a record for every instrumented
 * instruction they execute (conv_events_kinds), per-PC counts of those
 * warps as the `pc,count` file.  The reconstruction from the records, the
 * counts and the case's real SASS listing must give back every warp's
 * stream exactly (the native traces' control flow is per warp, with all
 * lanes active: no predicated-off instructions arise). */

struct dynbuf {
    unsigned char *d;
    size_t n, cap;
};

static void dput(struct dynbuf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 4096;
        b->d = realloc(b->d, b->cap);
        assert_non_null(b->d);
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void roundtrip(const char *trace, uint32_t nblocks, int use_counts, const char *ncu_csv)
{
    char err[TRACE_ERR_MAX];
    FILE *f = fopen(trace, "r");
    assert_non_null(f);
    char line[1024], sass[512], fn[256];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_int_equal(sscanf(line, "# Generated by `smsim sass2trace` from %511[^,], function %255s",
                            sass, fn), 2);
    struct trace_file *t = trace_open(trace, err);
    if (!t)
        fail_msg("%s", err);
    struct trace_kernel *k = t->kernels[0];
    const struct tr_launch *l = &k->launch;
    uint32_t wpb = tr_warps_per_block(l);
    uint64_t blocks = tr_grid_blocks(l);
    if (nblocks > blocks)
        nblocks = (uint32_t)blocks;
    /* the original streams, the records, the counts */
    uint32_t nw = nblocks * wpb;
    uint32_t **orig = calloc(nw, sizeof *orig);
    size_t *olen = calloc(nw, sizeof *olen);
    uint64_t counts[4096] = {0};
    struct dynbuf recs = {0};
    uint64_t nrec = 0;
    for (uint32_t w = 0; w < nw; w++) {
        struct tr_cursor c;
        assert_int_equal(k->ops->warp_begin(k, w / wpb, w % wpb, &c), 0);
        const struct tr_inst *in;
        size_t cap = 0;
        while ((in = k->ops->warp_next(k, &c, NULL))) {
            assert_true(in->has_pc && in->pc / 16 < 4096);
            if (olen[w] == cap) {
                cap = cap * 2 + 1024;
                orig[w] = realloc(orig[w], cap * sizeof **orig);
            }
            orig[w][olen[w]++] = in->pc;
            counts[in->pc / 16]++;
            unsigned kinds = conv_events_kinds(in->opcode);
            if (!kinds)
                continue;
            int kind = __builtin_ctz(kinds);
            int mem = kind == 3 || kind == 4 || kind == 5 || kind == 14;
            unsigned char r[16];
            uint32_t v[4] = {w, (uint32_t)kind | (mem ? 4u << 8 : 0), in->pc, ~0u};
            for (int q = 0; q < 4; q++)
                for (int y = 0; y < 4; y++)
                    r[4 * q + y] = (unsigned char)(v[q] >> (8 * y));
            dput(&recs, r, 16);
            if (mem)
                for (int lane = 0; lane < 32; lane++) {
                    uint64_t a = 0x10000000ull + 128ull * w + 4ull * (uint64_t)lane;
                    dput(&recs, &a, 8); /* little-endian host (x86-64, arm64) */
                }
            nrec++;
        }
        if (k->ops->warp_end)
            k->ops->warp_end(k, &c);
    }
    char ev[160], cnt[160], out[160], hdr[2048];
    snprintf(ev, sizeof ev, "%s/rt.smev", dir);
    snprintf(cnt, sizeof cnt, "%s/rt.counts", dir);
    snprintf(out, sizeof out, "%s/rt", dir);
    int hn = snprintf(hdr, sizeof hdr,
                      "smev version = 1\nkernel = %s\nmodule = module-0.cubin\ngrid = %u,%u,%u\n"
                      "block = %u,%u,%u\nnregs = %d\nshmem static = %d\nshmem dynamic = %d\n"
                      "launch = 0\nsampled blocks = 0:%u\nrecords = %llu\noverflow = 0\n"
                      "pc base = 0x0\n#events\n", fn, l->grid[0], l->grid[1], l->grid[2],
                      l->block[0], l->block[1], l->block[2], l->regs, l->smem_static,
                      l->smem_dynamic, nblocks, (unsigned long long)nrec);
    f = fopen(ev, "wb");
    assert_non_null(f);
    fwrite(hdr, 1, (size_t)hn, f);
    fwrite(recs.d, 1, recs.n, f);
    fclose(f);
    f = fopen(cnt, "w");
    fprintf(f, "pc,count\n");
    for (int i = 0; i < 4096; i++)
        if (counts[i])
            fprintf(f, "0x%04x,%llu\n", i * 16, (unsigned long long)counts[i]);
    fclose(f);
    trace_close(t);
    free(recs.d);
    struct conv_events_opts o = {.events_path = ev, .sass_path = sass,
                                 .counts_path = ncu_csv ? ncu_csv : use_counts ? cnt : NULL,
                                 .out_dir = out};
    struct conv_events_stats st;
    if (conv_events_convert(&o, &st, err))
        fail_msg("%s: %s", trace, err);
    char list[200];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    t = trace_open(list, err);
    if (!t)
        fail_msg("%s", err);
    k = t->kernels[0];
    for (uint32_t w = 0; w < nw; w++) {
        struct tr_cursor c;
        assert_int_equal(k->ops->warp_begin(k, w / wpb, w % wpb, &c), 0);
        const struct tr_inst *in;
        size_t j = 0;
        while ((in = k->ops->warp_next(k, &c, NULL))) {
            if (j >= olen[w] || in->pc != orig[w][j])
                fail_msg("%s: warp %u: instruction %zu is 0x%04x, the original's 0x%04x", trace,
                         w, j, in->pc, j < olen[w] ? orig[w][j] : 0);
            j++;
        }
        if (j != olen[w])
            fail_msg("%s: warp %u: %zu instructions, the original has %zu", trace, w, j, olen[w]);
        if (k->ops->warp_end)
            k->ops->warp_end(k, &c);
        free(orig[w]);
    }
    print_message("  %s%s: %u warps, %llu warp-instructions, %llu records, %llu ambiguous "
                  "(%llu by counts): identical\n", trace,
                  ncu_csv ? " (ncu's counts)" : use_counts ? "" : " (no counts)", nw, (unsigned long long)st.insts,
                  (unsigned long long)st.records, (unsigned long long)st.ambiguous,
                  (unsigned long long)st.by_counts);
    trace_close(t);
    free(orig);
    free(olen);
}

/* The listing reader (conv_sass_listing_read, sass2trace's parser): its path
 * is the branches' alone, counts or not (code the counts show executing 0
 * times stays reachable: the recording says where each warp went); a CALL
 * continues after itself (callee not followed) and is an error only without
 * calls_skipped; a reachable RET is an error.  offpath.sass: 0x0030 @P0 BRA
 * 0x80 over 0x40..0x70 with the CALL.REL.NOINC 0x130 at 0x0060, the callee
 * 0x130..0x140 (RET) after the last EXIT; offpath.csv counts 0x40..0x70 0
 * times.  Mutation checks: the reader's walk pruned by the counts (.whole =
 * 0 in conv_sass_listing_read) fails the 0x0040 reach assertion with the
 * counts; a CALL not continuing after itself (succ_of) fails the 0x0070 one
 * (and cli_sass2trace_infer, cli_sass2trace_offpath). */
static void test_listing_path(void **state)
{
    (void)state;
    const char *sass = "tests/data/sass/offpath.sass";
    char err[TRACE_ERR_MAX];
    struct conv_sass_listing l;
    struct conv_sass_opts so;
    memset(&so, 0, sizeof so);
    so.sass_path = sass;
    so.kernel_name = "_Z7offpathPfii";
    so.calls_skipped = 1;
    for (int counted = 0; counted <= 1; counted++) {
        so.counts_path = counted ? "tests/data/sass/offpath.csv" : NULL;
        assert_int_equal(conv_sass_listing_read(&so, &l, err), 0);
        assert_true(l.n >= 0x17);
        assert_int_equal(l.in[0x6].flow, CONV_SASS_CALL);
        assert_int_equal(l.in[0x4].reach, 1);
        assert_int_equal(l.in[0x6].reach, 1);
        assert_int_equal(l.in[0x7].reach, 1);
        assert_int_equal(l.in[0x13].reach, 0); /* the callee */
        assert_int_equal(l.in[0x14].reach, 0); /* its RET */
        assert_int_equal(l.in[0x15].reach, 0); /* the BRA to itself */
        uint32_t s[2];
        assert_int_equal(conv_sass_succ(&l, 0x6, s), 1);
        assert_int_equal(s[0], 0x7);
        assert_int_equal(conv_sass_succ(&l, 0x14, s), 0);
        assert_int_equal(l.in[0x6].count, counted ? 0 : -1);
        assert_int_equal(l.warps, counted ? 8 : 0);
        conv_sass_listing_free(&l);
    }
    so.counts_path = NULL;
    so.calls_skipped = 0;
    assert_int_equal(conv_sass_listing_read(&so, &l, err), -1);
    assert_string_equal(err, "tests/data/sass/offpath.sass:24:38: unsupported control flow "
                             "'CALL.REL.NOINC' at 0x0060 (calls, returns and indirect jumps are "
                             "not converted)");
    char path[128];
    snprintf(path, sizeof path, "%s/ret.sass", dir);
    static const char ret_sass[] =
        "\tcode for sm_90\n"
        "\t\tFunction : _Z3retv\n"
        "        /*0000*/                    S2R R0, SR_TID.X ;\n"
        "        /*0010*/                    RET.REL.NODEC R20 0x0 ;\n"
        "        /*0020*/                    EXIT ;\n";
    write_file(path, (const unsigned char *)ret_sass, sizeof ret_sass - 1);
    so.sass_path = path;
    so.kernel_name = "_Z3retv";
    so.calls_skipped = 1;
    assert_int_equal(conv_sass_listing_read(&so, &l, err), -1);
    assert_non_null(strstr(err, ":4:37: unsupported control flow 'RET.REL.NODEC' at 0x0010 "));
}

static void test_roundtrip_validation(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "copy", "dchain-k0", "dchain-k16", "dchain-k4", "ffma-ilp1", "ffma-ilp2", "ffma-ilp4",
        "reduce", "seed32x12k", "sgemm", "smem-tile", "stencil-reuse-t4k", "stencil-reuse-t8k",
        "stencil5", "vecadd"};
    /* without counts, the cases whose records leave no choice */
    static const char *const exact[] = {
        "copy", "dchain-k0", "dchain-k16", "dchain-k4", "reduce", "seed32x12k", "sgemm",
        "smem-tile", "stencil5", "vecadd"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char p[256] = "";
        for (int b = 1; b <= 32 && (!p[0] || access(p, R_OK)); b++)
            snprintf(p, sizeof p, "validate/traces/%s/b%d.trace", cases[i], b);
        if (access(p, R_OK))
            fail_msg("validate/traces/%s: no trace", cases[i]);
        roundtrip(p, 2, 1, NULL);
        for (size_t j = 0; j < sizeof exact / sizeof *exact; j++)
            if (!strcmp(exact[j], cases[i]))
                roundtrip(p, 2, 0, NULL);
    }
    /* ncu's own SourceCounters exports (another launch: 4 blocks per SM) serve
     * as well: the trips are per warp */
    static const char *const measured[] = {"ffma-ilp1", "dchain-k4", "smem-tile", "sgemm"};
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++) {
        char p[256], csv[256];
        snprintf(p, sizeof p, "validate/traces/%s/b1.trace", measured[i]);
        snprintf(csv, sizeof csv, "validate/data/h200/kit-2026-11-29/source/%s-b4.sass.csv",
                 measured[i]);
        roundtrip(p, 2, 1, csv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reconstruct),
        cmocka_unit_test(test_counts_decide_loop),
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_partial_exit),
        cmocka_unit_test(test_sampled),
        cmocka_unit_test(test_roundtrip_validation),
        cmocka_unit_test(test_listing_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
