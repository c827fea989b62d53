/* stats_metrics.c — raw counters -> Nsight Compute metrics.
 *
 * Names, rollups and units follow Nsight Compute (Profiling Guide, "Metrics
 * Structure"): a counter X has rollups X.sum and X.avg over the unit
 * instances (SMs or SMSPs); X.avg.per_cycle_active divides by the unit's
 * active cycles, and ncu evaluates it as a ratio of rollups,
 *     X.avg.per_cycle_active = X.avg / unit__cycles_active.avg
 *                            = sum_units(X) / sum_units(cycles_active),
 * i.e. the active-cycle-weighted average, NOT the mean of per-unit ratios.
 * A unit that was idle for most of the kernel therefore weighs little, which
 * is why an SM idle between waves does not lower achieved occupancy.
 * .pct_of_peak_sustained_active = per_cycle_active / peak_per_cycle * 100.
 * docs/metrics.md gives every formula.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "stats/stats.h"

/* Full ncu names of the stall-reason ratios, in enum warp_state order. */
static const char *const stall_names[WS_COUNT] = {
    [WS_SELECTED] = "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
    [WS_NOT_SELECTED] = "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    [WS_WAIT] = "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    [WS_LONG_SCOREBOARD] = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    [WS_SHORT_SCOREBOARD] = "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    [WS_MATH_PIPE_THROTTLE] = "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    [WS_MIO_THROTTLE] = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    [WS_LG_THROTTLE] = "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    [WS_BARRIER] = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    [WS_MEMBAR] = "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
    [WS_BRANCH_RESOLVING] = "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
    [WS_NO_INSTRUCTION] = "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
    [WS_DISPATCH_STALL] = "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
    [WS_DRAIN] = "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    [WS_IMC_MISS] = "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio",
};

/* Sums over all units of one kernel. */
struct sums {
    double sm_cycles_active;    /* sum over SMs of cycles_active              */
    double sm_warps_active;     /* sum over SMs of warps_active               */
    double sm_blocks;           /* sum over SMs of blocks                     */
    double smsp_cycles_active;  /* sum over SMSPs of cycles_active            */
    double smsp_warps_active;   /* sum over SMSPs of warps_active             */
    double smsp_warps_eligible; /* sum over SMSPs of warps_eligible           */
    double smsp_issue_active;   /* sum over SMSPs of issue_active             */
    double smsp_inst_issued;    /* sum over SMSPs of inst_issued              */
    double state[WS_COUNT];     /* sum over SMSPs of state[]                  */
};

/* Output cursor: writes until max, counts everything. */
struct out {
    struct stats_metric *m;     /* destination array                          */
    int max;                    /* its capacity                               */
    int n;                      /* metrics produced so far                    */
};

static void put(struct out *o, const char *name, const char *unit, double v)
{
    if (o->n < o->max) {
        o->m[o->n].name = name;
        o->m[o->n].unit = unit;
        o->m[o->n].value = v;
    }
    o->n++;
}

/* a / b, and 0 when nothing was counted (ncu prints 0 for an idle unit). */
static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

static void sum_units(const struct stats_kernel *s, struct sums *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < s->sm_count; i++) {
        t->sm_cycles_active += (double)s->sm[i].cycles_active;
        t->sm_warps_active += (double)s->sm[i].warps_active;
        t->sm_blocks += (double)s->sm[i].blocks;
    }
    uint64_t st[WS_COUNT] = {0};
    uint64_t ca = 0, wa = 0, we = 0, ia = 0, ii = 0;
    int nsmsp = s->sm_count * s->smsp_per_sm;
    for (int i = 0; i < nsmsp; i++) {
        const struct stats_smsp *p = &s->smsp[i];
        ca += p->cycles_active;
        wa += p->warps_active;
        we += p->warps_eligible;
        ia += p->issue_active;
        ii += p->inst_issued;
        for (int r = 0; r < WS_COUNT; r++)
            st[r] += p->state[r];
    }
    /* Integer sums first, converted once: exact below 2^53. */
    t->smsp_cycles_active = (double)ca;
    t->smsp_warps_active = (double)wa;
    t->smsp_warps_eligible = (double)we;
    t->smsp_issue_active = (double)ia;
    t->smsp_inst_issued = (double)ii;
    for (int r = 0; r < WS_COUNT; r++)
        t->state[r] = (double)st[r];
}

