/* arch_check.c — cross-key consistency rules of a configuration.
 *
 * Each key is range-checked on its own while loading; these rules catch
 * combinations that no real GPU has and that would make the occupancy rules
 * (cuda_occupancy.h semantics) or the timing model meaningless.  The table
 * also feeds the "Consistency rules" part of docs/config.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include "arch/arch_schema.h"

static int c_threads(const struct arch *a, char *m, size_t n)
{
    long long want = (long long)a->max_warps_per_sm * a->warp_size;
    if (a->max_threads_per_sm == want)
        return 0;
    snprintf(m, n, "sm.max_threads (%d) must equal sm.max_warps x sm.warp_size (%d x %d = %lld)",
             a->max_threads_per_sm, a->max_warps_per_sm, a->warp_size, want);
    return 1;
}

static int c_subpartitions(const struct arch *a, char *m, size_t n)
{
    if (a->max_warps_per_sm % a->subpartitions == 0)
        return 0;
    snprintf(m, n, "sm.subpartitions (%d) must divide sm.max_warps (%d)",
             a->subpartitions, a->max_warps_per_sm);
    return 1;
}

static int c_block_threads(const struct arch *a, char *m, size_t n)
{
    if (a->max_threads_per_block <= a->max_threads_per_sm)
        return 0;
    snprintf(m, n, "sm.max_threads_per_block (%d) exceeds sm.max_threads (%d)",
             a->max_threads_per_block, a->max_threads_per_sm);
    return 1;
}

static int c_block_warps(const struct arch *a, char *m, size_t n)
{
    if (a->max_threads_per_block % a->warp_size == 0)
        return 0;
    snprintf(m, n, "sm.max_threads_per_block (%d) must be a multiple of sm.warp_size (%d)",
             a->max_threads_per_block, a->warp_size);
    return 1;
}

static int c_regs_block(const struct arch *a, char *m, size_t n)
{
    if (a->regs_per_block <= a->regs_per_sm)
        return 0;
    snprintf(m, n, "registers.per_block (%d) exceeds registers.per_sm (%d)",
             a->regs_per_block, a->regs_per_sm);
    return 1;
}

static int c_regs_split(const struct arch *a, char *m, size_t n)
{
    long long unit = (long long)a->subpartitions * a->reg_alloc_unit;
    if (a->regs_per_sm % unit == 0)
        return 0;
    snprintf(m, n, "registers.per_sm (%d) must be a multiple of sm.subpartitions x "
             "registers.alloc_unit (%d x %d = %lld)",
             a->regs_per_sm, a->subpartitions, a->reg_alloc_unit, unit);
    return 1;
}

static int c_regs_thread(const struct arch *a, char *m, size_t n)
{
    long long u = a->reg_alloc_unit;
    long long warp = ((long long)a->max_regs_per_thread * a->warp_size + u - 1) / u * u;
    if (warp <= a->regs_per_block)
        return 0;
    snprintf(m, n, "one warp at registers.max_per_thread (%d) needs %lld registers, more than "
             "registers.per_block (%d)", a->max_regs_per_thread, warp, a->regs_per_block);
    return 1;
}

static int c_smem_optin(const struct arch *a, char *m, size_t n)
{
    if (a->smem_per_block <= a->smem_per_block_optin)
        return 0;
    snprintf(m, n, "shared_memory.per_block (%d) exceeds shared_memory.per_block_optin (%d)",
             a->smem_per_block, a->smem_per_block_optin);
    return 1;
}

static int c_smem_sm(const struct arch *a, char *m, size_t n)
{
    long long need = (long long)a->smem_per_block_optin + a->smem_reserved_per_block;
    if (need <= a->smem_per_sm)
        return 0;
    snprintf(m, n, "shared_memory.per_block_optin + reserved_per_block (%d + %d = %lld) exceeds "
             "shared_memory.per_sm (%d)", a->smem_per_block_optin, a->smem_reserved_per_block,
             need, a->smem_per_sm);
    return 1;
}

static int c_carve_order(const struct arch *a, char *m, size_t n)
{
    for (int i = 1; i < a->n_carveouts; i++)
        if (a->carveouts_kb[i] <= a->carveouts_kb[i - 1]) {
            snprintf(m, n, "shared_memory.carveouts_kb must be strictly ascending "
                     "(entry %d is %d after %d)", i, a->carveouts_kb[i], a->carveouts_kb[i - 1]);
            return 1;
        }
    return 0;
}

static int c_carve_max(const struct arch *a, char *m, size_t n)
{
    long long top = (long long)a->carveouts_kb[a->n_carveouts - 1] * 1024;
    if (top == a->smem_per_sm)
        return 0;
    snprintf(m, n, "largest shared_memory.carveouts_kb entry (%d KiB = %lld bytes) must equal "
             "shared_memory.per_sm (%d)", a->carveouts_kb[a->n_carveouts - 1], top,
             a->smem_per_sm);
    return 1;
}

static int c_smem_gran(const struct arch *a, char *m, size_t n)
{
    if (a->smem_per_sm % a->smem_alloc_granularity == 0)
        return 0;
    snprintf(m, n, "shared_memory.alloc_granularity (%d) must divide shared_memory.per_sm (%d)",
             a->smem_alloc_granularity, a->smem_per_sm);
    return 1;
}

static int c_l1_total(const struct arch *a, char *m, size_t n)
{
    if ((long long)a->l1_smem_kb * 1024 >= a->smem_per_sm)
        return 0;
    snprintf(m, n, "shared_memory.l1_smem_total_kb (%d KiB) is smaller than shared_memory.per_sm "
             "(%d bytes)", a->l1_smem_kb, a->smem_per_sm);
    return 1;
}

static int c_barrier_cc(const struct arch *a, char *m, size_t n)
{
    if (a->cc_major >= 9 || a->barrier_multiplier == 0)
        return 0;
    snprintf(m, n, "barriers.sm_multiplier must be 0 below compute capability 9.0 (got %d for "
             "CC %d.%d): the CUDA occupancy rules have no barrier limit there",
             a->barrier_multiplier, a->cc_major, a->cc_minor);
    return 1;
}

static int c_lat_l2(const struct arch *a, char *m, size_t n)
{
    if (a->l1_latency <= a->l2_latency)
        return 0;
    snprintf(m, n, "memory.l1_latency (%d) exceeds memory.l2_latency (%d)",
             a->l1_latency, a->l2_latency);
    return 1;
}

static int c_lat_dram(const struct arch *a, char *m, size_t n)
{
    if (a->l2_latency <= a->dram_latency)
        return 0;
    snprintf(m, n, "memory.l2_latency (%d) exceeds memory.dram_latency (%d)",
             a->l2_latency, a->dram_latency);
    return 1;
}

static int c_fmaheavy(const struct arch *a, char *m, size_t n)
{
    if (a->fmaheavy.issue_interval == 0 || a->fmaheavy.latency >= 1)
        return 0;
    snprintf(m, n, "pipes.fmaheavy.latency must be >= 1 when pipes.fmaheavy.issue_interval (%d) "
             "is set", a->fmaheavy.issue_interval);
    return 1;
}

static int c_line(const struct arch *a, char *m, size_t n)
{
    if (a->line_bytes >= a->sector_bytes && a->line_bytes % a->sector_bytes == 0)
        return 0;
    snprintf(m, n, "memory.line_bytes (%d) must be a multiple of memory.sector_bytes (%d)",
             a->line_bytes, a->sector_bytes);
    return 1;
}

/* per-instruction entries act only through the miss table; a one-line
 * load takes 1 + l1_mshr_inst_entries of them, which must fit */
