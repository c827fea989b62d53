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
    uint64_t mask;          /* bit (reg % 64) of every entry that may be live: a
                               quick "no register in common" test (sb_check)     */
    uint64_t ready[SB_MAX]; /* cycle from which the register is usable (or writable) */
    uint16_t reg[SB_MAX];   /* register id in trace.h's flat space                   */
    uint8_t kind[SB_MAX];   /* SBK_* of the entry                                    */
    uint8_t n;              /* entries in use (some may have expired)                */
};

/* One resident warp.  The fields eval() reads come first (one cache line);
 * the scoreboard and the trace cursor follow.  The cycle until which the
 * cached state holds lives in the SMSP's until[] array (scanned every step). */
struct eng_warp {
    uint64_t fetch_ready;  /* first cycle the next instruction is in the buffer    */
    uint64_t bar_until;    /* waits at a barrier while t < bar_until                */
    uint64_t mem_done;     /* all outstanding loads and stores complete (MEMBAR);
                              the known part while npend > 0                      */
    uint64_t store_done;   /* outstanding stores complete; after EXIT: retire cycle
                              (all memory done: drain); known part while npend > 0 */
    uint64_t since;        /* first cycle of the current state interval             */
    const struct tr_inst *ni; /* next instruction to issue (fetched), NULL if none   */
    uint8_t state;         /* enum warp_state over [since, ...)                     */
    uint8_t resident;      /* 1 while the slot holds a live warp                    */
    uint8_t finished;      /* EXIT issued (or stream ended)                         */
    uint8_t branch;        /* the fetch wait is a branch (branch_resolving)         */
    uint8_t ok;            /* conditions 1-4 hold for ni: only pipe/queue can block
                              it (they hold until ni issues: see eval())          */
    uint8_t pipe;          /* pipe of ni (valid with ni)                            */
    uint8_t queue;         /* mem_queue_of(ni) (valid with ni)                      */
    uint8_t unres;         /* parallel run: state at eval_t waits for an L2/DRAM
                              answer (resolved at the epoch end)                  */
    uint16_t npend;        /* parallel run: memory requests not yet resolved        */
    uint16_t wib;          /* warp index within its block                           */
    uint32_t block;        /* linear block index                                    */
    uint64_t age;          /* launch order (GTO's "oldest"): block * wpb + warp     */
    uint64_t launch;       /* cycle the warp became resident                        */
    uint64_t eval_t;       /* parallel run: cycle of the unresolved evaluation      */
    struct tr_dyn dyn;     /* dynamic data of ni                                    */
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
    uint64_t pipe_free[PIPE_COUNT]; /* first cycle each pipe accepts an instruction
                              (pipe_free[PIPE_FMA]: the FMA-lite datapath when the
                              arch splits the fma pipe, pipes.fmaheavy)            */
    uint64_t heavy_free;   /* first cycle the FMA-heavy datapath accepts one        */
    uint64_t *until;       /* [slots_per_smsp] cached state valid for t < until;
                              ENG_NEVER for an empty slot (hot: scanned each step) */
    uint64_t umin;         /* <= min(until[]): the SMSP needs no look before it      */
    int solo;              /* local slot of the only warp eligible at the last step
                              that had one, or of the one due warp it visited that
                              stalled; -1 otherwise                               */
    uint64_t uother;       /* with solo: <= min(until[]) of every other slot, so
                              while t < uother only solo can be due (no scan)     */
    uint64_t active_since; /* cycle the SMSP went from 0 to 1 resident warps        */
    int resident;          /* resident warps                                        */
    int nls;               /* local slots of this SMSP (entries of until[])         */
    int hi;                /* local slots >= hi hold no warp (scan bound)           */
    int last;              /* local slot of the last issued warp, -1 none           */
    struct eng_queue lg;   /* global/local/texture instructions not yet sent to L1  */
    struct eng_queue mio;  /* shared/constant instructions not yet served           */
    struct stats_smsp st;  /* this SMSP's counters, kept here while the SM runs (its
                              thread's own cache lines, not stats_kernel's shared
                              array) and copied into stats_kernel at the end     */
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

/* GPU-wide counters an SM adds to; kept per SM and summed at the end (sums of
 * integers: the order does not matter, so threads cannot change them). */
struct eng_acc {
    uint64_t events;       /* SM steps                                              */
    uint64_t thread_inst;  /* active lanes of issued instructions                   */
    uint64_t dram_bytes;   /* bytes to/from DRAM                                    */
    uint64_t l2_bytes;     /* bytes served by L2                                    */
    uint64_t l1_sector_hits; /* sectors that hit L1                                 */
    uint64_t l1_sectors;   /* sectors through L1                                    */
    uint64_t l2_sector_hits; /* sectors that hit L2                                 */
    uint64_t l2_sectors;   /* sectors requested from L2                             */
    uint64_t last_retire;  /* latest warp retirement on this SM                     */
};

/* Parallel run: the L2/DRAM part of a memory instruction, computed at the
 * epoch end in global (cycle, SM, issue) order exactly as the serial engine
 * computes it at issue (eng_mem.c).  Inputs are the SM-local results; this
 * is all the serial phase reads (eng_par.c copies it into its thread's
 * outbox, so the phase streams through one array per thread). */
struct eng_srv {
    uint64_t t;            /* issue cycle                                           */
    double t1;             /* time the request left the L1/TEX stage                */
    double rdy;            /* readiness known so far (L1 hits), 0 none              */
    int m;                 /* sectors to L2                                         */
    int h2;                /* of which L2 hits                                      */
    int m3;                /* L2 load misses (DRAM reads)                           */
    int wb;                /* DRAM write-backs (stores)                             */
    int excess;            /* lines beyond what the sectors need (divergence)       */
    int is_store;          /* STG/RED-less store                                    */
};

/* Parallel run: a deferred request as its SM keeps it. */
struct eng_req {
    struct eng_srv s;      /* the servers' inputs                                   */
    uint64_t ph;           /* placeholder ready value written to the scoreboard     */
    uint64_t ready;        /* the answer (set before sm_settle)                     */
    int slot;              /* SM warp slot of the issuing warp                      */
    uint8_t is_atom;       /* atomic                                                */
};

/* Parallel run: a block slot freed at cycle t (dispatched at the epoch end). */
struct eng_free_ev {
    uint64_t t;            /* retirement cycle                                      */
    int bslot;             /* block slot                                            */
    int rank;              /* slots this SM freed earlier in the same cycle         */
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
    int resident;          /* resident warps                                        */
    int npending;          /* block slots in BS_PENDING                             */
    double l1_free;        /* L1/TEX tag stage: time it is free (fractional cycles)  */
    uint64_t smem_free;    /* shared-memory unit: first free cycle                  */
    struct eng_bslot *bs;  /* [bps]                                                 */
    struct eng_warp *w;    /* [bps * wpb], slot s lives on SMSP s % subpartitions   */
    struct eng_smsp *sp;   /* [subpartitions]                                       */
    int *elig;             /* [slots_per_smsp] scratch: eligible local slots         */
    int *due;              /* [slots_per_smsp] scratch: local slots due this step    */
    uint8_t *taken;        /* [slots_per_smsp] scratch: pick marks                   */
    struct tr_inst *copies;/* [bps * wpb] per warp slot: room for a sealed copy of an
                              instruction the reader left unsealed (fetch_next)    */
    struct eng_acc acc;    /* counters summed into stats_kernel at the end           */
    struct stats_sm st;    /* this SM's counters (copied into stats_kernel at the end) */
    /* parallel run only (outboxes of one epoch) */
    struct eng_req *req;   /* memory requests waiting for L2/DRAM                    */
    int nreq, capreq;      /* used / allocated                                      */
    struct eng_free_ev *fr;/* freed block slots                                     */
    int nfr, capfr;        /* used / allocated                                      */
    int *unres;            /* slots with an unresolved evaluation                    */
    int nunres;            /* entries in unres ([bps * wpb] allocated)              */
    char err[512];         /* its message                                           */
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

/* Placeholder ready cycles of unresolved requests are >= ENG_PEND (far beyond
 * any simulated cycle, below ENG_NEVER). */
#define ENG_PEND (UINT64_C(1) << 62)

struct eng_run {
    const struct arch *a;       /* the GPU                                         */
    struct trace_kernel *k;     /* the kernel                                      */
    const struct engine_opts *o;/* options                                         */
    const struct engine_observer *obs; /* NULL: no pictures                        */
    struct stats_kernel *st;    /* counters being filled                           */
    struct eng_mem mem;         /* L2/DRAM servers                                 */
    struct eng_sm *sm;          /* [sm_count], line-aligned                        */
    int bps;                    /* resident blocks per SM                          */
    int wpb;                    /* warps per block                                 */
    int sub;                    /* SMSPs per SM                                    */
    int slots_per_smsp;         /* ceil(bps * wpb / subpartitions)                 */
    int no_skip;                /* evaluate every warp every cycle (tests)         */
    int fma_split;              /* pipes.fmaheavy.issue_interval > 0: FMA-lite and
                                   FMA-heavy datapaths (read in every eligibility check) */
    int deferred;               /* parallel run: L2/DRAM and dispatch at epoch ends */
    uint64_t nblocks;           /* blocks in the grid                              */
    uint64_t next_block;        /* next block the dispatcher hands out             */
    struct eng_freed *freed;    /* [sm_count * bps] block slots freed this cycle    */
    int nfreed;                 /* entries in freed                                */
    int error;                  /* set on an internal failure (serial run)         */
    char *err;                  /* message buffer [512]                            */
};

/* A zeroed array of n elements of `size` bytes that shares no cache line
 * with any other allocation (line-aligned, length rounded up to whole
 * lines); release with free().  NULL when out of memory. */
void *eng_line_calloc(size_t n, size_t size);

/* Population count without relying on the POPCNT instruction (gcc's default
 * x86-64 target lacks it and __builtin_popcount calls a library routine). */
static inline int eng_pop32(uint32_t x)
{
    if (x == 0xffffffffu)
        return 32;
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* eng_sb.c.  Instructions passed here are sealed (tr_inst_seal): the
 * scoreboard works from their distinct real registers (rd, rs) and masks. */
void sb_reset(struct eng_sb *sb);
/* Entries the issue of in may add: its destinations, and for memory
 * instructions its sources too (held until the request leaves its queue). */
static inline int sb_need(const struct tr_inst *in)
{
    int mem = in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC;
    return in->ndst + (mem ? in->nsrc : 0);
}
/* Is in blocked by pending registers at t?  Returns 0, or 1 with *until
 * (the cycle the blocking set clears) and *state (enum warp_state).  Only
 * call with a t no earlier than any earlier call's t since the last add
 * (it narrows sb->mask to the entries live at t). */
int sb_check_scan(struct eng_sb *sb, const struct tr_inst *in, uint64_t t, uint64_t *until,
                  int *state);
/* An instruction none of whose registers has its bit in sb->mask matches no
 * entry, and with n + need entries at most the table cannot be full: the
 * common answer needs no scan (inlined into the eligibility check). */
static inline int sb_check(struct eng_sb *sb, const struct tr_inst *in, uint64_t t,
                           uint64_t *until, int *state)
{
    if (!(sb->mask & (in->dmask | in->smask)) &&
        (sb->n + TR_MAX_DST + TR_MAX_SRC <= SB_MAX || sb->n + sb_need(in) <= SB_MAX))
        return 0;
    return sb_check_scan(sb, in, t, until, state);
}
/* At the issue at t of in, record its destinations as written at `ready`
 * with kind SBK_* (not SBK_READ).  Only valid because sb_check passed for
 * it: no destination has a live entry of either class, so each takes a free
 * slot and none merges. */
void sb_add_dst(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                uint64_t t);
/* Record the sources of in as read at `ready` (kind SBK_* | SBK_READ): a
 * live read entry of the same register keeps the later time. */
void sb_add_src(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                uint64_t t);

/* eng_mem.c */
void mem_init(struct eng_run *r);
/* Sectors one dynamic memory instruction touches.  lines != NULL: an
 * access with addresses also counts its lines into *lines (-1: it could
 * not); otherwise *lines is left as it was (callers start it at -1). */
int mem_sectors(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
                int *lines);
/* The same, and (excess != NULL) the lines (memory.line_bytes) it touches
 * beyond the fewest its sectors need: what mem_issue charges per line. */
int mem_shape(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
              int *excess);
/* Issue memory instruction of w at t on (sm, smsp): queues, servers,
 * scoreboard, counters. */
void mem_issue(struct eng_run *r, struct eng_sm *sm, struct eng_smsp *sp,
               struct eng_warp *w, int slot, uint64_t t);
/* Which queue a memory instruction uses: 1 = LG, 2 = MIO, 0 = none. */
int mem_queue_of(const struct tr_inst *in);
int queue_busy(const struct eng_queue *q, uint64_t t, uint64_t *until);
void queue_push(struct eng_queue *q, uint64_t t, uint64_t free_at);

/* eng_sm.c */
int dep_kind(int dep); /* enum tr_dep (not TR_DEP_PIPE) -> SBK_* */
void sm_step(struct eng_run *r, int smi, uint64_t t);
/* Parallel run, epoch end: apply the resolved requests of SM smi to its warps
 * and settle the evaluations that waited for them. */
void sm_settle(struct eng_run *r, int smi);
/* Report an internal error of SM smi at t (one line). */
void sm_error(struct eng_run *r, int smi, uint64_t t, const char *msg);

/* eng_mem.c (parallel run): the L2/DRAM part of a deferred request; returns
 * the cycle its answer is ready. */
uint64_t mem_resolve(struct eng_run *r, const struct eng_srv *s);

/* eng_gpu.c: the dispatcher gives a freed block slot its next block. */
void gpu_block_retired(struct eng_run *r, int smi, int bslot, uint64_t t);
/* Hand pending blocks to the slots in r->freed, all freed at t (in SM order).
 * Returns the cycle they launch, ENG_NEVER if none was left. */
uint64_t gpu_assign_freed(struct eng_run *r, uint64_t t);

/* eng_par.c: the epoch loop (serial when threads == 1).  0 or -1. */
int par_run(struct eng_run *r, int threads);

#endif
