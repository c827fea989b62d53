/* arch_schema.c — the single description of every configuration key.
 *
 * The loader (arch_load.c), the --set overrides, the YAML printer and the
 * markdown reference (arch_print.c) all walk this table; adding a key here
 * is the only step needed to make it loadable, overridable, printable and
 * documented.  Defaults exist only for timing-model keys; hardware limits
 * that decide occupancy are required, so a config never silently inherits
 * another GPU's limits.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>
#include "arch/arch_schema.h"

static const char *const policy_names[] = { "gto", "lrr", "gty", "gyb", "gob", "grr", NULL };
static const char *const dep_names[] = { "fixed", "short", NULL };
static const char *const index_names[] = { "hash", "modulo", NULL };
static const char *const pipe_names[PIPE_COUNT] = {
    "fma", "alu", "fp64", "mufu", "tensor", "lsu", "cbu"
};

#define OFF(field) offsetof(struct arch, field)
#define POFF(p, field) (offsetof(struct arch, pipe) + (size_t)(p) * sizeof(struct arch_pipe_cfg) \
                        + offsetof(struct arch_pipe_cfg, field))

/* Plain keys: path, type, field, min, max, default, unit, meaning. */
#define KI(path, field, lo, hi, def, unit, doc) \
    { path, AK_INT, OFF(field), 0, lo, hi, def, unit, NULL, doc }
#define KD(path, field, lo, hi, def, unit, doc) \
    { path, AK_DOUBLE, OFF(field), 0, lo, hi, def, unit, NULL, doc }

/* The three keys of one pipe; the defaults are the H100 leads (see configs/h100.yaml). */
#define PIPE(name, p, what, lat, ivl, dep_def)                                              \
    { "pipes." name ".latency", AK_INT, POFF(p, latency), 0, 1, 10000, lat, "cycles", NULL, \
      what ": cycles from issue until a dependent instruction may issue" },               \
    { "pipes." name ".issue_interval", AK_INT, POFF(p, issue_interval), 0, 1, 1024, ivl,   \
      "cycles", NULL,                                                                      \
      what ": cycles the sub-partition's pipe is busy per warp instruction" },             \
    { "pipes." name ".dep", AK_ENUM, POFF(p, dep), 0, 0, 1, dep_def, "", dep_names,             \
      what ": how a dependent waits (fixed: compiler stall count, ncu 'wait'; "            \
           "short: short scoreboard)" }

