/* stats.h — raw counters the engine accumulates, and their conversion to
 * Nsight Compute metrics (names and definitions as ncu reports them).
 *
 * Counters are sums over cycles, so skipping idle cycles adds
 * (interval length x state counts) and stays exact.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_STATS_H
#define SMSIM_STATS_H

#include <stdint.h>
#include <stdio.h>
#include "arch/arch.h"
#include "occ/occ.h"
#include "trace/trace.h"

/* Warp states; every resident warp is in exactly one each cycle.  Order and
 * names follow ncu's stall reasons (smsp__average_warps_issue_stalled_<name>). */
enum warp_state {
    WS_SELECTED, WS_NOT_SELECTED, WS_WAIT, WS_LONG_SCOREBOARD,
    WS_SHORT_SCOREBOARD, WS_MATH_PIPE_THROTTLE, WS_MIO_THROTTLE,
    WS_LG_THROTTLE, WS_BARRIER, WS_MEMBAR, WS_BRANCH_RESOLVING,
    WS_NO_INSTRUCTION, WS_DISPATCH_STALL, WS_DRAIN, WS_IMC_MISS,
    WS_COUNT
};

/* Per scheduler (SM sub-partition) counters. */
struct stats_smsp {
    uint64_t cycles_active;     /* cycles with >= 1 resident warp on this SMSP      */
    uint64_t warps_active;      /* sum over cycles of resident warps                 */
    uint64_t warps_eligible;    /* sum over cycles of eligible warps (incl. selected) */
    uint64_t issue_active;      /* cycles with >= 1 instruction issued               */
    uint64_t inst_issued;       /* warp-instructions issued                          */
    uint64_t state[WS_COUNT];   /* sum over cycles of warps in each state            */
};

/* Per SM counters. */
struct stats_sm {
    uint64_t cycles_active;     /* cycles with >= 1 resident warp on the SM          */
    uint64_t warps_active;      /* sum over cycles of resident warps on the SM       */
    uint64_t blocks;            /* blocks that ran on this SM                        */
};

/* Everything measured for one kernel launch. */
struct stats_kernel {
    struct tr_launch launch;    /* the launch as traced                             */
    struct occ_result occ;      /* theoretical residency used by the dispatcher     */
    int sm_count;               /* entries in sm[]                                  */
    int smsp_per_sm;            /* SMSPs per SM; smsp[] has sm_count*smsp_per_sm    */
    uint64_t cycles_elapsed;    /* kernel duration in SM cycles                     */
    uint64_t thread_inst;       /* thread-instructions (active lanes summed)        */
    uint64_t dram_bytes;        /* bytes moved to/from DRAM                         */
    uint64_t l2_bytes;          /* bytes served by L2 (hits and misses)             */
    uint64_t l1_sector_hits;    /* global/local sectors that hit L1                 */
    uint64_t l1_sectors;        /* global/local sectors requested                   */
    uint64_t l2_sector_hits;    /* sectors that hit L2                              */
    uint64_t l2_sectors;        /* sectors requested from L2                        */
    uint64_t gld_sectors;       /* global load sectors (LDG, LDGSTS, ...) at L1     */
    uint64_t gst_sectors;       /* global store sectors at L1                       */
    uint64_t events;            /* engine steps taken (speed diagnostics)           */
    uint64_t unknown_insts;     /* warp-instructions whose opcode the trace reader did
                                   not know (Accel-Sim traces; run on a default unit) */
    struct stats_sm *sm;        /* [sm_count]                                       */
    struct stats_smsp *smsp;    /* [sm_count * smsp_per_sm]                          */
};

/* A metric as ncu names it. */
struct stats_metric {
    const char *name;           /* e.g. "smsp__issue_active.avg.per_cycle_active"  */
    const char *unit;           /* ncu's unit string: "warp", "cycle", "%", "inst", ... */
    double value;               /* the value                                        */
};

int stats_kernel_init(struct stats_kernel *s, int sm_count, int smsp_per_sm);
void stats_kernel_free(struct stats_kernel *s);

const char *stats_state_name(int ws);   /* "selected", "long_scoreboard", ... */
char stats_state_letter(int ws);        /* one letter per state for --grid    */

/* Upper bound on the metrics stats_metrics() derives (size arrays with it). */
enum { STATS_METRICS_MAX = 96 };

/* Derive ncu metrics.  Writes up to `max` metrics into out; returns count.
 * The order is fixed (it is the order of the JSON/CSV reports); every name
 * and unit is a string literal.  docs/metrics.md lists the formulas. */
int stats_metrics(const struct stats_kernel *s, const struct arch *a,
                  struct stats_metric *out, int max);

/* Look up a metric by exact name in an array; NULL if absent. */
const struct stats_metric *stats_find(const struct stats_metric *m, int n, const char *name);

#endif
