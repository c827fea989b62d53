/* arch.h — the modelled GPU: one immutable value loaded from a YAML config.
 *
 * Data flows one way: YAML (+ --set overrides) -> struct arch -> occupancy,
 * engine, reports.  Nothing writes to a struct arch after arch_load() returns.
 * Every field below has a YAML key "section.key"; docs/config.md lists them
 * with units, defaults and sources (generated from the schema in arch_schema.c,
 * so the two cannot drift).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ARCH_H
#define SMSIM_ARCH_H

#include <stddef.h>
#include <stdio.h>

enum { ARCH_MAX_CARVEOUTS = 16, ARCH_NAME_MAX = 64, ARCH_ERR_MAX = 512 };

/* Execution pipes of one SM sub-partition.  An opcode maps to exactly one. */
enum arch_pipe {
    PIPE_FMA,    /* FP32 FFMA/FADD/FMUL, IMAD on Hopper's FMA-heavy path   */
    PIPE_ALU,    /* integer/logic: IADD3, LOP3, ISETP, SHF, MOV, ...       */
    PIPE_FP64,   /* DFMA, DADD, DMUL                                       */
    PIPE_MUFU,   /* special functions: MUFU.EX2, RSQ, SIN, ...             */
    PIPE_TENSOR, /* HMMA, IMMA, HGMMA                                      */
    PIPE_LSU,    /* memory instructions (LDG, STG, LDS, STS, ATOM, ...)    */
    PIPE_CBU,    /* control: BRA, BAR, EXIT, MEMBAR, ...                   */
    PIPE_COUNT
};

/* How a dependent instruction waits for a pipe's result. */
enum arch_dep {
    DEP_FIXED, /* fixed latency, compiler stall counts -> stall reason "wait" */
    DEP_SHORT  /* variable latency via the short scoreboard -> "short_scoreboard" */
};

enum arch_policy { SCHED_GTO, SCHED_LRR, SCHED_GTY, SCHED_GYB, SCHED_GOB, SCHED_GRR };

struct arch_pipe_cfg {
    int latency;        /* cycles from issue until a dependent may issue        */
    int issue_interval; /* cycles the pipe is busy per warp instruction (per SMSP) */
    int dep;            /* enum arch_dep                                        */
};

struct arch {
    /* --- identity ---------------------------------------------------- */
    char name[ARCH_NAME_MAX];  /* gpu.name: human-readable product name        */
    int cc_major;              /* gpu.cc_major: compute capability major         */
    int cc_minor;              /* gpu.cc_minor: compute capability minor         */
    int sm_count;              /* gpu.sm_count: streaming multiprocessors        */
    double sm_clock_mhz;       /* gpu.sm_clock_mhz: SM clock used for GB/s <-> B/cycle */

    /* --- SM limits --------------------------------------------------- */
    int subpartitions;         /* sm.subpartitions: schedulers (SMSPs) per SM    */
    int warp_size;             /* sm.warp_size: threads per warp                 */
    int max_warps_per_sm;      /* sm.max_warps: resident warps per SM            */
    int max_threads_per_sm;    /* sm.max_threads: resident threads per SM        */
    int max_blocks_per_sm;     /* sm.max_blocks: resident blocks per SM          */
    int max_threads_per_block; /* sm.max_threads_per_block: launch limit         */

    /* --- registers --------------------------------------------------- */
    int regs_per_sm;           /* registers.per_sm: 32-bit registers per SM      */
    int regs_per_block;        /* registers.per_block: max per block             */
    int max_regs_per_thread;   /* registers.max_per_thread                       */
    int reg_alloc_unit;        /* registers.alloc_unit: per-warp allocation unit */

    /* --- shared memory ----------------------------------------------- */
    int smem_per_sm;           /* shared_memory.per_sm: max carveout, bytes      */
    int smem_per_block;        /* shared_memory.per_block: default per-block max */
    int smem_per_block_optin;  /* shared_memory.per_block_optin: opt-in max      */
    int smem_reserved_per_block; /* shared_memory.reserved_per_block: driver reserve */
    int smem_alloc_granularity;  /* shared_memory.alloc_granularity: bytes       */
    int carveouts_kb[ARCH_MAX_CARVEOUTS]; /* shared_memory.carveouts_kb: legal sizes, ascending */
    int n_carveouts;           /* number of valid entries in carveouts_kb        */
    int l1_smem_kb;            /* shared_memory.l1_smem_total_kb: unified L1+smem per SM */

    /* --- barriers ---------------------------------------------------- */
    int barriers_per_block;    /* barriers.per_block: named barriers per block   */
    int barrier_multiplier;    /* barriers.sm_multiplier: barrier slots per resident
                                  block (CC>=9; 0 disables the barrier limit)    */

