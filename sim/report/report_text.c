/* report_text.c — the report laid out like ncu's details page: per kernel a
 * header line, then sections with aligned "Metric Name / Metric Unit /
 * Metric Value" tables.  Labels are ncu's where ncu shows the metric; the
 * table below maps every metric of stats_metrics() to its section and label.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>
#include "report/report.h"

struct label {
    const char *name;    /* ncu metric name                 */
    const char *section; /* ncu section it appears in       */
    const char *label;   /* ncu's human label               */
};

#define LAUNCH "Launch Statistics"
#define OCC "Occupancy"
#define SCHED "Scheduler Statistics"
#define WARP "Warp State Statistics"
#define THRU "Compute/Memory Throughput"
#define STALL(n, l) { "smsp__average_warps_issue_stalled_" n "_per_issue_active.ratio", WARP, l }

static const struct label labels[] = {
    { "launch__grid_size", LAUNCH, "Grid Size" },
    { "launch__block_size", LAUNCH, "Block Size" },
    { "launch__thread_count", LAUNCH, "Threads" },
    { "launch__sm_count", LAUNCH, "# SMs" },
    { "launch__registers_per_thread", LAUNCH, "Registers Per Thread" },
    { "launch__shared_mem_per_block_static", LAUNCH, "Static Shared Memory Per Block" },
    { "launch__shared_mem_per_block_dynamic", LAUNCH, "Dynamic Shared Memory Per Block" },
    { "launch__shared_mem_per_block_driver", LAUNCH, "Driver Shared Memory Per Block" },
    { "launch__shared_mem_config_size", LAUNCH, "Shared Memory Configuration Size" },
    { "launch__waves_per_multiprocessor", LAUNCH, "Waves Per SM" },
    { "launch__occupancy_limit_blocks", OCC, "Block Limit SM" },
    { "launch__occupancy_limit_registers", OCC, "Block Limit Registers" },
    { "launch__occupancy_limit_shared_mem", OCC, "Block Limit Shared Mem" },
    { "launch__occupancy_limit_warps", OCC, "Block Limit Warps" },
    { "launch__occupancy_limit_barriers", OCC, "Block Limit Barriers" },
    { "sm__maximum_warps_avg_per_active_cycle", OCC, "Theoretical Active Warps per SM" },
    { "sm__maximum_warps_per_active_cycle_pct", OCC, "Theoretical Occupancy" },
    { "sm__warps_active.avg.pct_of_peak_sustained_active", OCC, "Achieved Occupancy" },
    { "sm__warps_active.avg.per_cycle_active", OCC, "Achieved Active Warps Per SM" },
    { "smsp__warps_active.avg.per_cycle_active", SCHED, "Active Warps Per Scheduler" },
    { "smsp__warps_eligible.avg.per_cycle_active", SCHED, "Eligible Warps Per Scheduler" },
    { "smsp__issue_active.avg.per_cycle_active", SCHED, "Issued Warp Per Scheduler" },
    { "smsp__issue_active.avg.pct_of_peak_sustained_active", SCHED, "One or More Eligible" },
    { "smsp__issue_inst0.avg.pct_of_peak_sustained_active", SCHED, "No Eligible" },
    { "smsp__inst_executed.avg.per_cycle_active", SCHED, "Executed Instructions Per Scheduler Cycle" },
    { "smsp__average_warp_latency_per_inst_issued.ratio", WARP, "Warp Cycles Per Issued Instruction" },
    STALL("selected", "Selected"),
    STALL("not_selected", "Stall Not Selected"),
    STALL("wait", "Stall Wait"),
    STALL("long_scoreboard", "Stall Long Scoreboard"),
    STALL("short_scoreboard", "Stall Short Scoreboard"),
    STALL("math_pipe_throttle", "Stall Math Pipe Throttle"),
    STALL("mio_throttle", "Stall MIO Throttle"),
    STALL("lg_throttle", "Stall LG Throttle"),
    STALL("barrier", "Stall Barrier"),
    STALL("membar", "Stall Membar"),
    STALL("branch_resolving", "Stall Branch Resolving"),
    STALL("no_instruction", "Stall No Instruction"),
    STALL("dispatch_stall", "Stall Dispatch Stall"),
    STALL("drain", "Stall Drain"),
    STALL("imc_miss", "Stall IMC Miss"),
    { "smsp__thread_inst_executed_per_inst_executed.ratio", WARP, "Avg. Active Threads Per Warp" },
    { "sm__cycles_elapsed.avg", THRU, "Elapsed Cycles" },
    { "sm__cycles_active.avg", THRU, "SM Active Cycles" },
    { "smsp__cycles_active.avg", THRU, "SMSP Active Cycles" },
    { "gpu__time_duration.sum", THRU, "Duration" },
    { "sm__ctas_launched.sum", THRU, "Blocks Launched" },
    { "smsp__inst_executed.sum", THRU, "Executed Instructions" },
    { "smsp__thread_inst_executed.sum", THRU, "Executed Thread Instructions" },
    { "smsim__inst_executed_unknown_opcode.sum", THRU, "Unknown-Opcode Instructions (smsim)" },
    { "sm__inst_executed.avg.per_cycle_active", THRU, "Executed Ipc Active" },
    { "sm__inst_executed.avg.per_cycle_elapsed", THRU, "Executed Ipc Elapsed" },
    { "dram__bytes.sum", THRU, "DRAM Bytes" },
    { "dram__bytes.sum.per_second", THRU, "DRAM Bandwidth" },
    { "dram__bytes.sum.pct_of_peak_sustained_elapsed", THRU, "DRAM Throughput" },
    { "lts__t_bytes.sum", THRU, "L2 Bytes" },
    { "l1tex__t_sector_hit_rate.pct", THRU, "L1/TEX Hit Rate" },
    { "lts__t_sector_hit_rate.pct", THRU, "L2 Hit Rate" },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", THRU, "Global Load Sectors" },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", THRU, "Global Store Sectors" },
};

