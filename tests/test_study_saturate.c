/* test_study_saturate.c — saturation points of synthetic traces with known
 * answers (tests/data/study), through the same library calls as
 * `smsim saturate`: a blocks-per-SM sweep, study_saturation(), and the
 * Little's-law walk of a lone warp.
 *
 *  - dependent FFMA chain, latency 4, interval 1: 4 warps per scheduler;
 *  - four interleaved chains (ILP 4): 1 warp per scheduler;
 *  - L1-hit pointer chase, latency L = 32, n = 4 instructions per load:
 *    L / n = 8 warps per scheduler.
 * Each trace has one warp per scheduler per block (128 threads) on 2 SMs.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "study/study.h"

#define CFG SMSIM_SOURCE_DIR "/configs/h100.yaml"
#define DATA SMSIM_SOURCE_DIR "/tests/data/study/"

struct result {
    double sat_per_sched;     /* saturation, warps per scheduler   */
    double little_per_sched;  /* Little's law, warps per scheduler */
    int dominant;             /* hidden latency class              */
    int decline;              /* peak then decline                 */
    int sched;                /* schedulers per SM                 */
};

static void saturate(const char *trace, const char *const *sets, int nsets, struct result *out)
{
    struct arch_override ov[16];
    for (int i = 0; i < nsets; i++)
        ov[i].text = sets[i];
    struct arch a;
    char aerr[ARCH_ERR_MAX];
    assert_int_equal(arch_load(CFG, ov, nsets, &a, aerr), 0);
    char terr[TRACE_ERR_MAX];
    struct trace_file *tf = trace_open(trace, terr);
    assert_non_null(tf);
    struct study_little lw;
    char err[STUDY_ERR_MAX];
    assert_int_equal(study_little_walk(&a, tf->kernels[0], 1000000, &lw, err), 0);
    trace_close(tf);

    enum { B = 16 }; /* H100: 64 warps / 4 per block */
    struct study_var v;
    assert_int_equal(study_parse_vary("launch.blocks_per_sm=1:16:1", &v, err), 0);
    struct study_plan p = { CFG, trace, 0, ov, nsets, &v, 1, 1, -1, 0, 0, NULL };
    struct study_table t;
    assert_int_equal(study_run(&p, 2, 0, &t, err), 0);
    int col = study_table_metric(&t, "sm__inst_executed.avg.per_cycle_active");
    assert_true(col >= 0);
    double x[B], y[B], peak = 0;
    for (int i = 0; i < B; i++) {
        x[i] = (i + 1) * 4.0;
        y[i] = t.m[i * t.nmetrics + col];
        if (y[i] > peak)
            peak = y[i];
    }
    struct study_sat s;
    assert_int_equal(study_saturation(x, y, B, 0.95, 0.02, &s), 0);
    out->sched = a.subpartitions;
    out->sat_per_sched = x[s.sat] / a.subpartitions;
    out->little_per_sched = study_little_warps(&lw, peak / a.subpartitions);
    out->dominant = lw.dominant;
    out->decline = s.decline;
    study_table_free(&t);
    study_var_free(&v);
}

static const char *const fma4[] = { "gpu.sm_count=2", "pipes.fma.latency=4",
                                    "pipes.fma.issue_interval=1" };

static void test_ffma_ilp1(void **state)
{
    (void)state;
    struct result r;
    saturate(DATA "ffma_ilp1.trace", fma4, 3, &r);
    assert_int_equal(r.sched, 4);
    assert_true(r.sat_per_sched == 4.0);
    assert_true(fabs(r.little_per_sched - 4.0) < 0.05);
    assert_int_equal(r.dominant, SL_FMA);
    assert_int_equal(r.decline, 0);
}

static void test_ffma_ilp4(void **state)
{
    (void)state;
    struct result r;
    saturate(DATA "ffma_ilp4.trace", fma4, 3, &r);
    assert_true(r.sat_per_sched == 1.0);
    assert_true(fabs(r.little_per_sched - 1.0) < 0.05);
    assert_int_equal(r.dominant, SL_FMA);
}

static void test_ffma_latency8(void **state)
{
    (void)state;
    /* the same chain with latency 8 needs twice the warps */
    static const char *const fma8[] = { "gpu.sm_count=2", "pipes.fma.latency=8",
                                        "pipes.fma.issue_interval=1" };
    struct result r;
    saturate(DATA "ffma_ilp1.trace", fma8, 3, &r);
    assert_true(r.sat_per_sched == 8.0);
    assert_true(fabs(r.little_per_sched - 8.0) < 0.1);
}

/* fixed load latency, ample L1 bandwidth, single-issue pipes */
static const char *const l1_32[] = { "gpu.sm_count=2", "memory.l1_latency=32",
                                     "memory.l1_bytes_per_clk=65536",
                                     "pipes.alu.issue_interval=1",
                                     "pipes.lsu.issue_interval=1",
                                     "scheduler.policy=gto" };

static void test_load_chain(void **state)
{
    (void)state;
    struct result r;
    saturate(DATA "load_chain.trace", l1_32, 6, &r);
    assert_true(r.sat_per_sched == 8.0); /* L / n = 32 / 4 */
    assert_true(fabs(r.little_per_sched - 8.0) < 0.5);
    assert_int_equal(r.dominant, SL_L1);
}

static void test_oversubscription(void **state)
{
    (void)state;
    /* The same chase under GTO over-subscribed (16 warps per scheduler,
     * twice what hides the latency): the oldest warps take every issue slot
     * and the youngest finish last with too few companions, so throughput
     * peaks at 8 warps per scheduler and ends 4 % lower (docs/studies.md:
     * the engine's only mechanism by which more warps hurt). */
    struct result r;
    saturate(DATA "load_chain.trace", l1_32, 6, &r);
    assert_int_equal(r.decline, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ffma_ilp1),
        cmocka_unit_test(test_ffma_ilp4),
        cmocka_unit_test(test_ffma_latency8),
        cmocka_unit_test(test_load_chain),
        cmocka_unit_test(test_oversubscription),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
