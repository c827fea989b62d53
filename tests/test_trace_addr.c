/* test_trace_addr.c — per-lane addresses of native traces (issue #17):
 * addr=EXPR with block, warp and loop indices, the lane rule
 * (tr_lane_addrs: coalesced, strided, broadcast, random), the footprint
 * shorthand (regions, array=, grid-stride wrap), the fast path of tr_next
 * stopping before an instruction with addresses, and the parse errors.
 * Every expected address below is worked out by hand from the rule in
 * docs/trace-format.md ("Addresses").
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "trace/trace.h"
#include "trace/trace_native.h"

#define TIB (UINT64_C(1) << 40)

static struct trace_file *open_text(const char *text)
{
    struct trace_file *t = calloc(1, sizeof *t);
    assert_non_null(t);
    char err[TRACE_ERR_MAX] = "";
    if (trace_native_open_mem("addr.trace", text, strlen(text), t, err))
        fail_msg("%s", err);
    return t;
}

/* One dynamic instance as the engine sees it. */
struct inst_rec {
    const struct tr_inst *in;
    uint32_t naddr;
    uint64_t addr[32];
};

/* Walk (block, warp) through tr_next, as the engine does, recording up to
 * max instances; returns how many. */
static int walk(struct trace_kernel *k, uint32_t block, uint32_t warp, struct inst_rec *r,
                int max)
{
    struct tr_cursor c;
    memset(&c, 0, sizeof c);
    assert_int_equal(k->ops->warp_begin(k, block, warp, &c), 0);
    struct tr_dyn d;
    const struct tr_inst *in;
    int n = 0;
    while ((in = tr_next(k, &c, &d)) != NULL) {
        assert_true(n < max);
        r[n].in = in;
        r[n].naddr = d.naddr;
        if (d.naddr) {
            assert_ptr_equal(d.addr, c.addr); /* the cursor's own buffer */
            memcpy(r[n].addr, d.addr, d.naddr * sizeof d.addr[0]);
        }
        n++;
    }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    return n;
}

/* 4 blocks of 2 warps; per warp 3 x (2 x 3 + 1) + 1 = 22 instances. */
static const char loops_text[] =
    "kernel k grid=(4,1,1) block=(64,1,1) regs=16 {\n"
    "  loop 3 {\n"
    "    loop 2 {\n"
    "      LDG.E R2, [R4.64] addr=0x100000+block*4096+warp*512+i0*65536+i1*128\n"
    "      STG.E.64 [R4.64], R2 stride=256 addr=bx*16+i1\n"
    "      LDG.E.128 R8, [R4.64] pattern=broadcast addr=0x2000+i0 mask=0xf0\n"
    "    }\n"
    "    LDG.E R2, [R4.64] mask=0x80000001 addr=0x40+i0*4\n"
    "  }\n"
    "  EXIT\n"
    "}\n";

static void test_expr_lanes(void **state)
{
    (void)state;
    struct trace_file *t = open_text(loops_text);
    struct trace_kernel *k = t->kernels[0];
    struct inst_rec r[32];
    int n = walk(k, 2, 1, r, 32);
    assert_int_equal(n, 22);
    for (int i0 = 0; i0 < 3; i0++) {
        for (int i1 = 0; i1 < 2; i1++) {
            const struct inst_rec *ld = &r[i0 * 7 + i1 * 3];
            const struct inst_rec *st = ld + 1, *bc = ld + 2;
            /* coalesced 4-byte lanes: block 2, warp 1 */
            uint64_t a0 = 0x100000 + 2 * 4096 + 512 + (uint64_t)i0 * 65536 + (uint64_t)i1 * 128;
            assert_int_equal(ld->naddr, 32);
            for (int l = 0; l < 32; l++)
                assert_int_equal(ld->addr[l], a0 + 4 * (uint64_t)l);
            /* strided by 256 from bx*16 + i1 (bx = 2) */
            assert_int_equal(st->naddr, 32);
            for (int l = 0; l < 32; l++)
                assert_int_equal(st->addr[l], 32 + (uint64_t)i1 + 256 * (uint64_t)l);
            /* broadcast, lanes 4..7 active: four copies of one address */
            assert_int_equal(bc->naddr, 4);
            for (int l = 0; l < 4; l++)
                assert_int_equal(bc->addr[l], 0x2000 + (uint64_t)i0);
        }
        /* lanes 0 and 31 active: lane 31 keeps its place (+31 x 4) */
        const struct inst_rec *e = &r[i0 * 7 + 6];
        assert_int_equal(e->naddr, 2);
        assert_int_equal(e->addr[0], 0x40 + 4 * (uint64_t)i0);
        assert_int_equal(e->addr[1], 0x40 + 4 * (uint64_t)i0 + 31 * 4);
    }
    assert_int_equal(r[21].naddr, 0); /* EXIT */
    trace_close(t);
}

