/* eng_internal.h — the engine's private state: one run is one value
 * (struct eng_run) that owns every SM, warp, queue and memory server.
 * Nothing here is visible outside sim/engine.  docs/model.md explains the
 * model these structures implement.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_INTERNAL_H
#define SMSIM_ENG_INTERNAL_H

#include <stdint.h>
#include "engine/engine.h"
#include "occ/occ.h"

#define ENG_NEVER UINT64_MAX

/* Scoreboard entry kinds.  The low bits say which stall reason a dependent
 * warp reports; SBK_READ marks a source operand that an in-flight memory
 * instruction has not read yet (it blocks writers only: WAR). */
enum { SBK_WAIT = 0, SBK_SHORT = 1, SBK_LONG = 2, SBK_READ = 4 };

/* Pending-register table of one warp: a few entries searched linearly.
 * 32 entries hold eight outstanding LDG.128 (4 destinations each) plus their
 * address holds; a full table stalls the warp (see sb_check). */
enum { SB_MAX = 32 };

struct eng_sb {
    uint64_t ready[SB_MAX]; /* cycle from which the register is usable (or writable) */
    uint16_t reg[SB_MAX];   /* register id in trace.h's flat space                   */
    uint8_t kind[SB_MAX];   /* SBK_* of the entry                                    */
    uint8_t n;              /* entries in use (some may have expired)                */
};

/* One resident warp.  Hot fields first; the trace cursor (cold, touched
 * once per issue) last. */
struct eng_warp {
    uint64_t until;        /* cached state is valid for cycles < until              */
    uint64_t since;        /* first cycle of the current state interval             */
    uint64_t fetch_ready;  /* first cycle the next instruction is in the buffer    */
    uint64_t bar_until;    /* waits at a barrier while t < bar_until                */
    uint64_t mem_done;     /* all outstanding loads and stores complete (MEMBAR)     */
    uint64_t store_done;   /* outstanding stores complete; after EXIT: retire cycle
                              (all memory done: drain)                            */
    uint64_t launch;       /* cycle the warp became resident                        */
    uint64_t age;          /* launch order (GTO's "oldest"): block * wpb + warp     */
    const struct tr_inst *ni; /* next instruction to issue (fetched), NULL if none   */
    struct tr_dyn dyn;     /* dynamic data of ni                                    */
    uint32_t block;        /* linear block index                                    */
    uint16_t wib;          /* warp index within its block                           */
    uint8_t state;         /* enum warp_state over [since, ...)                     */
    uint8_t resident;      /* 1 while the slot holds a live warp                    */
    uint8_t finished;      /* EXIT issued (or stream ended)                         */
    uint8_t branch;        /* the fetch wait is a branch (branch_resolving)         */
    uint8_t bslot;         /* block slot on the SM                                  */
    struct eng_sb sb;      /* pending registers                                     */
    struct tr_cursor cur;  /* position in the trace                                 */
};

/* Requests of one SMSP queue (LG or MIO): the cycle each frees its slot. */
struct eng_queue {
    uint64_t *free_at;     /* [cap] slot release cycles; <= t means the slot is free */
    int cap;               /* queue depth from the arch                             */
};

struct eng_smsp {
    uint64_t pipe_free[PIPE_COUNT]; /* first cycle each pipe accepts an instruction */
    uint64_t active_since; /* cycle the SMSP went from 0 to 1 resident warps        */
    int resident;          /* resident warps                                        */
    int last;              /* local slot of the last issued warp, -1 none           */
    struct eng_queue lg;   /* global/local/texture instructions not yet sent to L1  */
    struct eng_queue mio;  /* shared/constant instructions not yet served           */
};

/* A resident-block slot of an SM. */
struct eng_bslot {
    uint64_t launch_at;    /* pending: cycle its block becomes resident             */
    uint64_t started;      /* running: cycle it became resident                     */
    uint32_t block;        /* linear block index                                    */
    int state;             /* BS_FREE, BS_PENDING, BS_RUNNING                       */
    int live;              /* warps that have not exited (barrier participants)     */
    int arrived;           /* live warps waiting at the current barrier             */
    int unretired;         /* warps still resident                                  */
};
enum { BS_FREE, BS_PENDING, BS_RUNNING };

