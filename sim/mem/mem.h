/* mem.h — the memory system, behind one header.
 *
 * The engine (sim/engine) sees memory through a two-stage contract, so that
 * SMs can run on separate threads while every result stays byte-identical
 * on any thread count (sim/engine/eng_par.c):
 *
 *  1. SM-local stage, mem_local(): runs on the SM's thread at the issue of
 *     a memory instruction.  Coalesces the warp's access into sectors,
 *     serves shared memory and constants (the MIO path), passes global and
 *     local accesses through the SM's L1/TEX stage and draws their L1 hits.
 *     It touches only its SM's struct mem_sm and counters.  What must go
 *     further comes back as a struct mem_req.
 *  2. Globally ordered stage, mem_global(): L2 and DRAM, shared by all SMs.
 *     The engine calls it once per request, in (issue cycle, SM, issue
 *     order) order.  Its answer is at least mem_min_latency() cycles after
 *     the issue cycle, which is what lets the engine run every SM alone for
 *     epochs of that length.
 *
 * The model behind it (docs/model.md, "Memory", gives the reasoning):
 *  - accesses with addresses (Accel-Sim traces, native traces with addr= or
 *    a footprint) go through sectored, set-associative L1 (per SM) and L2
 *    (GPU-wide; memory.l2_partitions 2: two halves, each SM near one, a
 *    line homed in one, far hits copied near) tag arrays with LRU; a miss
 *    to a line already in flight
 *    waits for that line's data (merge) instead of sending a request, and a
 *    per-SM miss table (memory.l1_mshr_lines entries: one per line in
 *    flight, l1_mshr_inst_entries per load instruction) holds the L1
 *    stage when it is full; accesses without addresses draw their hits
 *    from a capacity rule (mem_hit_p), the fallback;
 *  - bandwidth servers: the SM's L1/TEX stage and the GPU's L2 serve bytes
 *    at a fixed rate; DRAM is memory.dram_banks servers, a line going to
 *    the one its address hashes to, so queues and loaded latency grow with
 *    utilisation;
 *  - each line's L2/DRAM latency is its level's unloaded latency spread by
 *    a draw (memory.*_latency_spread, an exponential tail), so a warp that
 *    waits for many lines waits for the slowest of them.
 *
 * The in-SM memory pipeline's queues (LG and MIO, per SMSP) live here too:
 * the scheduler asks them whether a memory instruction can issue.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_MEM_H
#define SMSIM_MEM_H

#include <stdint.h>
#include "arch/arch.h"
#include "mem/mem_cache.h"
#include "mem/mem_cal.h"
#include "trace/trace.h"

/* The memory configuration of one run (immutable once made). */
struct mem_cfg {
    const struct arch *a;  /* the GPU                                           */
    double l1_rate;        /* L1/TEX bytes per cycle per SM                     */
    double l2_rate;        /* L2 bytes per cycle, GPU-wide                      */
    double dram_rate;      /* DRAM bytes per cycle, GPU-wide                    */
    double l1_cap;         /* L1 bytes left by the shared-memory carveout       */
    double l2_cap;         /* L2 bytes                                          */
    uint64_t seed;         /* hit draws                                         */
    int per_line;          /* a memory.*_cycles_per_line cost is configured     */
    int tags;              /* accesses with addresses use the tag arrays        */
    double bank_svc;       /* DRAM bank busy cycles per sector                  */
    double acc_scale;      /* spl / (spl + memory.dram_access_sectors)          */
    double wq_slack;       /* bank cycles a write-back may queue, still accepted */
    double l2_base;        /* L2 hit latency without its spread                 */
    double dram_base;      /* DRAM latency without its spread and the bank time
                              of a one-sector access                            */
    uint64_t min_lat;      /* mem_min_latency()                                 */
    uint64_t chunk_lines;  /* lines that share one DRAM latency draw            */
    uint64_t corr_lines;   /* lines of a region sharing draws, 0 = none         */
    uint64_t corr_cut;     /* a line shares when its 53-bit hash is below this  */
};

/* l1_smem_config_bytes: the shared-memory carveout occupancy chose
 * (occ_result.smem_config_bytes); the unified L1/shared array's rest is L1. */
void mem_cfg_init(struct mem_cfg *c, const struct arch *a, uint64_t smem_config_bytes,
                  uint64_t seed);

