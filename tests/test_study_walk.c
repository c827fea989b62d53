/* test_study_walk.c — saturate's one-warp walk (study_little_walk) and the
 * engine must agree: the walk uses the engine's own rules (eng_pipe.h,
 * eng_fetch.h, mem_level_p, tr_reg_real) rather than copies, and here both
 * run one warp of every sample trace.  Where the walk's expected latencies
 * are exact (no global memory: pipes, shared memory, branches, barriers of
 * one warp) the engine must issue the same instructions in exactly the
 * walk's cycles plus the fetch of the first instruction; with global memory
 * the engine adds only what the walk leaves out on purpose (the bandwidth
 * servers' time for an access's own bytes and rounding, a few cycles per
 * access, and the last accesses' drain), so its cycles lie within a small
 * bound above the walk's.  A walk whose pipe, latency, branch or memory
 * rule differed from the engine's falls outside (checked by hand: the
 * walk's FMA issue interval one more fails on ffma_ilp1; an L1 capacity of
 * 0 fails on tests/data/study/l1_reuse.trace; per-line charges left out
 * fail on load_chain).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "arch/arch.h"
#include "engine/engine.h"
#include "mem/mem.h"
#include "study/study.h"
#include "trace/trace.h"

/* One warp of a kernel: block 0, warp 0 of `inner`, launched alone. */
struct one_warp {
    struct trace_kernel k;
    struct trace_kernel *inner;
};

static int ow_begin(struct trace_kernel *k, uint32_t b, uint32_t w, struct tr_cursor *c)
{
    struct trace_kernel *in = ((struct one_warp *)k)->inner;
    (void)b, (void)w;
    int rc = in->ops->warp_begin(in, 0, 0, c);
    k->error = in->error;
    return rc;
}

static const struct tr_inst *ow_next(struct trace_kernel *k, struct tr_cursor *c,
                                     struct tr_dyn *d)
{
    struct trace_kernel *in = ((struct one_warp *)k)->inner;
    return in->ops->warp_next(in, c, d);
}

static void ow_end(struct trace_kernel *k, struct tr_cursor *c)
{
    struct trace_kernel *in = ((struct one_warp *)k)->inner;
    if (in->ops->warp_end)
        in->ops->warp_end(in, c);
}

static const struct trace_ops ow_ops = {.warp_begin = ow_begin, .warp_next = ow_next,
                                        .warp_end = ow_end, .destroy = NULL};

static void one_warp(struct one_warp *o, struct trace_kernel *inner)
{
    memset(o, 0, sizeof *o);
    o->inner = inner;
    o->k.ops = &ow_ops;
    o->k.launch = inner->launch;
    for (int i = 0; i < 3; i++)
        o->k.launch.grid[i] = o->k.launch.block[i] = 1;
    o->k.launch.block[0] = 32;
}

/* Global-memory instructions in the warp's stream; *slack: the cycles
 * the engine may add to them beyond the walk's unloaded latencies. */
static int global_mem(const struct arch *a, struct trace_kernel *k, double *slack)
{
    *slack = 0;
    struct tr_cursor c;
    memset(&c, 0, sizeof c);
    int n = 0;
    if (k->ops->warp_begin(k, 0, 0, &c) != 0)
        return -1;
    struct tr_dyn d;
    const struct tr_inst *in;
    while ((in = k->ops->warp_next(k, &c, &d)) != NULL) {
        if ((in->kind != TR_K_LOAD && in->kind != TR_K_STORE && in->kind != TR_K_ATOMIC) ||
            in->space == TR_SP_SHARED || in->space == TR_SP_CONST)
            continue;
        n++;
        double bytes = (double)mem_shape(a, in, &d, NULL) * a->sector_bytes;
        /* the servers' time for its bytes at each level, and rounding at
         * two stages (the per-line charges are in the walk too) */
        *slack += bytes / a->l1_bytes_per_clk + bytes / a->l2_bytes_per_clk +
                  bytes / arch_dram_bytes_per_clk(a) + 2;
    }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    return n;
}