/* cuda_occupancy.h reports a limit that does not apply (no barriers, no
 * shared memory) as INT_MAX; it becomes +infinity here, which the reports
 * print as "unlimited" (text), null (JSON) and an empty field (CSV), the
 * same as `smsim occupancy`. */
static double occ_limit(int v)
{
    return v == INT_MAX ? HUGE_VAL : (double)v;
}

int stats_metrics(const struct stats_kernel *s, const struct arch *a,
                  struct stats_metric *out, int max)
{
    struct out o = { out, max, 0 };
    struct sums t;
    sum_units(s, &t);

    const struct tr_launch *l = &s->launch;
    double grid = (double)l->grid[0] * l->grid[1] * l->grid[2];
    double block = (double)l->block[0] * l->block[1] * l->block[2];
    double sms = (double)s->sm_count;
    double nsmsp = (double)s->sm_count * s->smsp_per_sm;
    double elapsed = (double)s->cycles_elapsed;
    double max_warps = (double)a->max_warps_per_sm;
    /* SM clock in cycles per nanosecond (MHz / 1000). */
    double clk_per_ns = a->sm_clock_mhz / 1000.0;
    double time_ns = ratio(elapsed, clk_per_ns);

    /* --- Launch Statistics --------------------------------------------- */
    put(&o, "launch__grid_size", "", grid);
    put(&o, "launch__block_size", "", block);
    put(&o, "launch__thread_count", "thread", grid * block);
    put(&o, "launch__sm_count", "SM", sms);
    put(&o, "launch__registers_per_thread", "register/thread", (double)l->regs);
    put(&o, "launch__shared_mem_per_block_static", "byte/block", (double)l->smem_static);
    put(&o, "launch__shared_mem_per_block_dynamic", "byte/block", (double)l->smem_dynamic);
    put(&o, "launch__shared_mem_per_block_driver", "byte/block",
        (double)a->smem_reserved_per_block);
    put(&o, "launch__shared_mem_config_size", "byte", (double)s->occ.smem_config_bytes);
    put(&o, "launch__waves_per_multiprocessor", "",
        ratio(grid, (double)s->occ.blocks_per_sm * sms));

    /* --- Occupancy ------------------------------------------------------ */
    put(&o, "launch__occupancy_limit_blocks", "block", occ_limit(s->occ.limit_blocks));
    put(&o, "launch__occupancy_limit_registers", "block", occ_limit(s->occ.limit_registers));
    put(&o, "launch__occupancy_limit_shared_mem", "block", occ_limit(s->occ.limit_shared_mem));
    put(&o, "launch__occupancy_limit_warps", "block", occ_limit(s->occ.limit_warps));
    /* as Nsight Compute shows it (docs/occupancy.md); the header's term is
     * occ.limit_barriers */
    put(&o, "launch__occupancy_limit_barriers", "block", occ_limit(s->occ.limit_barriers_ncu));
    put(&o, "sm__maximum_warps_avg_per_active_cycle", "warp", (double)s->occ.active_warps);
    put(&o, "sm__maximum_warps_per_active_cycle_pct", "%",
        ratio((double)s->occ.active_warps * 100.0, max_warps));
    /* Percentages multiply before dividing so exact ratios print exactly. */
    put(&o, "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
        ratio(t.sm_warps_active * 100.0, t.sm_cycles_active * max_warps));
    put(&o, "sm__warps_active.avg.per_cycle_active", "warp",
        ratio(t.sm_warps_active, t.sm_cycles_active));