static const struct arch_key keys[] = {
    /* gpu */
    { "gpu.name", AK_STRING, OFF(name), 0, 1, ARCH_NAME_MAX - 1, NULL, "", NULL,
      "product name, printed in reports" },
    KI("gpu.cc_major", cc_major, 1, 20, NULL, "", "compute capability, major"),
    KI("gpu.cc_minor", cc_minor, 0, 9, NULL, "", "compute capability, minor"),
    KI("gpu.sm_count", sm_count, 1, 1024, NULL, "SMs", "streaming multiprocessors on the GPU"),
    KD("gpu.sm_clock_mhz", sm_clock_mhz, 1, 10000, NULL, "MHz",
       "SM clock; converts GB/s to bytes per cycle"),
    /* sm */
    KI("sm.subpartitions", subpartitions, 1, 16, NULL, "SMSPs",
       "warp schedulers (sub-partitions) per SM"),
    KI("sm.warp_size", warp_size, 1, 64, NULL, "threads", "threads per warp"),
    KI("sm.max_warps", max_warps_per_sm, 1, 1024, NULL, "warps", "resident warps per SM"),
    KI("sm.max_threads", max_threads_per_sm, 1, 65536, NULL, "threads", "resident threads per SM"),
    KI("sm.max_blocks", max_blocks_per_sm, 1, 1024, NULL, "blocks", "resident blocks per SM"),
    KI("sm.max_threads_per_block", max_threads_per_block, 1, 65536, NULL, "threads",
       "largest block a launch may use"),
    /* registers */
    KI("registers.per_sm", regs_per_sm, 1, 16777216, NULL, "registers",
       "32-bit registers per SM"),
    KI("registers.per_block", regs_per_block, 1, 16777216, NULL, "registers",
       "32-bit registers one block may use"),
    KI("registers.max_per_thread", max_regs_per_thread, 1, 1024, NULL, "registers",
       "most registers a thread may use; more makes the launch invalid"),
    KI("registers.alloc_unit", reg_alloc_unit, 1, 65536, NULL, "registers",
       "per-warp allocation granularity (regs x warp_size rounds up to this)"),
    /* shared_memory */
    KI("shared_memory.per_sm", smem_per_sm, 0, 16777216, NULL, "bytes",
       "shared memory per SM at the largest carveout"),
    KI("shared_memory.per_block", smem_per_block, 0, 16777216, NULL, "bytes",
       "per-block limit without the opt-in attribute"),
    KI("shared_memory.per_block_optin", smem_per_block_optin, 0, 16777216, NULL, "bytes",
       "per-block limit with cudaFuncAttributeMaxDynamicSharedMemorySize"),
    KI("shared_memory.reserved_per_block", smem_reserved_per_block, 0, 1048576, NULL, "bytes",
       "shared memory the driver reserves for every resident block"),
    KI("shared_memory.alloc_granularity", smem_alloc_granularity, 1, 65536, NULL, "bytes",
       "a block's shared memory rounds up to a multiple of this"),
    { "shared_memory.carveouts_kb", AK_INTLIST, OFF(carveouts_kb), OFF(n_carveouts), 0, 16384,
      NULL, "KiB", NULL, "legal shared-memory carveouts, strictly ascending" },
    KI("shared_memory.l1_smem_total_kb", l1_smem_kb, 0, 16384, NULL, "KiB",
       "unified L1 data cache + shared memory per SM"),
    /* barriers */
    KI("barriers.per_block", barriers_per_block, 1, 64, NULL, "barriers",
       "named barriers (bar.sync ids) per block"),
    KI("barriers.sm_multiplier", barrier_multiplier, 0, 64, NULL, "",
       "barrier slots per resident block for the occupancy barrier limit; 0 = no barrier limit"),
    /* scheduler */
    { "scheduler.policy", AK_ENUM, OFF(policy), 0, 0, 1, "gto", "", policy_names,
      "warp selection: gto = greedy-then-oldest, lrr = loose round robin, gty = "
      "greedy-then-youngest (Huerta et al. MICRO 2025), gyb = greedy, then the youngest "
      "block, round robin among its warps, gob = greedy, then the oldest block, round robin "
      "among its warps, grr = greedy, then round robin over all warps (GH100's warps progress "
      "together, within and across blocks)" },
    KI("scheduler.issue_width", issue_width, 1, 8, "1", "instructions",
       "warp instructions one sub-partition issues per cycle"),
    KI("scheduler.fetch_latency", fetch_latency, 0, 10000, "8", "cycles",
       "from warp launch until its first instruction can issue"),
    KI("scheduler.ibuffer_depth", ibuffer_depth, 1, 64, "2", "instructions",
       "decoded instructions buffered per warp"),
    KI("scheduler.branch_latency", branch_latency, 0, 10000, "8", "cycles",
       "cycles a taken branch stalls its warp (ncu 'branch_resolving')"),
    KI("scheduler.branch_fetch", branch_fetch, 0, 10000, "0", "cycles",
       "after those, cycles until the branch target is fetched (ncu 'no_instruction'; "
       "an instruction-cache miss of the target adds its own wait)"),
    KI("scheduler.block_launch_latency", block_launch_latency, 0, 1000000, "100", "cycles",
       "least cycles from a block slot freed on an SM to the next block resident in it"),
    KI("scheduler.launch_start", launch_start, 0, 1000000, "0", "cycles",
       "from kernel start until the dispatcher hands out the first block"),
    KI("scheduler.launch_drain", launch_drain, 0, 1000000, "0", "cycles",
       "from the last warp's retirement until the kernel ends (counted in elapsed cycles)"),
    KD("scheduler.dispatch_launch", dispatch_launch, 0, 1000000, "0", "cycles",
       "GPU-wide block dispatcher, one for all SMs: cycles it is busy per block it hands "
       "out (0 = free)"),
    KD("scheduler.dispatch_retire", dispatch_retire, 0, 1000000, "0", "cycles",
       "the same dispatcher: cycles it is busy per finished block it takes back; a freed "
       "slot is refilled only after that (0 = free).  Steady rate: 1 / (dispatch_launch + "
       "dispatch_retire) blocks per cycle"),
    KD("scheduler.sm_block_cycles", sm_block_cycles, 0, 1000000, "0", "cycles",
       "an SM starts its blocks one at a time: cycles between two block starts on one SM "
       "(plus scheduler.sm_warp_cycles per warp of the block)"),
    KI("scheduler.icache_cold", icache_cold, 0, 100000, "0", "cycles",
       "an SM's first instruction fetch of a kernel takes this much longer (the "
       "instruction cache starts empty); warps that start before it arrives wait for it"),
    KI("scheduler.icache_l0_bytes", icache_l0_bytes, 0, 1 << 24, "0", "bytes",
       "each warp's own instruction cache (L0), direct-mapped by 128-byte line; a warp "
       "that moves to a line not in it waits for a fill (ncu 'no_instruction').  0 = no "
       "instruction caches (only fetch_latency, branch_latency, icache_cold)"),
    KI("scheduler.icache_l1_bytes", icache_l1_bytes, 0, 1 << 26, "0", "bytes",
       "the SM's L1 instruction cache, direct-mapped by 128-byte line, behind the warps' L0s "
       "(0 = none: every L0 miss goes to L2); with icache_l0_bytes > 0 only"),
    KI("scheduler.icache_l1_latency", icache_l1_latency, 0, 100000, "0", "cycles",
       "an L0 miss that the L1 serves: cycles from the SMSP's fill port taking the line until "
       "it is in the warp's L0.  A warp asks for the next line when it has one (one line of "
       "sequential prefetch)"),
    KI("scheduler.icache_fill_cycles", icache_fill_cycles, 0, 100000, "0", "cycles",
       "each SMSP has one L0 fill port, busy this long per line it takes (demand or prefetch)"),
    KI("scheduler.icache_l2_latency", icache_l2_latency, 0, 100000, "0", "cycles",
       "an L1 instruction-cache miss of a line the SM fetched before in the kernel: this "
       "many more cycles (the port is not held for them)"),
    KI("scheduler.icache_dram_latency", icache_dram_latency, 0, 100000, "0", "cycles",
       "an L1 instruction-cache miss of a line the SM never fetched in the kernel (the "
       "kernel's code starts in DRAM, as after ncu's cache flush): this many more cycles "
       "instead of icache_l2_latency"),
    KI("scheduler.const_l0_bytes", const_l0_bytes, 0, 1 << 24, "0", "bytes",
       "the SM's immediate constant cache, direct-mapped by 64-byte line: an instruction "
       "with a c[bank][offset] source (ULDC, FFMA c[..], ...; not LDC) whose line it lacks "
       "waits before it may issue (ncu 'imc_miss').  0 = no constant caches"),
    KI("scheduler.const_l0_latency", const_l0_latency, 0, 100000, "0", "cycles",
       "an immediate-constant miss that the second-level constant cache serves"),
    KI("scheduler.const_l1_bytes", const_l1_bytes, 0, 1 << 24, "0", "bytes",
       "the SM's second-level constant cache, direct-mapped by 256-byte line (0 = none: every "
       "immediate-constant miss goes on to L2); with const_l0_bytes > 0 only"),
    KI("scheduler.const_l2_latency", const_l2_latency, 0, 100000, "0", "cycles",
       "a second-level constant miss of a line the SM read before in the kernel: this many "
       "more cycles"),
    KI("scheduler.const_dram_latency", const_dram_latency, 0, 100000, "0", "cycles",
       "a second-level constant miss of a line the SM never read in the kernel: this many "
       "more cycles instead of const_l2_latency"),
    KD("scheduler.sm_warp_cycles", sm_warp_cycles, 0, 100000, "0", "cycles",
       "an SM's start cost per warp of a block: warp i of a block becomes resident "
       "i x this after the block's start, and the SM's next block start waits for it"),
    KI("scheduler.warp_release", warp_release, 0, 100000, "0", "cycles",
       "after a warp retires the SM frees its warp slot this much later: the warp counts in "
       "sm__warps_active (not in smsp__warps_active) until then, and its block's slot is "
       "taken back by the dispatcher only after its last warp's release"),
    KI("scheduler.assign_ctl", assign_ctl, 0, 1, "0", "",
       "traces whose instructions carry no control bits (hand-written native traces): 1 = "
       "an assignment pass derives stall counts, dependence counters, wait masks, yield and "
       "reuse bits from the pipe latencies as ptxas does, so they run on the compiler-guided "
       "issue stage; 0 = they use the register scoreboard (Accel-Sim traces always do)"),
    /* pipes */
    PIPE("fma", PIPE_FMA, "FP32 pipe (FFMA, FADD, FMUL)", "4", "1", "fixed"),
    PIPE("alu", PIPE_ALU, "integer/logic pipe (IADD3, LOP3, ISETP, ...)", "4", "2", "fixed"),
    PIPE("fp64", PIPE_FP64, "FP64 pipe (DFMA, DADD, DMUL)", "8", "2", "fixed"),
    PIPE("mufu", PIPE_MUFU, "special-function pipe (MUFU.*)", "18", "8", "short"),
    PIPE("tensor", PIPE_TENSOR, "tensor pipe (HMMA, IMMA)", "32", "4", "fixed"),
    PIPE("lsu", PIPE_LSU, "load/store pipe (loads, stores and LDS time their results by "
         "memory.*; the latency is that of SHFL and SYNCS results)", "4", "4", "short"),
    PIPE("cbu", PIPE_CBU, "control pipe (BRA, BAR, EXIT, ...)", "4", "2", "fixed"),
    { "pipes.fmaheavy.latency", AK_INT, OFF(fmaheavy.latency), 0, 0, 10000, "0", "cycles", NULL,
      "FMA-heavy datapath: cycles from issue until a dependent of a heavy-only opcode "
      "(IMAD, IMUL, IDP) may issue" },
    { "pipes.fmaheavy.issue_interval", AK_INT, OFF(fmaheavy.issue_interval), 0, 0, 1024, "0",
      "cycles", NULL,
      "FMA-heavy datapath: cycles it is busy per warp instruction.  0 = no split (one fma "
      "pipe for FP32 and IMAD, pipes.fma.*).  > 0: the fma pipe is two datapaths, "
      "FMA-lite (pipes.fma.issue_interval) and FMA-heavy; FP32 issues to whichever is free, "
      "IMAD/IMUL/IDP only to FMA-heavy, FP16x2 to both at once" },
    { "pipes.fmaheavy.shares_alu", AK_INT, OFF(alu_on_heavy), 0, 0, 1, "0", "", NULL,
      "1: ALU-pipe instructions (IADD3, LOP3, LEA, ...) run on the FMA-heavy datapath, so "
      "an ALU and a heavy instruction each keep the other waiting for its issue interval; "
      "0: separate datapaths (GH100, measured).  Needs pipes.fmaheavy.issue_interval > 0" },
    { "pipes.fmaheavy.dep", AK_ENUM, OFF(fmaheavy.dep), 0, 0, 1, "fixed", "", dep_names,
      "FMA-heavy datapath: how a dependent of a heavy-only opcode waits" },
    /* memory */
    KI("memory.smem_latency", smem_latency, 1, 100000, "29", "cycles",
       "shared-memory load to use (LDS, no bank conflict)"),
    KI("memory.smem_banks", smem_banks, 1, 128, "32", "banks", "shared-memory banks of 4 bytes"),
    KI("memory.l1_latency", l1_latency, 1, 100000, "40", "cycles", "L1 hit load to use"),
    KI("memory.l2_latency", l2_latency, 1, 100000, "290", "cycles", "L2 hit load to use"),
    KI("memory.dram_latency", dram_latency, 1, 100000, "700", "cycles",
       "unloaded DRAM load to use"),
    KI("memory.l2_size_kb", l2_size_kb, 1, 16777216, NULL, "KiB", "L2 capacity of the GPU"),
    KI("memory.sector_bytes", sector_bytes, 1, 4096, "32", "bytes",
       "coalescing and L1/L2 transfer unit"),
    KD("memory.l1_bytes_per_clk", l1_bytes_per_clk, 1, 65536, "128", "bytes/cycle",
       "L1/shared-memory bandwidth of one SM"),
    KD("memory.l2_bytes_per_clk", l2_bytes_per_clk, 1, 1000000, "5120", "bytes/cycle",
       "L2 bandwidth of the whole GPU"),
    KD("memory.dram_gbps", dram_gbps, 1, 1000000, NULL, "GB/s", "DRAM bandwidth (1 GB = 1e9 B)"),
    KI("memory.line_bytes", line_bytes, 1, 65536, "128", "bytes",
       "cache line (one tag) of L1 and L2; sectors per line = line_bytes / sector_bytes"),
    KD("memory.l1_cycles_per_line", l1_cycles_per_line, 0, 100000, "0", "cycles",
       "L1/TEX latency added per excess line: a warp access touching more lines than its "
       "sectors need (divergent) waits this much longer per extra line; 0 = charge bytes only"),
    KD("memory.l2_cycles_per_line", l2_cycles_per_line, 0, 100000, "0", "cycles",
       "further latency per excess line for sectors that go to L2"),
    KD("memory.dram_cycles_per_line", dram_cycles_per_line, 0, 100000, "0", "cycles",
       "further latency per excess line for sectors that go to DRAM"),
    KI("memory.lg_queue_depth", lsu_queue_depth, 1, 1024, "16", "instructions",
       "global/local instructions queued per SMSP before ncu 'lg_throttle'"),
    KI("memory.mio_queue_depth", mio_queue_depth, 1, 1024, "16", "instructions",
       "shared/MUFU instructions queued per SMSP before ncu 'mio_throttle'"),
    KI("memory.l1_ways", l1_ways, 0, 1024, "0", "ways",
       "L1 associativity: lines per set of the sectored L1 tag array; 0 (with l2_ways 0) = "
       "no tag arrays: hits come from the capacity rule even for accesses with addresses"),
    KI("memory.l2_ways", l2_ways, 0, 1024, "0", "ways",
       "L2 associativity: lines per set of the sectored L2 tag array; tags need both ways > 0"),
    KI("memory.l2_partitions", l2_partitions, 1, 2, "1", "partitions",
       "L2 partitions (tags only): each holds l2_size_kb / l2_partitions; an SM is near one, a "
       "line's home is one (address hash); a load that misses near is looked up at home and then "
       "kept near too; a store writes at home, and keeps a clean copy near when it came from the "
       "far side, else drops the far copy; 1 = one L2"),
    KD("memory.l2_far_latency", l2_far_latency, 0, 100000, "0", "cycles",
       "extra latency of a load's sectors that hit in the far (home) L2 partition, not the near "
       "one (l2_latency is a near hit)"),
    KI("memory.l2_partition_run", l2_partition_run, 1, 1024, "1", "SMs",
       "SMs 0..run-1 are near partition 0, the next run near 1, and so on alternating (SMs are "
       "numbered in the order the first blocks of a launch go to them)"),
    KI("memory.l1_mshr_lines", l1_mshr_lines, 0, 65536, "0", "entries",
       "entries of an SM's miss table: one per line in flight to L2, plus "
       "l1_mshr_inst_entries per load instruction that sent them; when full the L1 stage "
       "waits (ncu 'lg_throttle' behind it); 0 = no limit"),
    KI("memory.l1_mshr_inst_entries", l1_mshr_inst_entries, 0, 64, "0", "entries",
       "miss-table entries a load instruction that sends lines to L2 takes besides one per "
       "line, for as long as its lines are in flight; 0 = lines only"),
    KI("memory.l1_store_sectors", l1_store_sectors, 0, 1 << 20, "0", "sectors",
       "store credits: sectors of global stores an SM can have sent that L2 has not accepted "
       "yet; when they are taken the L1 stage waits (ncu 'lg_throttle'); 0 = no limit"),
    KI("memory.dram_banks", dram_banks, 1, 65536, "1", "banks",
       "independent DRAM servers, each serving dram_gbps / dram_banks; a line goes to the one "
       "its address hashes to, so queues (loaded latency) grow with utilisation; 1 = one server"),
    KD("memory.l2_latency_spread", l2_latency_spread, 0, 100000, "0", "cycles",
       "mean extra latency of an L2 hit beyond its minimum (exponential tail; l2_latency is the "
       "mean): a warp waiting for many lines waits for the slowest"),
    KD("memory.dram_latency_spread", dram_latency_spread, 0, 100000, "0", "cycles",
       "mean extra latency of a DRAM access beyond its minimum (exponential tail; dram_latency "
       "is the unloaded mean)"),
    KI("memory.dram_spread_bytes", dram_spread_bytes, 1, 1 << 30, "128", "bytes",
       "aligned span of addresses that shares one DRAM latency draw (contiguous lines of one "
       "access arrive together; lines further apart draw independently)"),
    KI("memory.dram_corr_bytes", dram_corr_bytes, 0, 1 << 30, "0", "bytes",
       "aligned region of addresses whose DRAM reads may share one latency draw, across accesses "
       "and warps (dram_corr_share of its lines do; the draw is the region's for the whole run); "
       "0 = every access draws its own"),
    KD("memory.dram_corr_share", dram_corr_share, 0, 1, "0", "fraction",
       "fraction of the lines of a memory.dram_corr_bytes region (chosen by an address hash) "
       "whose DRAM latency is the region's draw; each line's own latency keeps its distribution"),
    KD("memory.dram_mix_read", dram_mix_read, 0, 100, "0", "fraction",
       "read/write turnaround: a DRAM bank that served a write less than dram_mix_window cycles "
       "before takes 1 + this times as long per read sector"),
    KD("memory.dram_mix_write", dram_mix_write, 0, 100, "0", "fraction",
       "the same for a written-back sector after a read: 1 + this times as long"),
    KD("memory.dram_mix_window", dram_mix_window, 0, 1000000, "1000", "cycles",
       "how long after a bank last served one direction (read or write) the other pays the "
       "turnaround (dram_mix_read, dram_mix_write); 0 = never"),
    KD("memory.dram_access_sectors", dram_access_sectors, 0, 64, "0", "sectors",
       "bank time each DRAM access (the sectors of one line a bank serves at once) costs besides "
       "its sectors, in sectors' time: a line read in two pieces costs more than one read whole; "
       "0 = sectors only"),
    KD("memory.dram_write_queue", dram_write_queue, 0, 1000000, "0", "lines",
       "write-back lines a DRAM bank queues before L2 must wait: a store displacing a dirty line "
       "is accepted once that line is less than this many lines of bank time from its service "
       "(0 = once its service starts)"),
    KI("memory.dram_write_batch", dram_write_batch, 0, 4096, "0", "lines",
       "write-back lines a DRAM bank gathers (accepting each at once) before it serves them "
       "together; reads that reach the bank meanwhile wait behind the burst; 0 = each as it comes"),
    KI("memory.l1_reserve_kb", l1_reserve_kb, 0, 1 << 20, "0", "KiB",
       "KiB of the unified L1/shared-memory array that hold no L1 data whatever the carveout "
       "(the L1 tag array gets l1_smem_total_kb - carveout - this)"),
    { "memory.l1_set_index", AK_ENUM, OFF(l1_set_index), 0, 0, 1, "hash", "", index_names,
      "how the L1 tag array picks a line's set: hash = a multiplicative hash of the line "
      "address, modulo = line address modulo the set count (consecutive lines in consecutive "
      "sets)" },
    KI("memory.l1_store_allocate", l1_store_allocate, 0, 1, "0", "",
       "1 = global stores write through L1 and leave the sectors they write valid in it (a "
       "later load of them hits L1); 0 = stores bypass the L1 tag array"),
    KI("memory.warm_caches", warm_caches, 0, 1, "0", "",
       "1 = the L2 tag array (valid and dirty sectors) carries over from one launch to the "
       "next that the same smsim run simulates (ncu --cache-control none); 0 = L2 starts "
       "empty at every launch (ncu's default --cache-control all); L1 starts empty either way"),
};