static void check_trace(const struct arch *a, const char *path)
{
    char err[TRACE_ERR_MAX];
    struct trace_file *tf = trace_open(path, err);
    if (!tf)
        fail_msg("%s", err);
    struct one_warp ow;
    one_warp(&ow, tf->kernels[0]);
    double mslack;
    int nmem = global_mem(a, &ow.k, &mslack);
    assert_true(nmem >= 0);

    struct study_little lw;
    char serr[STUDY_ERR_MAX];
    assert_int_equal(study_little_walk(a, &ow.k, UINT64_MAX, &lw, serr), 0);

    struct engine_opts o;
    memset(&o, 0, sizeof o);
    o.carveout_pct = -1;
    o.seed = 0; /* the walk draws with seed 0: the same DRAM latency draws */
    struct stats_kernel st;
    char eerr[512];
    if (engine_run(a, &ow.k, &o, &st, eerr) != 0)
        fail_msg("%s: %s", path, eerr);
    uint64_t issued = 0;
    for (int i = 0; i < a->sm_count * a->subpartitions; i++)
        issued += st.smsp[i].inst_issued;
    /* The engine's lone warp (eng_disp.h): its block starts at launch_start,
     * its first instruction is in after max(fetch_latency, icache_cold), the
     * walk's cycles follow; then the dispatcher takes the block back
     * (dispatch_retire, the cycle rounded up) and the kernel ends
     * launch_drain later. */
    uint64_t fetch = (uint64_t)(a->fetch_latency > 0 ? a->fetch_latency : 0);
    if ((uint64_t)a->icache_cold > fetch)
        fetch = (uint64_t)a->icache_cold;
    uint64_t want = (uint64_t)a->launch_start + fetch + lw.cycles +
                    (uint64_t)ceil(a->dispatch_retire) + (uint64_t)a->launch_drain;
    printf("%-40s insts %6llu walk %8llu + fetch %llu, engine %8llu, global memory %d, "
           "slack %.0f\n", path, (unsigned long long)lw.insts, (unsigned long long)lw.cycles,
           (unsigned long long)fetch, (unsigned long long)st.cycles_elapsed, nmem, mslack);
    assert_int_equal(issued, lw.insts);
    if (nmem == 0) {
        assert_int_equal(st.cycles_elapsed, want);
    } else {
        /* the servers and per-line charges (mslack), and at the end the
         * last accesses' drain */
        uint64_t slack = (uint64_t)mslack + (uint64_t)a->dram_latency;
        assert_true(st.cycles_elapsed >= want);
        assert_true(st.cycles_elapsed <= want + slack);
    }
    stats_kernel_free(&st);
    trace_close(tf);
}

static void walk_agrees_with_engine(void **state)
{
    (void)state;
    static const char *const traces[] = {
        "traces/ffma_ilp1.trace", "traces/ffma_ilp4.trace", "traces/gemm_tile.trace",
        "traces/load_chain.trace", "traces/copy_float4.trace", "traces/smem_tile.trace",
        "traces/spmv_ragged.trace", "traces/vecadd.trace", "traces/two_kernels.trace",
        "traces/seeds_32x12k.trace", "traces/seeds/chain416_n4.trace",
        "traces/seeds/gemm_small.trace", "traces/seeds/copy1_3060ti_grid.trace",
        "tests/data/study/l1_reuse.trace",
    };
    for (size_t c = 0; c < 2; c++) {
        struct arch a;
        char aerr[512];
        const char *cfg = c ? "configs/h200.yaml" : "configs/h100.yaml";
        if (arch_load(cfg, NULL, 0, &a, aerr) != 0)
            fail_msg("%s", aerr);
        /* the walk has no instruction or constant caches (docs/model.md
         * "Front end"): held to the engine without them */
        a.icache_l0_bytes = 0;
        a.const_l0_bytes = 0;
        for (size_t i = 0; i < sizeof traces / sizeof *traces; i++)
            check_trace(&a, traces[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_agrees_with_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
