/* engine.h — discrete-event simulation of one kernel launch on a struct arch.
 *
 * engine_run() is a pure function of (arch, kernel, options): no globals,
 * the same inputs and seed give byte-identical statistics.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENGINE_H
#define SMSIM_ENGINE_H

#include <stdint.h>
#include "arch/arch.h"
#include "trace/trace.h"
#include "stats/stats.h"

/* Optional observer for pictures (--grid, --timeline).  Called only when set,
 * so the plain run pays nothing.  Intervals are half-open [from, to). */
struct engine_observer {
    void *ud; /* user data passed back */
    /* A warp (identified by sm, smsp, slot within the SMSP) held `state`
     * (enum warp_state) over [from, to).  Intervals of one warp arrive in order. */
    void (*warp_state)(void *ud, int sm, int smsp, int slot, uint32_t block,
                       uint32_t warp, uint64_t from, uint64_t to, int state);
    /* A block lived on `sm` over [from, to). */
    void (*block_life)(void *ud, int sm, uint32_t block, uint64_t from, uint64_t to);
    /* Stop calling warp_state after this cycle (0 = never stop). */
    uint64_t until;
    /* Per-instruction counters (--source-csv), over the whole run (not cut
     * by until); either may be NULL.  inst_issue: a warp issued `in` with
     * these active lanes (an issue is the warp's one "selected" cycle).
     * inst_state: a warp whose next instruction was `in` (NULL: its stream
     * ended without EXIT) spent `cycles` in `state`, never WS_SELECTED (the
     * stall reason of a warp is charged to the instruction it waits to
     * issue, as ncu's warp-state sampling charges it to the sampled PC). */
    void (*inst_issue)(void *ud, const struct tr_inst *in, uint32_t active_mask);
    void (*inst_state)(void *ud, const struct tr_inst *in, int state, uint64_t cycles);
};

/* What one launch leaves to the next launch of the same run: the L2 tags,
 * when the arch says memory.warm_caches = 1 (else it is not touched).
 * engine_warm_new() makes an empty one (NULL: out of memory); with none
 * (engine_opts.warm NULL) every launch starts cold. */
struct engine_warm;
struct engine_warm *engine_warm_new(void);
void engine_warm_free(struct engine_warm *w);

struct engine_opts {
    uint64_t seed;                 /* seeds the deterministic RNG (cache-hit draws) */
    int blocks_per_sm_cap;         /* >0: cap resident blocks per SM (sweeps), else occupancy */
    int carveout_pct;              /* carveout preference for occupancy, -1 = none  */
    const struct engine_observer *obs; /* NULL for none                           */
    uint64_t max_cycles;           /* safety stop (0 = unlimited)                   */
    int no_skip;                   /* 1: step every cycle and re-evaluate every warp
                                      (tests: counters must equal the skipping run) */
    int threads;                   /* SMs simulated on this many threads (<= 1: one;
                                      forced to one with an observer, whose
                                      callbacks are not thread-safe).  Results are
                                      byte-identical for every value.  With > 1 the
                                      trace's warp_begin/next/end are called
                                      concurrently on distinct cursors, so only
                                      for a kernel with mt_safe set; otherwise
                                      one thread is used.                        */
    int rebalance_every;           /* >0 (tests): with threads > 1, move an SM to
                                      another thread every this many epochs, whatever
                                      the timings (eng_par.c balance() moves them on
                                      measured load, rarely and unpredictably) */
    /* Progress of a long run (the command line's terminal line): called
     * between epochs, every 256 of them, with the warp-instructions issued so
     * far in this kernel; NULL: never.  It cannot change the results. */
    void (*progress)(void *ud, uint64_t issued);
    void *progress_ud;             /* passed back to progress                      */
    struct engine_warm *warm;      /* caches kept between launches (memory.warm_caches);
                                      NULL: none                                     */
};

/* The occupancy question (occ.h) of a kernel launch: block size,
 * registers, shared memory and barriers of l, no opt-in limit beyond the
 * launch's own dynamic shared memory, and the preferred carveout
 * (-1 = none).  The block size is taken as the product of l->block (the
 * callers check it against the GPU first). */
struct occ_launch;
void engine_occ_launch(const struct tr_launch *l, int carveout_pct, struct occ_launch *ol);

/* Simulate kernel k.  Initializes *out (caller frees with stats_kernel_free).
 * Returns 0, or -1 with a one-line message in err (e.g. the launch cannot run:
 * zero resident blocks, with the occupancy reason). */
int engine_run(const struct arch *a, struct trace_kernel *k,
               const struct engine_opts *o, struct stats_kernel *out,
               char err[512]);

#endif
