/* eng_run.h — the engine's private state: one run is one value (struct
 * eng_run) that owns every SM, warp, queue and the memory system's state.
 * The rooms that work on it each have their own header:
 *   eng_par.h    the time loop (epochs, threads, the serial phase)
 *   eng_sm.h     one SM at one cycle; the epoch-end settle
 *   eng_sched.h  which eligible warp issues (GTO, LRR)
 *   eng_pipe.h   execution pipes (also used by study's one-warp walk)
 *   eng_sb.h     the register scoreboard and dependency kinds
 *   eng_fetch.h  a warp's next instruction
 *   eng_disp.h   block residency: first wave, freed slots, block launch
 *   eng_util.h   line-aligned allocation, per-SM errors
 * and the memory system sits behind sim/mem/mem.h.  Nothing here is visible
 * outside sim/engine.  docs/model.md explains the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_RUN_H
#define SMSIM_ENG_RUN_H

#include <stdint.h>
#include "engine/engine.h"
#include "engine/eng_pipe.h"
#include "engine/eng_fetch.h"
#include "engine/eng_sb.h"
#include "mem/mem.h"
#include "occ/occ.h"
#include "trace/trace_ctl.h"

#define ENG_NEVER UINT64_MAX

/* Placeholder ready cycles of requests waiting for the globally ordered
 * memory stage are >= ENG_PEND (far beyond any simulated cycle, below
 * ENG_NEVER). */
#define ENG_PEND (UINT64_C(1) << 62)

/* One resident warp.  The fields eval() reads come first (one cache line);
 * the scoreboard and the trace cursor follow.  The cycle until which the
 * cached state holds lives in the SMSP's until[] array (scanned every step). */
struct eng_warp {
    uint64_t fetch_ready;  /* first cycle the next instruction is in the buffer    */
    uint64_t bres_until;   /* the fetch wait is a branch's (branch_resolving) before
                              this cycle, no_instruction from it                  */
    uint64_t bar_until;    /* waits at a barrier while t < bar_until                */
    uint64_t mem_done;     /* all outstanding loads and stores complete (MEMBAR);
                              the known part while npend > 0                      */
    uint64_t drain_done;   /* what drain waits for: loads' write-backs, atomics'
                              answers, stores' departure from the SM; after EXIT:
                              the retire cycle; known part while npend_drain > 0 */
    uint64_t since;        /* first cycle of the current state interval             */
    uint64_t stall_until;  /* control bits: the stall count (and yield) of the last
                              issue keep the warp out until this cycle ("wait")  */
    const struct tr_inst *ni; /* next instruction to issue (fetched), NULL if none   */
    uint8_t state;         /* enum warp_state over [since, ...)                     */
    uint8_t resident;      /* 1 while the slot holds a live warp                    */
    uint8_t finished;      /* EXIT issued (or stream ended)                         */
    uint8_t cond_ok;       /* conditions 1-3 hold for ni: only pipe/queue can block
                              it (they hold until ni issues: see eval())          */
    uint8_t pipe;          /* pipe of ni (valid with ni)                            */
    uint8_t queue;         /* enum mem_queue_id of ni (valid with ni)               */
    uint8_t unres;         /* the state at eval_t waits for a memory answer
                              (settled at the epoch end)                          */
    uint16_t npend;        /* memory requests not yet answered                      */
    uint16_t npend_drain;  /* of those, the ones drain waits for (not stores)       */
    uint16_t wib;          /* warp index within its block                           */
    uint32_t block;        /* linear block index                                    */
    uint32_t fline;        /* instruction-cache line of ni + 1 (0: none; icache_*)  */
    uint8_t fnew;          /* ni is the first of its line: its issue asks for the
                              next line (icache_*)                                */
    uint64_t age;          /* launch order (GTO's "oldest"): block * wpb + warp     */
    uint64_t launch;       /* cycle the warp became resident                        */
    uint64_t cmiss_until;  /* ni's constant operand is in the constant cache from this
                              cycle (imc_miss before; scheduler.const_*)          */
    uint64_t eval_t;       /* cycle of the unresolved evaluation                    */
    struct tr_dyn dyn;     /* dynamic data of ni                                    */
    uint8_t bslot;         /* block slot on the SM                                  */
    struct eng_sb sb;      /* pending registers                                     */
    struct tr_cursor cur;  /* position in the trace                                 */
};