static const struct label *find_label(const char *name)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (!strcmp(labels[i].name, name))
            return &labels[i];
    return NULL;
}

/* ncu's style: thousands separators, two decimals unless integral. */
static void fmt_value(char *out, size_t n, double v)
{
    char raw[64];
    if (!isfinite(v)) {
        snprintf(out, n, "%s", v > 0 ? "unlimited" : "n/a");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e18)
        snprintf(raw, sizeof raw, "%.0f", v == 0 ? 0.0 : v);
    else
        snprintf(raw, sizeof raw, "%.2f", v);
    const char *digits = raw[0] == '-' ? raw + 1 : raw;
    size_t intlen = strcspn(digits, ".");
    size_t o = 0;
    if (digits != raw && o + 1 < n)
        out[o++] = '-';
    for (size_t i = 0; digits[i] && o + 1 < n; i++) {
        if (i > 0 && i < intlen && (intlen - i) % 3 == 0 && o + 1 < n)
            out[o++] = ',';
        if (o + 1 < n)
            out[o++] = digits[i];
    }
    out[o] = '\0';
}

static const char *section_of(const struct stats_metric *m)
{
    const struct label *l = find_label(m->name);
    return l ? l->section : "Other Metrics";
}

static const char *label_of(const struct stats_metric *m)
{
    const struct label *l = find_label(m->name);
    return l ? l->label : m->name;
}

static void dashes(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc('-', f);
}

/* One section: metrics m[from, to). */
static void section(FILE *f, const char *name, const struct stats_metric *m, int from, int to)
{
    int wn = (int)strlen("Metric Name"), wu = (int)strlen("Metric Unit");
    int wv = (int)strlen("Metric Value");
    char val[64];
    for (int i = from; i < to; i++) {
        int l = (int)strlen(label_of(&m[i])), u = (int)strlen(m[i].unit);
        fmt_value(val, sizeof val, m[i].value);
        int v = (int)strlen(val);
        wn = l > wn ? l : wn;
        wu = u > wu ? u : wu;
        wv = v > wv ? v : wv;
    }
    fprintf(f, "    Section: %s\n    ", name);
    dashes(f, wn); fputc(' ', f); dashes(f, wu); fputc(' ', f); dashes(f, wv);
    fprintf(f, "\n    %-*s %*s %*s\n    ", wn, "Metric Name", wu, "Metric Unit", wv, "Metric Value");
    dashes(f, wn); fputc(' ', f); dashes(f, wu); fputc(' ', f); dashes(f, wv);
    fputc('\n', f);
    for (int i = from; i < to; i++) {
        fmt_value(val, sizeof val, m[i].value);
        fprintf(f, "    %-*s %*s %*s\n", wn, label_of(&m[i]), wu, m[i].unit, wv, val);
    }
    fputs("    ", f);
    dashes(f, wn + wu + wv + 2);
    fputs("\n\n", f);
}

int report_text(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts,
                const struct report_opts *o)
{
    (void)first;
    (void)parts; /* no header or trailer */
    for (int i = 0; i < n; i++) {
        const struct stats_kernel *s = k[i].s;
        const struct tr_launch *l = &s->launch;
        struct stats_metric m[STATS_METRICS_MAX];
        int nm = report_metrics(s, a, o, m);
        fprintf(f, "  %s (%u, %u, %u)x(%u, %u, %u), Kernel %d, Config %s, CC %d.%d\n",
                l->name, l->grid[0], l->grid[1], l->grid[2],
                l->block[0], l->block[1], l->block[2], k[i].index, config,
                a->cc_major, a->cc_minor);
        /* Sections are contiguous runs in stats_metrics() order. */
        int from = 0;
        for (int j = 1; j <= nm; j++) {
            if (j == nm || strcmp(section_of(&m[j]), section_of(&m[from]))) {
                section(f, section_of(&m[from]), m, from, j);
                from = j;
            }
        }
    }
    return ferror(f) ? -1 : 0;
}