    /* --- scheduler (engine) ------------------------------------------ */
    int policy;                /* scheduler.policy: enum arch_policy            */
    int issue_width;           /* scheduler.issue_width: instructions per cycle per SMSP */
    int fetch_latency;         /* scheduler.fetch_latency: cycles from warp launch to first instruction */
    int ibuffer_depth;         /* scheduler.ibuffer_depth: decoded instructions buffered per warp */
    int branch_latency;        /* scheduler.branch_latency: cycles a taken branch stalls its warp */
    int branch_fetch;          /* scheduler.branch_fetch: then cycles to fetch its target */
    int block_launch_latency;  /* scheduler.block_launch_latency: cycles to place a block on an SM */
    int launch_start;          /* scheduler.launch_start: kernel start to the first block dispatch */
    int launch_drain;          /* scheduler.launch_drain: last warp retired to kernel end */
    double dispatch_launch;    /* scheduler.dispatch_launch: GPU-wide dispatcher's cycles
                                  per block it hands out (0 = free)               */
    double dispatch_retire;    /* scheduler.dispatch_retire: its cycles per finished block
                                  it takes back (0 = free)                        */
    double sm_block_cycles;    /* scheduler.sm_block_cycles: an SM's launch cost per block */
    int icache_cold;           /* scheduler.icache_cold: extra cycles of an SM's first
                                  instruction fetch of the kernel                 */
    int icache_l0_bytes;       /* scheduler.icache_l0_bytes: a warp's own instruction
                                  cache (128-byte lines); 0 = no instruction caches */
    int icache_l1_bytes;       /* scheduler.icache_l1_bytes: the SM's L1 instruction cache */
    int icache_l1_latency;     /* scheduler.icache_l1_latency: cycles of an L0 fill from
                                  the L1 (from the port taking it)                */
    int icache_fill_cycles;    /* scheduler.icache_fill_cycles: an SMSP's fill port is
                                  busy this long per line                         */
    int icache_l2_latency;     /* scheduler.icache_l2_latency: more cycles when the L1
                                  misses a line the SM fetched before             */
    int icache_dram_latency;   /* scheduler.icache_dram_latency: more cycles when the L1
                                  misses a line the SM never fetched in the kernel */
    int const_l0_bytes;        /* scheduler.const_l0_bytes: the SM's immediate constant
                                  cache (64-byte lines); 0 = no constant caches   */
    int const_l0_latency;      /* scheduler.const_l0_latency: cycles of a miss served by
                                  the second-level constant cache                 */
    int const_l1_bytes;        /* scheduler.const_l1_bytes: the second level (256-byte lines) */
    int const_l2_latency;      /* scheduler.const_l2_latency: more cycles when the second
                                  level misses a line the SM read before          */
    int const_dram_latency;    /* scheduler.const_dram_latency: more cycles when it misses a
                                  line the SM never read in the kernel            */
    double sm_warp_cycles;     /* scheduler.sm_warp_cycles: an SM's launch cost per warp of
                                  the block                                       */
    int warp_release;          /* scheduler.warp_release: cycles an exited warp still holds
                                  its SM warp slot (sm__warps_active, not smsp__)  */
    int assign_ctl;            /* scheduler.assign_ctl: 1 = derive control bits for
                                  traces without them (sim/trace/trace_ctl.c), 0 =
                                  such traces use the register scoreboard         */

    /* --- pipes (engine) ---------------------------------------------- */
    struct arch_pipe_cfg pipe[PIPE_COUNT]; /* pipes.<name>.{latency,issue_interval,dep} */
    struct arch_pipe_cfg fmaheavy; /* pipes.fmaheavy.*: second FP32 datapath of the fma pipe
                                      (issue_interval 0 = none: one fma pipe, as before);
                                      latency/dep apply to heavy-only opcodes (IMAD, IDP) */
    int alu_on_heavy;          /* pipes.fmaheavy.shares_alu: 1 = ALU-pipe instructions also
                                  occupy FMA-heavy (one datapath, one busy clock)          */