/* The rule itself, as other readers and tools call it. */
static void test_lane_rule(void **state)
{
    (void)state;
    struct tr_inst in;
    memset(&in, 0, sizeof in);
    uint64_t out[32];
    in.width = 8;
    in.pattern = TR_PAT_COALESCED;
    assert_int_equal(tr_lane_addrs(&in, 1000, 0, 0, 0x5, out), 2);
    assert_int_equal(out[0], 1000);
    assert_int_equal(out[1], 1016); /* lane 2 */
    in.pattern = TR_PAT_STRIDED;
    in.stride = 100;
    assert_int_equal(tr_lane_addrs(&in, 7, 0, 0, 0x80000000u, out), 1);
    assert_int_equal(out[0], 7 + 3100);
    in.pattern = TR_PAT_ADDRESSES;
    assert_int_equal(tr_lane_addrs(&in, 7, 0, 0, 0xffffffffu, out), 0);
    in.width = 0; /* unset width: 4 bytes */
    in.pattern = TR_PAT_COALESCED;
    assert_int_equal(tr_lane_addrs(&in, 0, 0, 0, 0xffffffffu, out), 32);
    assert_int_equal(out[31], 124);
    /* random: width-aligned in [a0, a0 + range); a range below the width
     * leaves one slot, a0 */
    in.pattern = TR_PAT_RANDOM;
    in.width = 16;
    assert_int_equal(tr_lane_addrs(&in, 48, 8, 12345, 0xffffffffu, out), 32);
    for (int l = 0; l < 32; l++)
        assert_int_equal(out[l], 48);
    assert_int_equal(tr_lane_addrs(&in, 48, 1 << 20, 12345, 0xffffffffu, out), 32);
    int distinct = 0;
    for (int l = 0; l < 32; l++) {
        assert_true(out[l] >= 48 && out[l] < 48 + (1 << 20));
        assert_int_equal((out[l] - 48) % 16, 0);
        distinct += l > 0 && out[l] != out[l - 1];
    }
    assert_true(distinct > 25);
    assert_true(tr_addr_key(0, 1, 0) != tr_addr_key(1, 0, 0));
    assert_true(tr_addr_key(0, 0, 1) != tr_addr_key(0, 0, 2));
}

/* Random lanes: in range, aligned, and the same whoever walks the warps in
 * whatever order (no state shared between cursors). */
static const char random_text[] =
    "kernel r grid=(3,1,1) block=(64,1,1) regs=16 {\n"
    "  loop 4 {\n"
    "    LDG.E.64 R2, [R4.64] pattern=random footprint=4K addr=1M+block*8K\n"
    "    LDG.E R2, [R4.64] pattern=random footprint=64K\n"
    "  }\n"
    "  EXIT\n"
    "}\n";