/* Counters a memory access adds to (sums: any order gives the same). */
struct mem_counters {
    uint64_t dram_bytes;     /* bytes to/from DRAM                              */
    uint64_t l2_bytes;       /* bytes served by L2                              */
    uint64_t l1_sector_hits; /* sectors that hit L1                             */
    uint64_t l1_sectors;     /* sectors through L1                              */
    uint64_t l2_sector_hits; /* sectors that hit L2                             */
    uint64_t l2_sectors;     /* sectors requested from L2                       */
    uint64_t gld_sectors;    /* global-space load sectors (LDG, LDGSTS, ...)    */
    uint64_t gst_sectors;    /* global-space store sectors                      */
};

/* --- the in-SM memory pipeline's queues ---------------------------------- */

/* Which queue a memory instruction waits in before it is served. */
enum mem_queue_id {
    MEM_Q_NONE = 0,        /* not a memory instruction                          */
    MEM_Q_LG = 1,          /* global, local, texture: to L1/TEX                 */
    MEM_Q_MIO = 2          /* shared memory, constants                          */
};
enum mem_queue_id mem_queue_of(const struct tr_inst *in);

/* Requests of one SMSP queue: the cycle each frees its slot. */
struct mem_queue {
    uint64_t *free_at;     /* [cap] slot release cycles; <= t means free        */
    int cap;               /* queue depth from the arch                         */
};
/* 1 when every slot is taken at t, with *until the first that frees. */
int mem_queue_busy(const struct mem_queue *q, uint64_t t, uint64_t *until);
/* Take a free slot at t until free_at. */
void mem_queue_push(struct mem_queue *q, uint64_t t, uint64_t free_at);

/* --- stage 1: SM-local ---------------------------------------------------- */

/* Lines of requests of one epoch, each (line address << 8) | sector mask:
 * what the globally ordered stage looks up in L2 (an SM keeps its own). */
struct mem_lines {
    uint64_t *v;           /* [n] packed lines                                  */
    int n, alloc;          /* used / allocated                                  */
};

/* An SM's own memory units. */
struct mem_sm {
    double l1_free;        /* L1/TEX tag stage: time it is free (fractional)    */
    uint64_t smem_free;    /* shared-memory unit: first free cycle              */
    struct mem_cache l1;   /* L1 tags (accesses with addresses)                 */
    struct mem_mshr mshr;  /* lines in flight, for their limit                  */
    struct mem_mshr scred; /* store sectors not yet accepted by L2 (credits)    */
    struct mem_lines lines; /* this epoch's requests' lines                     */
    int part;              /* its near L2 partition (mem_l2_near)               */
};

enum { MEM_MAX_DEPS = 4 }; /* earlier requests one request can wait for     */

/* What a request needs from the globally ordered stage. */
struct mem_req {
    uint64_t t;            /* issue cycle                                       */
    double t1;             /* time the request left the L1/TEX stage            */
    double rdy;            /* readiness known so far (L1 hits, merges), 0 none  */
    uint64_t key;          /* latency draws: a hash of (seed, warp, instruction) */
    int m;                 /* sectors to L2                                     */
    int h2;                /* of which L2 hits (no lines: drawn)                */
    int m3;                /* L2 load misses (DRAM reads; no lines: drawn)      */
    int wb;                /* DRAM write-backs (stores; no lines: drawn)        */
    int excess;            /* lines beyond what the sectors need (divergence)   */
    int is_store;          /* a store                                           */
    int is_atom;           /* an atomic                                         */
    int tagged;            /* its lines are in the tag arrays (addresses)       */
    int part;              /* the issuing SM's near L2 partition                */
    int lo, nl;            /* its lines: mem_sm.lines.v[lo .. lo + nl); nl 0:
                              no addresses (the capacity rule drew h2/m3/wb)    */
    int ndeps;             /* entries in deps                                   */
    uint32_t deps[MEM_MAX_DEPS]; /* handles of this epoch's requests whose lines
                              it merged into: ready is at least theirs          */
};

/* The SM-local result of one access. */
struct mem_local_res {
    uint64_t ready;        /* cycle the data is usable, if known locally        */
    uint64_t sent;         /* cycle the request leaves its queue (sources read) */
    int global;            /* 1: ready is not known; req goes to mem_global()   */
};

/* An SM's units for a run: 0, or -1 out of memory. */
int mem_sm_init(const struct mem_cfg *c, struct mem_sm *m);
void mem_sm_free(struct mem_sm *m);

/* Issue of memory instruction `in` (dynamic data d) at t by the warp whose
 * unique id is warp_uid (block * warps per block + warp), as its seq-th
 * instruction: the hit draws are a hash of (seed, warp_uid, seq, level), so
 * they do not depend on the order the engine visits warps.  ref: the
 * handle the request gets if it goes to mem_global (the SM's count of such
 * requests this epoch).  Returns -1 when out of memory, else 0. */