static const struct arch_section sections[] = {
    { "gpu", "identity and clock of the modelled GPU" },
    { "sm", "per-SM residency limits (occupancy)" },
    { "registers", "register file (occupancy)" },
    { "shared_memory", "shared memory and its carveouts (occupancy)" },
    { "barriers", "named barriers (occupancy, CC 9.0 and later)" },
    { "scheduler", "warp schedulers (timing model)" },
    { "pipes", "execution pipes of one sub-partition (timing model)" },
    { "memory", "memory hierarchy (timing model)" },
};

const struct arch_key *arch_schema_keys(int *n)
{
    *n = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}

const struct arch_section *arch_schema_sections(int *n)
{
    *n = (int)(sizeof sections / sizeof sections[0]);
    return sections;
}

int arch_schema_find(const char *path)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].path, path))
            return (int)i;
    return -1;
}

int arch_schema_is_section(const char *path)
{
    size_t len = strlen(path);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strncmp(keys[i].path, path, len) && keys[i].path[len] == '.')
            return 1;
    return 0;
}

const char *arch_pipe_name(int pipe)
{
    return pipe >= 0 && pipe < PIPE_COUNT ? pipe_names[pipe] : "?";
}

const char *arch_policy_name(int policy)
{
    return policy >= 0 && policy <= SCHED_GRR ? policy_names[policy] : "?";
}

double arch_dram_bytes_per_clk(const struct arch *a)
{
    /* GB/s * 1e9 B/GB / (MHz * 1e6 cycles/s) */
    return a->dram_gbps * 1000.0 / a->sm_clock_mhz;
}