static void test_random(void **state)
{
    (void)state;
    struct trace_file *t = open_text(random_text), *u = open_text(random_text);
    static struct inst_rec a[6][16], b[6][16];
    int na[6], nb[6];
    for (int w = 0; w < 6; w++) /* forward on one kernel, backward on the other */
        na[w] = walk(t->kernels[0], (uint32_t)w / 2, (uint32_t)w % 2, a[w], 16);
    for (int w = 5; w >= 0; w--)
        nb[w] = walk(u->kernels[0], (uint32_t)w / 2, (uint32_t)w % 2, b[w], 16);
    for (int w = 0; w < 6; w++) {
        assert_int_equal(na[w], 9);
        assert_int_equal(nb[w], 9);
        uint64_t lo = (1u << 20) + (uint64_t)(w / 2) * 8192;
        for (int i = 0; i < 9; i++) {
            assert_int_equal(a[w][i].naddr, b[w][i].naddr);
            assert_memory_equal(a[w][i].addr, b[w][i].addr, a[w][i].naddr * sizeof(uint64_t));
        }
        for (int it = 0; it < 4; it++) {
            const struct inst_rec *x = &a[w][2 * it], *y = x + 1;
            assert_int_equal(x->naddr, 32);
            assert_int_equal(y->naddr, 32);
            for (int l = 0; l < 32; l++) {
                assert_true(x->addr[l] >= lo && x->addr[l] < lo + 4096);
                assert_int_equal(x->addr[l] % 8, 0);
                /* footprint shorthand: the kernel's first region, at 1 TiB
                 * (an addr= instruction takes none) */
                assert_true(y->addr[l] >= TIB && y->addr[l] < TIB + 65536);
                assert_int_equal(y->addr[l] % 4, 0);
            }
        }
        /* two trips of one warp draw differently */
        assert_memory_not_equal(a[w][0].addr, a[w][2].addr, 32 * sizeof(uint64_t));
    }
    /* two warps draw differently */
    assert_memory_not_equal(a[0][0].addr, a[1][0].addr, 32 * sizeof(uint64_t));
    trace_close(t);
    trace_close(u);
}

/* The footprint shorthand: grid-stride positions wrapping at the region's
 * end, regions 1 TiB apart, array= sharing one region. */
static const char foot_text[] =
    "kernel f grid=(2,1,1) block=(32,1,1) regs=16 {\n"
    "  loop 5 {\n"
    "    loop 2 {\n"
    "      LDG.E R2, [R4.64] footprint=1K\n"
    "    }\n"
    "    LDG.E.64 R2, [R4.64] footprint=8K array=A\n"
    "    STG.E [R4.64], R2 stride=64 footprint=4K array=A\n"
    "    LDG.E R2, [R4.64] pattern=broadcast footprint=12\n"
    "    LDS R2, [R4] footprint=1K\n"
    "    LDG.E R2, [R4.64]\n"
    "  }\n"
    "  EXIT\n"
    "}\n";

static void test_footprint(void **state)
{
    (void)state;
    struct trace_file *t = open_text(foot_text);
    struct inst_rec r[48];
    for (uint32_t g = 0; g < 2; g++) { /* 2 warps in the grid: W = 2, g = block */
        int n = walk(t->kernels[0], g, 0, r, 48);
        assert_int_equal(n, 5 * 7 + 1);
        for (uint64_t i0 = 0; i0 < 5; i0++) {
            const struct inst_rec *x = &r[i0 * 7];
            for (uint64_t i1 = 0; i1 < 2; i1++) {
                /* region 0 at 1 TiB; span 32 x 4 = 128 bytes, 1K / 128 = 8
                 * positions; instance k = i0*2 + i1, position (k*2 + g) % 8 */
                uint64_t k = i0 * 2 + i1, pos = (k * 2 + g) % 8;
                assert_int_equal(x[i1].naddr, 32);
                assert_int_equal(x[i1].addr[0], TIB + pos * 128);
                assert_int_equal(x[i1].addr[31], TIB + pos * 128 + 124);
            }
            /* array A = region 1 (2 TiB): 8-byte lanes, span 256, 32
             * positions; instance k = i0 */
            assert_int_equal(x[2].addr[0], 2 * TIB + ((i0 * 2 + g) % 32) * 256);
            /* the same region, strided 64: span 32 x 64 = 2K, 2 positions */
            assert_int_equal(x[3].addr[0], 2 * TIB + ((i0 * 2 + g) % 2) * 2048);
            assert_int_equal(x[3].addr[1], x[3].addr[0] + 64);
            /* region 2 (3 TiB): broadcast, span 4, 12 / 4 = 3 positions */
            assert_int_equal(x[4].naddr, 32);
            assert_int_equal(x[4].addr[0], 3 * TIB + ((i0 * 2 + g) % 3) * 4);
            assert_int_equal(x[4].addr[31], x[4].addr[0]);
            assert_int_equal(x[5].naddr, 0); /* shared memory: no addresses */
            assert_int_equal(x[6].naddr, 0); /* neither addr= nor footprint */
        }
    }
    trace_close(t);
}