struct eng_smsp {
    struct eng_pipes pipes;/* first cycle each pipe accepts an instruction          */
    uint64_t *until;       /* [slots_per_smsp] cached state valid for t < until;
                              ENG_NEVER for an empty slot (hot: scanned each step) */
    uint64_t due_min;      /* <= min(until[]): the SMSP needs no look before it     */
    int lone_slot;         /* local slot of the only warp eligible at the last step
                              that had one, or of the one due warp it visited that
                              stalled; -1 otherwise                               */
    uint64_t others_min;   /* with lone_slot: <= min(until[]) of every other slot, so
                              while t < others_min only lone_slot can be due (no scan) */
    uint64_t active_since; /* cycle the SMSP went from 0 to 1 resident warps        */
    int resident;          /* resident warps                                        */
    int nslots;            /* local slots of this SMSP (entries of until[])         */
    int hi;                /* local slots >= hi hold no warp (scan bound)           */
    int last;              /* local slot of the last issued warp, -1 none           */
    uint64_t ifill_free;   /* the L0 fill port takes the next fill from this cycle
                              (busy scheduler.icache_fill_cycles per line)        */
    uint64_t rf_free;      /* issue is blocked before this cycle: the control stage
                              holds an instruction the allocate stage cannot take
                              yet (register-port bubble: dispatch_stall)          */
    uint64_t rf_exit;      /* cycle the last fixed-latency instruction left the
                              allocate stage (its reads start the cycle after)    */
    uint64_t rf_next;      /* the next one leaves the allocate stage no earlier:
                              the read ports are busy until then                 */
    uint16_t rfc_slot[2][3]; /* register-file cache, [bank][operand slot]: warp slot
                              + 1 of the entry's owner, 0 = empty                */
    uint8_t rfc_reg[2][3]; /* ... and its register                                  */
    struct mem_queue lg;   /* global/local/texture instructions not yet sent to L1  */
    struct mem_queue mio;  /* shared/constant instructions not yet served           */
    struct stats_smsp st;  /* this SMSP's counters, kept here while the SM runs (its
                              thread's own cache lines, not stats_kernel's shared
                              array) and copied into stats_kernel at the end     */
};

/* A resident-block slot of an SM. */
struct eng_bslot {
    uint64_t launch_at;    /* pending: cycle its block becomes resident             */
    uint64_t started;      /* running: cycle it became resident                     */
    uint32_t block;        /* linear block index                                    */
    int state;             /* ENG_BS_FREE, ENG_BS_PENDING, ENG_BS_RUNNING           */
    int live;              /* warps that have not exited (barrier participants)     */
    int arrived;           /* live warps waiting at the current barrier             */
    int unretired;         /* warps still resident                                  */
};
enum { ENG_BS_FREE, ENG_BS_PENDING, ENG_BS_RUNNING };

/* GPU-wide counters an SM adds to; kept per SM and summed at the end (sums of
 * integers: the order does not matter, so threads cannot change them). */
struct eng_acc {
    uint64_t events;       /* SM steps                                              */
    uint64_t thread_inst;  /* active lanes of issued instructions                   */
    struct mem_counters mem; /* memory traffic and hits                             */
    uint64_t last_retire;  /* latest warp retirement on this SM                     */
};

/* A memory request waiting for the globally ordered stage, as its SM keeps
 * it until the epoch end (eng_par.c). */
struct eng_req {
    struct mem_req s;      /* the stage's inputs                                    */
    uint64_t ph;           /* placeholder ready value written to the scoreboard     */
    uint64_t ready;        /* the answer (set before eng_sm_settle)                 */
    int slot;              /* SM warp slot of the issuing warp                      */
    uint8_t is_atom;       /* atomic                                                */
};

/* A block slot freed at cycle t, waiting for the dispatcher (eng_disp.c). */
struct eng_free_ev {
    uint64_t t;            /* retirement cycle                                      */
    int bslot;             /* block slot                                            */
};

/* Each SM is stepped by one thread at a time, and in a parallel run SMs
 * i and i + 1 belong to different threads (eng_par.c); so everything an SM
 * writes while it runs lives in cache lines of its own: this struct is
 * line-aligned and every per-SM array comes from eng_line_calloc(). */