    /* --- Scheduler Statistics ------------------------------------------ */
    put(&o, "smsp__warps_active.avg.per_cycle_active", "warp",
        ratio(t.smsp_warps_active, t.smsp_cycles_active));
    put(&o, "smsp__warps_eligible.avg.per_cycle_active", "warp",
        ratio(t.smsp_warps_eligible, t.smsp_cycles_active));
    put(&o, "smsp__issue_active.avg.per_cycle_active", "",
        ratio(t.smsp_issue_active, t.smsp_cycles_active));
    /* issue_active's peak is one cycle per cycle, so the % is 100 x the
     * rate; issue_inst0 counts the other active cycles (none issued). */
    put(&o, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%",
        ratio(t.smsp_issue_active * 100.0, t.smsp_cycles_active));
    put(&o, "smsp__issue_inst0.avg.pct_of_peak_sustained_active", "%",
        ratio((t.smsp_cycles_active - t.smsp_issue_active) * 100.0, t.smsp_cycles_active));
    put(&o, "smsp__inst_executed.avg.per_cycle_active", "inst/cycle",
        ratio(t.smsp_inst_issued, t.smsp_cycles_active));

    /* --- Warp State Statistics ----------------------------------------- */
    put(&o, "smsp__average_warp_latency_per_inst_issued.ratio", "cycle",
        ratio(t.smsp_warps_active, t.smsp_inst_issued));
    for (int r = 0; r < WS_COUNT; r++)
        put(&o, stall_names[r], "cycle", ratio(t.state[r], t.smsp_issue_active));
    put(&o, "smsp__thread_inst_executed_per_inst_executed.ratio", "thread",
        ratio((double)s->thread_inst, t.smsp_inst_issued));

    /* --- Compute / Memory throughput ----------------------------------- */
    put(&o, "sm__cycles_elapsed.avg", "cycle", elapsed);
    put(&o, "sm__cycles_active.avg", "cycle", ratio(t.sm_cycles_active, sms));
    put(&o, "smsp__cycles_active.avg", "cycle", ratio(t.smsp_cycles_active, nsmsp));
    put(&o, "gpu__time_duration.sum", "nsecond", time_ns);
    put(&o, "sm__ctas_launched.sum", "block", t.sm_blocks);
    put(&o, "smsp__inst_executed.sum", "inst", t.smsp_inst_issued);
    put(&o, "smsp__thread_inst_executed.sum", "inst", (double)s->thread_inst);
    /* Not an ncu metric (hence the smsim__ prefix): how much of the trace ran
     * on the documented default unit because its opcode is unknown. */
    put(&o, "smsim__inst_executed_unknown_opcode.sum", "inst", (double)s->unknown_insts);
    put(&o, "sm__inst_executed.avg.per_cycle_active", "inst/cycle",
        ratio(t.smsp_inst_issued, t.sm_cycles_active));
    put(&o, "sm__inst_executed.avg.per_cycle_elapsed", "inst/cycle",
        ratio(t.smsp_inst_issued, elapsed * sms));
    put(&o, "dram__bytes.sum", "byte", (double)s->dram_bytes);
    put(&o, "dram__bytes.sum.per_second", "byte/second",
        ratio((double)s->dram_bytes, time_ns) * 1e9);
    /* Peak: memory.dram_gbps (1e9 B/s) converted to bytes per SM cycle. */
    double dram_peak_per_clk = ratio(a->dram_gbps * 1e9, a->sm_clock_mhz * 1e6);
    put(&o, "dram__bytes.sum.pct_of_peak_sustained_elapsed", "%",
        ratio((double)s->dram_bytes * 100.0, dram_peak_per_clk * elapsed));
    put(&o, "lts__t_bytes.sum", "byte", (double)s->l2_bytes);
    put(&o, "l1tex__t_sector_hit_rate.pct", "%",
        ratio((double)s->l1_sector_hits * 100.0, (double)s->l1_sectors));
    put(&o, "lts__t_sector_hit_rate.pct", "%",
        ratio((double)s->l2_sector_hits * 100.0, (double)s->l2_sectors));
    put(&o, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", (double)s->gld_sectors);
    put(&o, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", (double)s->gst_sectors);

    return o.n < max ? o.n : max;
}