/* tr_next's straight-line run stops before an instruction with addresses
 * (the fast path fills none), and resumes after it. */
static void test_run_stops(void **state)
{
    (void)state;
    struct trace_file *t = open_text("kernel s grid=1 block=32 regs=16 {\n"
                                     "  IADD3 R1, R1, 1, RZ\n"
                                     "  IADD3 R1, R1, 1, RZ\n"
                                     "  LDG.E R2, [R4.64] addr=warp+64\n"
                                     "  IADD3 R1, R1, 1, RZ\n"
                                     "  STG.E [R4.64], R2 addr=128\n"
                                     "  EXIT\n"
                                     "}\n");
    struct inst_rec r[8];
    assert_int_equal(walk(t->kernels[0], 0, 0, r, 8), 6);
    assert_int_equal(r[2].naddr, 32);
    assert_int_equal(r[2].addr[0], 64);
    assert_int_equal(r[4].naddr, 32);
    assert_int_equal(r[4].addr[1], 132);
    assert_int_equal(r[0].naddr + r[1].naddr + r[3].naddr + r[5].naddr, 0);
    trace_close(t);
}

static void expect_error(const char *body, const char *want)
{
    char text[1024];
    snprintf(text, sizeof text, "kernel e grid=2 block=64 regs=8 {\n  loop 2 {\n%s\n  }\n"
                                "  EXIT\n}\n", body);
    struct trace_file *t = calloc(1, sizeof *t);
    assert_non_null(t);
    char err[TRACE_ERR_MAX] = "";
    assert_int_equal(trace_native_open_mem("e.trace", text, strlen(text), t, err), -1);
    assert_string_equal(err, want);
    trace_close(t);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("    LDG.E R2, [R4.64] addr=i1",
                 "e.trace:3:28: attribute 'addr': loop index 'i1' out of scope: this "
                 "instruction is inside 1 loop (i0)");
    expect_error("    LDG.E R2, [R4.64] addr=block+",
                 "e.trace:3:34: attribute 'addr': expected an expression");
    expect_error("    LDG.E R2, [R4.64] addr=block*4 +1",
                 "e.trace:3:36: unexpected '+1' after the operands (attributes are key=value)");
    expect_error("    LDG.E R2, [R4.64] addr=lane",
                 "e.trace:3:28: attribute 'addr': unknown name 'lane' in expression (expected "
                 "block, warp, bx, by, bz, blocks, warps, gx, gy, gz, min, max, i0..i7)");
    expect_error("    LDS R2, [R4] addr=0",
                 "e.trace:3:18: attribute 'addr' applies only to global and local memory "
                 "instructions (LDG, STG, LD, ST, ATOM, RED, LDL, STL, ...)");
    expect_error("    LDG.E R2, [R4.64] pattern=random addr=0",
                 "e.trace:3:38: pattern=random with addr= needs footprint=BYTES (the range "
                 "[addr, addr+footprint) the lanes draw from)");
    expect_error("    LDG.E R2, [R4.64] array=A",
                 "e.trace:3:23: attribute 'array' needs footprint=BYTES (the region's size)");
    expect_error("    LDG.E R2, [R4.64] addr=0 footprint=1K array=A",
                 "e.trace:3:43: attribute 'array' names the region of a footprint without "
                 "addr= (addr= gives the addresses itself)");
    expect_error("    LDG.E R2, [R4.64] footprint=1K array=a-b",
                 "e.trace:3:42: bad array name 'a-b' (letters, digits and _)");
    /* loop indices only in addr=: not in trip counts or conditions */
    expect_error("    loop i0 {\n      NOP\n    }",
                 "e.trace:3:10: loop index 'i0' out of scope: no enclosing loop here (i0..i7 "
                 "name the trips of an instruction's enclosing loops, in addr= only)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expr_lanes),
        cmocka_unit_test(test_lane_rule),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_footprint),
        cmocka_unit_test(test_run_stops),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