struct eng_sm {
    _Alignas(64) uint64_t next; /* next cycle the SM needs a look, ENG_NEVER when
                              idle for good                                       */
    uint64_t err_t;        /* cycle of the first error on this SM (ENG_NEVER none;
                              next to `next`: checked after every epoch)          */
    uint64_t active_since; /* cycle the SM went from 0 to 1 resident warps          */
    uint64_t active_end;   /* end of the SM's last active interval (its last warp's
                              release, scheduler.warp_release)                    */
    int resident;          /* resident warps                                        */
    int npending;          /* block slots in ENG_BS_PENDING                         */
    uint64_t code_at;      /* cycle the kernel's code is in the SM's instruction
                              cache (ENG_NEVER: no warp has fetched yet)          */
    struct mem_sm mem;     /* the SM's memory units (SM-local memory stage)          */
    struct eng_icache ic;  /* instruction caches (zero while scheduler.icache_* off) */
    struct eng_ccache cc;  /* constant caches (zero while scheduler.const_* off)     */
    struct eng_bslot *bs;  /* [bps]                                                 */
    struct eng_warp *w;    /* [bps * wpb], slot s lives on SMSP s % subpartitions   */
    struct eng_smsp *sp;   /* [subpartitions]                                       */
    int *elig;             /* [slots_per_smsp] scratch: eligible local slots         */
    int *due;              /* [slots_per_smsp] scratch: local slots due this step    */
    uint8_t *mark;         /* [slots_per_smsp] scratch: enum eng_pick_mark per elig  */
    struct eng_dc *dc;     /* [bps * wpb] per warp slot: dependence counters SB0..SB5
                              (control bits), NULL until the SM's first counter:
                              apart from eng_warp, which traces without control
                              bits keep small and hot                           */
    struct tr_inst *copies;/* [bps * wpb] per warp slot: room for a sealed copy of an
                              instruction the reader left unsealed (eng_fetch)     */
    struct eng_acc acc;    /* counters summed into stats_kernel at the end           */
    struct stats_sm st;    /* this SM's counters (copied into stats_kernel at the end) */
    /* outboxes of one epoch */
    struct eng_req *req;   /* memory requests waiting for the global stage           */
    int nreq, capreq;      /* used / allocated                                      */
    struct eng_free_ev *fr;/* freed block slots the dispatcher has not taken back yet,
                              oldest first (written by the SM's thread while it
                              steps, consumed in the serial phase)               */
    int nfr;               /* used ([bps] allocated)                                */
    int *unres;            /* slots with an unresolved evaluation                    */
    int nunres;            /* entries in unres ([bps * wpb] allocated)              */
    char err[512];         /* its message                                           */
};

struct eng_run {
    const struct arch *a;       /* the GPU                                         */
    struct trace_kernel *k;     /* the kernel                                      */
    const struct engine_opts *o;/* options                                         */
    const struct engine_observer *obs; /* NULL: no pictures                        */
    struct stats_kernel *st;    /* counters being filled                           */
    struct mem_cfg mcfg;        /* the memory system's configuration               */
    struct mem_gpu mem;         /* the globally ordered memory stage's state       */
    struct eng_sm *sm;          /* [sm_count], line-aligned                        */
    int bps;                    /* resident blocks per SM                          */
    int wpb;                    /* warps per block                                 */
    int sub;                    /* SMSPs per SM                                    */
    int slots_per_smsp;         /* ceil(bps * wpb / subpartitions)                 */
    int no_skip;                /* evaluate every warp every cycle (tests)         */
    int fma_split;              /* eng_pipe_fma_split (read in every eligibility
                                   check)                                          */
    uint64_t nblocks;           /* blocks in the grid                              */
    uint64_t next_block;        /* next block the dispatcher hands out             */
    double disp_next;           /* dispatcher (serial phase only): earliest cycle,
                                   fractional, it is free for its next job         */
    uint64_t last_back;         /* cycle the dispatcher finished taking back the
                                   latest finished block (serial phase only)       */
    double *sm_ready;           /* [sm_count] (serial phase only): earliest cycle,
                                   fractional, each SM may start its next block    */
    double blk_cost;            /* an SM's cycles per block start: sm_block_cycles
                                   + sm_warp_cycles x wpb                          */
    int nwaiting;               /* freed slots in the SMs' queues (refill's count) */
    int disp_rr;                /* SM the dispatcher served last (round-robin)     */
    struct trace_ctl ctl;       /* scheduler.assign_ctl: the kernel with assigned control
                                   bits, which k then points to (n 0: none)        */
    char *err;                  /* message buffer [512]                            */
};

/* Local slot of an SMSP may be due at u (a write from outside the SMSP's own
 * step: barrier release, block launch, epoch-end settle): lower the bounds
 * that let steps skip the SMSP (due_min) or its other warps (others_min). */
static inline void eng_smsp_lower(struct eng_smsp *sp, uint64_t u)
{
    if (sp->due_min > u)
        sp->due_min = u;
    if (sp->others_min > u)
        sp->others_min = u;
}

#endif