static int c_mshr_inst(const struct arch *a, char *m, size_t n)
{
    if (a->l1_mshr_inst_entries == 0 || a->l1_mshr_lines > a->l1_mshr_inst_entries)
        return 0;
    snprintf(m, n, "memory.l1_mshr_inst_entries (%d) needs memory.l1_mshr_lines (%d) larger than "
             "it: a one-line load takes 1 + l1_mshr_inst_entries entries (0 lines = no miss table)",
             a->l1_mshr_inst_entries, a->l1_mshr_lines);
    return 1;
}

static const struct arch_check checks[] = {
    { "sm.max_threads", "sm.max_warps sm.warp_size",
      "`sm.max_threads` = `sm.max_warps` x `sm.warp_size`", c_threads },
    { "sm.subpartitions", "sm.max_warps",
      "`sm.subpartitions` divides `sm.max_warps`", c_subpartitions },
    { "sm.max_threads_per_block", "sm.max_threads",
      "`sm.max_threads_per_block` <= `sm.max_threads`", c_block_threads },
    { "sm.max_threads_per_block", "sm.warp_size",
      "`sm.max_threads_per_block` is a multiple of `sm.warp_size`", c_block_warps },
    { "registers.per_block", "registers.per_sm",
      "`registers.per_block` <= `registers.per_sm`", c_regs_block },
    { "registers.per_sm", "sm.subpartitions registers.alloc_unit",
      "`registers.per_sm` is a multiple of `sm.subpartitions` x `registers.alloc_unit` "
      "(the occupancy rules split the file evenly over sub-partitions)", c_regs_split },
    { "registers.max_per_thread", "registers.alloc_unit sm.warp_size registers.per_block",
      "one warp at `registers.max_per_thread`, rounded up to `registers.alloc_unit`, fits in "
      "`registers.per_block`", c_regs_thread },
    { "shared_memory.per_block", "shared_memory.per_block_optin",
      "`shared_memory.per_block` <= `shared_memory.per_block_optin`", c_smem_optin },
    { "shared_memory.per_block_optin", "shared_memory.reserved_per_block shared_memory.per_sm",
      "`shared_memory.per_block_optin` + `shared_memory.reserved_per_block` <= "
      "`shared_memory.per_sm`", c_smem_sm },
    { "shared_memory.carveouts_kb", "",
      "`shared_memory.carveouts_kb` is strictly ascending", c_carve_order },
    { "shared_memory.carveouts_kb", "shared_memory.per_sm",
      "the largest `shared_memory.carveouts_kb` entry x 1024 = `shared_memory.per_sm`",
      c_carve_max },
    { "shared_memory.alloc_granularity", "shared_memory.per_sm",
      "`shared_memory.alloc_granularity` divides `shared_memory.per_sm`", c_smem_gran },
    { "shared_memory.l1_smem_total_kb", "shared_memory.per_sm",
      "`shared_memory.l1_smem_total_kb` x 1024 >= `shared_memory.per_sm`", c_l1_total },
    { "barriers.sm_multiplier", "gpu.cc_major",
      "`barriers.sm_multiplier` = 0 when `gpu.cc_major` < 9 (the CUDA occupancy rules apply "
      "no barrier limit before CC 9.0)", c_barrier_cc },
    { "memory.l1_latency", "memory.l2_latency",
      "`memory.l1_latency` <= `memory.l2_latency`", c_lat_l2 },
    { "memory.l2_latency", "memory.dram_latency",
      "`memory.l2_latency` <= `memory.dram_latency`", c_lat_dram },
    { "pipes.fmaheavy.latency", "pipes.fmaheavy.issue_interval",
      "`pipes.fmaheavy.latency` >= 1 when `pipes.fmaheavy.issue_interval` > 0", c_fmaheavy },
    { "memory.line_bytes", "memory.sector_bytes",
      "`memory.line_bytes` is a multiple of `memory.sector_bytes`", c_line },
    { "memory.l1_mshr_inst_entries", "memory.l1_mshr_lines",
      "`memory.l1_mshr_lines` > `memory.l1_mshr_inst_entries` when the latter is > 0", c_mshr_inst },
};

const struct arch_check *arch_schema_checks(int *n)
{
    *n = (int)(sizeof checks / sizeof checks[0]);
    return checks;
}