    /* --- memory (engine) --------------------------------------------- */
    int smem_latency;          /* memory.smem_latency: LDS load-to-use, cycles   */
    int smem_banks;            /* memory.smem_banks: banks of 4 bytes            */
    int l1_latency;            /* memory.l1_latency: L1 hit load-to-use, cycles  */
    int l2_latency;            /* memory.l2_latency: L2 hit load-to-use, cycles  */
    int dram_latency;          /* memory.dram_latency: unloaded DRAM load-to-use */
    int l2_size_kb;            /* memory.l2_size_kb: L2 capacity                 */
    int sector_bytes;          /* memory.sector_bytes: coalescing unit           */
    double l1_bytes_per_clk;   /* memory.l1_bytes_per_clk: per-SM L1 bandwidth   */
    double l2_bytes_per_clk;   /* memory.l2_bytes_per_clk: GPU-wide L2 bandwidth */
    double dram_gbps;          /* memory.dram_gbps: DRAM bandwidth, GB/s (1e9)   */
    int line_bytes;            /* memory.line_bytes: L1/L2 cache line (tag) size  */
    double l1_cycles_per_line; /* memory.l1_cycles_per_line: L1/TEX latency per excess line */
    double l2_cycles_per_line; /* memory.l2_cycles_per_line: L2 latency per excess line */
    double dram_cycles_per_line; /* memory.dram_cycles_per_line: DRAM latency per excess line */
    int lsu_queue_depth;       /* memory.lg_queue_depth: global/local instrs in flight per SMSP before lg_throttle */
    int mio_queue_depth;       /* memory.mio_queue_depth: shared/MUFU instrs queued per SMSP before mio_throttle */
    int l1_ways;               /* memory.l1_ways: L1 associativity (tags)        */
    int l2_ways;               /* memory.l2_ways: L2 associativity (tags)        */
    int l2_partitions;         /* memory.l2_partitions: L2 halves an SM is near one of (tags) */
    double l2_far_latency;     /* memory.l2_far_latency: extra cycles of a hit in the far partition */
    int l2_partition_run;      /* memory.l2_partition_run: consecutive SMs near the same partition */
    int l1_mshr_lines;         /* memory.l1_mshr_lines: miss-table entries per SM, 0 = no limit */
    int l1_mshr_inst_entries;  /* memory.l1_mshr_inst_entries: entries a missing load takes besides its lines */
    int l1_store_sectors;      /* memory.l1_store_sectors: store sectors awaiting L2 per SM, 0 = no limit */
    int dram_banks;            /* memory.dram_banks: independent DRAM servers     */
    double l2_latency_spread;  /* memory.l2_latency_spread: mean of an L2 hit's exponential extra latency */
    double dram_latency_spread; /* memory.dram_latency_spread: the same for DRAM */
    int dram_spread_bytes;     /* memory.dram_spread_bytes: contiguous bytes sharing one DRAM draw */
    int dram_corr_bytes;       /* memory.dram_corr_bytes: aligned region whose lines may share a DRAM draw, 0 = none */
    double dram_corr_share;    /* memory.dram_corr_share: fraction of a region's lines taking its draw */
    double dram_mix_read;      /* memory.dram_mix_read: extra bank time of a read sector in mixed traffic */
    double dram_mix_write;     /* memory.dram_mix_write: the same for a written-back sector */
    double dram_mix_window;    /* memory.dram_mix_window: cycles after which a direction counts as gone */
    double dram_access_sectors; /* memory.dram_access_sectors: bank time of one access beyond its sectors */
    double dram_write_queue;   /* memory.dram_write_queue: lines a bank's write queue holds ahead of its service */
    int dram_write_batch;      /* memory.dram_write_batch: write-backs a bank gathers before serving them at once, 0 = none */
    int l1_reserve_kb;         /* memory.l1_reserve_kb: KiB of the L1/shared array not holding data */
    int l1_set_index;          /* memory.l1_set_index: ARCH_INDEX_HASH or ARCH_INDEX_MODULO */
    int l1_store_allocate;     /* memory.l1_store_allocate: stores leave their sectors valid in L1 */
    int warm_caches;           /* memory.warm_caches: L2 tags carry over to the run's next launch */
};

/* How a tag array picks a line's set (memory.l1_set_index). */
enum { ARCH_INDEX_HASH = 0, ARCH_INDEX_MODULO = 1 };

/* One "section.key=value" override, applied after the file with the same
 * validation as the file (errors name "--set" as the file). */
struct arch_override {
    const char *text;          /* "section.key=value" as typed                   */
};

/* Load `path`, apply `n` overrides, validate.  Returns 0 on success.  On
 * failure returns -1 and writes exactly one line "file:line:col: message"
 * (no newline) into err[ARCH_ERR_MAX]; *out is then unspecified. */
int arch_load(const char *path, const struct arch_override *ov, int n,
              struct arch *out, char err[ARCH_ERR_MAX]);

/* Same, from a YAML string (tests); `name` stands in for the file name. */
int arch_load_string(const char *yaml, const char *name,
                     const struct arch_override *ov, int n,
                     struct arch *out, char err[ARCH_ERR_MAX]);

/* Make a message safe for a terminal, in place (at most cap bytes with the
 * NUL, and at most ARCH_MSG_MAX): control bytes, DEL, bytes that are not
 * UTF-8 and the invisible byte-order mark become \xHH, so input bytes such
 * as an escape sequence are shown, not obeyed.  Idempotent.  Every module's
 * reader calls it on its messages (sim/arch/arch_msg.c). */
enum { ARCH_MSG_MAX = 4096 };
void arch_msg_escape(char *msg, size_t cap);

/* Print the effective configuration as YAML that arch_load() accepts. */
void arch_print_yaml(const struct arch *a, FILE *f);

/* Print docs/config.md (every key: unit, required, default, meaning). */
void arch_print_schema_markdown(FILE *f);

/* Name of a pipe ("fma", "alu", ...) and of a policy ("gto", "lrr", ...). */
const char *arch_pipe_name(int pipe);
const char *arch_policy_name(int policy);

/* DRAM bandwidth in bytes per SM clock cycle (whole GPU). */
double arch_dram_bytes_per_clk(const struct arch *a);

#endif