int mem_local(const struct mem_cfg *c, struct mem_sm *m, struct mem_counters *cnt,
              const struct tr_inst *in, const struct tr_dyn *d, uint64_t warp_uid,
              uint64_t seq, uint64_t t, uint32_t ref, struct mem_local_res *res,
              struct mem_req *req);
/* Epoch end, on the SM's thread, for each request in handle order: req
 * (handle ref) is ready at `ready`; its lines arrive then.  After the
 * last, mem_sm_epoch_end(). */
void mem_sm_answer(struct mem_sm *m, const struct mem_req *req, uint32_t ref, uint64_t ready);
void mem_sm_epoch_end(struct mem_sm *m);

/* --- stage 2: globally ordered -------------------------------------------- */

/* The GPU-wide servers. */
/* One DRAM bank: its server, and when it last started serving a read and
 * a write (for the read/write turnaround cost). */
struct mem_bank {
    struct mem_cal cal;    /* the bank's bytes per cycle                         */
    double last_rd;        /* start of its latest read service (-1e300: none)    */
    double last_wr;        /* start of its latest write service (-1e300: none)   */
    double wq_bytes;       /* bank time (bytes) of written-back lines gathered   */
    int wq_n;              /* lines gathered (memory.dram_write_batch)           */
};

enum { MEM_L2_PARTS = 2 }; /* most L2 partitions (memory.l2_partitions)       */

struct mem_gpu {
    struct mem_cal l2s;    /* L2 server (GPU-wide bytes per cycle)              */
    struct mem_bank *bank; /* [memory.dram_banks] DRAM banks                    */
    int nbank;             /* entries in bank                                   */
    int oom;               /* a server could not grow: the run fails            */
    struct mem_cache l2[MEM_L2_PARTS]; /* L2 tags per partition (addresses)     */
    int nl2;               /* partitions in use                                 */
    struct mem_counters cnt; /* L2/DRAM outcomes of requests with lines         */
};
int mem_gpu_init(const struct mem_cfg *c, struct mem_gpu *g);
void mem_gpu_free(struct mem_gpu *g);
/* memory.warm_caches: at a launch's end, move g's L2 tags into keep[]
 * (what was there is freed); at the next launch's start, after
 * mem_gpu_init, move them back into g, every line's data arrived.  Kept
 * arrays of another shape than g's (another config) are freed instead.  The
 * counters stay g's, so they are per launch. */
void mem_gpu_keep_l2(struct mem_gpu *g, struct mem_cache keep[MEM_L2_PARTS]);
void mem_gpu_take_l2(struct mem_gpu *g, struct mem_cache keep[MEM_L2_PARTS]);
/* The L2 partition SM `sm` (0-based) is near (memory.l2_partition_run). */
int mem_l2_near(const struct arch *a, int sm);
/* The L2 partition that is the home of `line` (address / line bytes). */
int mem_l2_home(const struct mem_gpu *g, uint64_t line);

/* The cycle the data of req is usable; lines: its SM's mem_sm.lines.v.
 * Call in (t, SM, issue) order. */
uint64_t mem_global(const struct mem_cfg *c, struct mem_gpu *g, const struct mem_req *req,
                    const uint64_t *lines);

/* A lower bound of mem_global(req) - req->t, at least 1. */
uint64_t mem_min_latency(const struct arch *a);

/* --- rules shared with studies and tests ---------------------------------- */

/* Probability that a sector of in hits a cache of cap bytes: footprint <=
 * capacity hits; beyond it a random pattern hits with probability cap /
 * footprint and a stream misses.  -1: footprint unknown. */
double mem_hit_p(const struct tr_inst *in, double cap);
/* The probabilities mem_local draws with: L1 (loads only; 0 when the
 * footprint is unknown) and L2 (1 when unknown: assumed L2-resident). */
void mem_level_p(const struct mem_cfg *c, const struct tr_inst *in, double *p1, double *p2);

/* Sectors one dynamic memory instruction touches.  lines != NULL: an
 * access with addresses also counts its lines into *lines (-1: it could
 * not); otherwise *lines is left as it was (callers start it at -1). */
int mem_sectors(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
                int *lines);
/* The same, and (excess != NULL) the lines (memory.line_bytes) it touches
 * beyond the fewest its sectors need: what mem_local charges per line. */
int mem_shape(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
              int *excess);

#endif
