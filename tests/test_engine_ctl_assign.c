/* test_engine_ctl_assign.c — a trace without control bits run with
 * scheduler.assign_ctl = 1 (sim/trace/trace_ctl.c) and without: the cycle
 * of every issue, worked out by hand below.
 *
 * The test GPU (test_engine_util.h): FMA latency 4, MUFU latency 16 on the
 * short scoreboard, one instruction per cycle per pipe, no fetch or branch
 * latency.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_engine_util.h"
#include "trace/trace_native.h"

/* One warp:
 *   MUFU.EX2 R2, R1           pass: SB0 (a consumer reads R2)
 *   FFMA R10, R1, R6, R7      pass: reuse 0x6 (the next FFMA reads R6, R7
 *                             in the same slots)
 *   FFMA R11, R2, R6, R7      pass: waits on SB0; stall 4 (R11 read next)
 *   FFMA R12, R11, R6, R8     R6, R8: two reads of bank 0
 *   EXIT
 * With the pass: MUFU at 0, FFMA R10 at 1, FFMA R11 when SB0 is released,
 * 0 + 16 = 16 (short_scoreboard over 2..15: 14 cycles; its R6 and R7 hit the
 * register-file cache), FFMA R12 at 16 + 4 = 20 (wait 17..19: 3), whose two
 * bank-0 reads keep the read ports 2 cycles after it leaves the allocate
 * stage at 22; EXIT, which does not pass the allocate stage, issues at 21
 * (FFMA R12 left the control stage at 21): no dispatch_stall.  With the
 * scoreboard: no banks, the same cycles. */
static void mufu_ffma_hand_cycles(void **state)
{
    (void)state;
    static const char text[] =
        "kernel k grid=(1,1,1) block=(32,1,1) regs=32 {\n"
        "  MUFU.EX2 R2, R1\n  FFMA R10, R1, R6, R7\n  FFMA R11, R2, R6, R7\n"
        "  FFMA R12, R11, R6, R8\n  EXIT\n}\n";
    for (int on = 1; on >= 0; on--) {
        struct arch a;
        tu_arch(&a, 1);
        a.assign_ctl = on;
        struct trace_file f;
        memset(&f, 0, sizeof f);
        char err[512] = "";
        if (trace_native_open_mem("t.trace", text, strlen(text), &f, err))
            fail_msg("%s", err);
        struct tu_issues is;
        memset(&is, 0, sizeof is);
        struct engine_observer eo = {&is, tu_issue_obs, NULL, 0, NULL, NULL};
        struct engine_opts o;
        tu_opts(&o);
        o.obs = &eo;
        struct stats_kernel st;
        if (engine_run(&a, f.kernels[0], &o, &st, err))
            fail_msg("engine_run: %s", err);
        const uint64_t want[] = {0, 1, 16, 20, 21};
        assert_int_equal(is.n, 5);
        for (int i = 0; i < 5; i++)
            if (is.t[i] != want[i])
                fail_msg("assign_ctl=%d: issue %d at %llu, want %llu", on, i,
                         (unsigned long long)is.t[i], (unsigned long long)want[i]);
        assert_int_equal(st.smsp[0].state[WS_SHORT_SCOREBOARD], 14);
        assert_int_equal(st.smsp[0].state[WS_WAIT], 3);
        assert_int_equal(st.smsp[0].state[WS_DISPATCH_STALL], 0);
        stats_kernel_free(&st);
        f.kernels[0]->ops->destroy(f.kernels[0]);
        free(f.kernels);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mufu_ffma_hand_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