struct eng_sm {
    uint64_t next;         /* next cycle to process, ENG_NEVER when idle for good    */
    uint64_t active_since; /* cycle the SM went from 0 to 1 resident warps          */
    int resident;          /* resident warps                                        */
    double l1_free;        /* L1/TEX tag stage: time it is free (fractional cycles)  */
    uint64_t smem_free;    /* shared-memory unit: first free cycle                  */
    struct eng_bslot *bs;  /* [bps]                                                 */
    struct eng_warp *w;    /* [bps * wpb], slot s lives on SMSP s % subpartitions   */
    struct eng_smsp *sp;   /* [subpartitions]                                       */
};

/* GPU-wide memory model (eng_mem.c). */
struct eng_mem {
    double l2_free;        /* L2 server free time                                   */
    double dram_free;      /* DRAM server free time                                 */
    double l1_rate;        /* bytes per cycle per SM                                */
    double l2_rate;        /* bytes per cycle, GPU                                  */
    double dram_rate;      /* bytes per cycle, GPU                                  */
    double l1_cap;         /* L1 bytes left by the shared-memory carveout           */
    double l2_cap;         /* L2 bytes                                              */
    uint64_t seed;         /* hit draws                                             */
};

/* A block slot freed in the current cycle, waiting for the dispatcher. */
struct eng_freed {
    int sm;                     /* SM index                                        */
    int bslot;                  /* block slot on that SM                           */
    int rank;                   /* how many slots that SM freed before this one    */
};

struct eng_run {
    const struct arch *a;       /* the GPU                                         */
    struct trace_kernel *k;     /* the kernel                                      */
    const struct engine_opts *o;/* options                                         */
    const struct engine_observer *obs; /* NULL: no pictures                        */
    struct stats_kernel *st;    /* counters being filled                           */
    struct eng_mem mem;         /* L2/DRAM servers                                 */
    struct eng_sm *sm;          /* [sm_count]                                      */
    int bps;                    /* resident blocks per SM                          */
    int wpb;                    /* warps per block                                 */
    int slots_per_smsp;         /* ceil(bps * wpb / subpartitions)                 */
    int no_skip;                /* evaluate every warp every cycle (tests)         */
    uint64_t nblocks;           /* blocks in the grid                              */
    uint64_t next_block;        /* next block the dispatcher hands out             */
    uint64_t last_retire;       /* latest warp retirement (kernel end)             */
    struct eng_freed *freed;    /* [sm_count * bps] block slots freed this cycle    */
    int nfreed;                 /* entries in freed                                */
    int *scratch_elig;          /* [slots_per_smsp] eligible slots of one SMSP step */
    uint8_t *scratch_taken;     /* [slots_per_smsp] pick marks of that step        */
    int error;                  /* set on an internal failure (trace error)        */
    char *err;                  /* message buffer [512]                            */
};

/* eng_sb.c */
void sb_reset(struct eng_sb *sb);
/* Is inst blocked by pending registers at t?  Returns 0, or 1 with *until
 * (the cycle the blocking set clears) and *state (enum warp_state). */
int sb_check(const struct eng_sb *sb, const struct tr_inst *in, uint64_t t,
             uint64_t *until, int *state);
void sb_add(struct eng_sb *sb, uint16_t reg, uint64_t ready, int kind, uint64_t t);

/* eng_mem.c */
void mem_init(struct eng_run *r);
/* Sectors one dynamic memory instruction touches. */
int mem_sectors(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d);
/* Issue memory instruction of w at t on (sm, smsp): queues, servers,
 * scoreboard, counters. */
void mem_issue(struct eng_run *r, struct eng_sm *sm, struct eng_smsp *sp,
               struct eng_warp *w, uint64_t t);
/* Which queue a memory instruction uses: 1 = LG, 2 = MIO, 0 = none. */
int mem_queue_of(const struct tr_inst *in);
int queue_busy(const struct eng_queue *q, uint64_t t, uint64_t *until);
void queue_push(struct eng_queue *q, uint64_t t, uint64_t free_at);

/* eng_sm.c */
int dep_kind(int dep); /* enum tr_dep (not TR_DEP_PIPE) -> SBK_* */
void sm_step(struct eng_run *r, int smi, uint64_t t);

/* eng_gpu.c: the dispatcher gives a freed block slot its next block. */
void gpu_block_retired(struct eng_run *r, int smi, int bslot, uint64_t t);

#endif
