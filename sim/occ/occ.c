/* occ.c — theoretical occupancy (resident blocks per SM).
 *
 * The rules and their order are those of cudaOccMaxActiveBlocksPerMultiprocessor
 * in the CUDA 13.0 toolkit's cuda_occupancy.h for compute capability 7.0 and
 * later (CUDA's own CPU-side occupancy calculator; on an H200 it reproduces
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor).  Where the header switches
 * on the compute capability, smsim reads the value from struct arch instead,
 * so hypothetical GPUs work:
 *
 *   header (per-CC switch)                   struct arch field
 *   cudaOccSMemAllocationGranularity         smem_alloc_granularity
 *   cudaOccRegAllocationGranularity          reg_alloc_unit
 *   cudaOccRegAllocationMaxPerThread (256)   max_regs_per_thread (255), see below
 *   cudaOccSubPartitionsPerMultiprocessor    subpartitions
 *   cudaOccMaxBlocksPerMultiprocessor        max_blocks_per_sm
 *   cudaOccAlignUpShmemSizeVoltaPlus         carveouts_kb[]
 *   barrier factor 2 (or 1), CC >= 9 only    barrier_multiplier (0: no limit)
 *   reserve added to the ceiling, CC >= 8    always (the reserve is 0 before 8.0)
 *
 * Registers per thread: ptxas never allocates more than 255 (R0..R254; a
 * larger -maxrregcount or __maxnreg__ is ignored with a warning), which is
 * the programming guide's limit and registers.max_per_thread.  The header
 * instead rejects only numRegs > 256 — the per-thread allocation of a
 * 255-register thread (a warp is allocated in units of 256 registers, i.e.
 * 8 per thread).  smsim rejects a thread whose warp allocation exceeds that
 * of a max_per_thread thread: roundup(regs * warp, unit) > roundup(max *
 * warp, unit).  With 255 / 32 / 256 that accepts exactly regs <= 256, the
 * header's rule, while the config keeps the documented 255.
 *
 * The partitioned-global-caching branch (CC 5.2/6.x) and virtual resources
 * (no kernel attribute reports them; the header ignores a count of 0) are
 * not modelled.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "occ/occ.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long long round_up(long long x, long long unit)
{
    return (x + unit - 1) / unit * unit;
}

static long long min_ll(long long a, long long b)
{
    return a < b ? a : b;
}

long occ_carveout_round_up(const struct arch *a, long bytes)
{
    /* cudaOccAlignUpShmemSizeVoltaPlus: the smallest legal capacity that
     * holds `bytes` (0 maps to 0 only where 0 KB is legal). */
    for (int i = 0; i < a->n_carveouts; i++) {
        long c = (long)a->carveouts_kb[i] * 1024;
        if (bytes <= c)
            return c;
    }
    return -1;
}

/* Mark the launch invalid: blocks stay 0; `error` is a fixed category and
 * `detail` the same with numbers. */
static int fail(struct occ_result *r, const char *error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct occ_result *r, const char *error, const char *fmt, ...)
{
    va_list ap;
    r->blocks_per_sm = 0;
    r->active_warps = 0;
    r->occupancy_pct = 0.0;
    r->error = error;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
    return -1;
}

/* Inputs the header rejects with CUDA_OCC_ERROR_INVALID_INPUT, plus struct
 * arch values that would divide by zero (arch_load validates them; a struct
 * filled by hand may not). */
static int check_inputs(const struct arch *a, const struct occ_launch *l, struct occ_result *r)
{
    if (a->warp_size < 1 || a->subpartitions < 1 || a->reg_alloc_unit < 1 ||
        a->smem_alloc_granularity < 1 || a->n_carveouts < 1 ||
        a->n_carveouts > ARCH_MAX_CARVEOUTS)
        return fail(r, "invalid architecture",
                    "architecture has a zero warp size, sub-partition count, "
                    "allocation unit or no carveouts");
    if (l->threads < 1)
        return fail(r, "invalid launch", "threads per block must be at least 1 (got %d)",
                    l->threads);
    if (l->regs < 0)
        return fail(r, "invalid launch", "registers per thread must be >= 0 (got %d)", l->regs);
    if (l->smem_static < 0 || l->smem_dynamic < 0)
        return fail(r, "invalid launch", "shared memory sizes must be >= 0");
    if (l->max_dynamic < -1)
        return fail(r, "invalid launch", "max dynamic shared memory must be >= 0 or -1");
    if (l->carveout_pct < -1 || l->carveout_pct > 100)
        return fail(r, "invalid launch", "carveout preference must be -1 or 0..100 (got %d)",
                    l->carveout_pct);
    if (l->barriers < 0)
        return fail(r, "invalid launch", "barrier count must be >= 0 (got %d)", l->barriers);
    if (l->barriers > a->barriers_per_block)
        return fail(r, "too many barriers",
                    "%d barriers per block exceed the %d named barriers a block has",
                    l->barriers, a->barriers_per_block);
    return 0;
}

/* cudaOccMaxBlocksPerSMRegsLimit (partitioned caching off). */
static long long regs_limit(const struct arch *a, const struct occ_launch *l, int warps,
                            struct occ_result *r, const char **why, char *detail, size_t n)
{
    long long per_warp = round_up((long long)l->regs * a->warp_size, a->reg_alloc_unit);
    long long per_block = per_warp * warps;
    /* The hardware's per-block check assumes the block's warps are spread
     * over every sub-partition, so it rounds the warp count up to them. */
    long long assumed = per_warp * round_up(warps, a->subpartitions);
    long long max_warp = round_up((long long)a->max_regs_per_thread * a->warp_size,
                                  a->reg_alloc_unit);

    r->regs_per_block_alloc = per_block > INT_MAX ? INT_MAX : (int)per_block;
    if (per_warp > max_warp) {
        *why = "too many registers per thread";
        snprintf(detail, n, "%d registers per thread exceed the maximum %d",
                 l->regs, a->max_regs_per_thread);
        return 0;
    }
    if (a->regs_per_block < assumed || a->regs_per_block < per_block) {
        *why = "registers per block exceeded";
        snprintf(detail, n,
                 "%d threads x %d registers need %lld registers per block "
                 "(%lld per warp x %lld warps rounded to %d sub-partitions) > %d",
                 l->threads, l->regs, assumed, per_warp,
                 round_up(warps, a->subpartitions), a->subpartitions, a->regs_per_block);
        return 0;
    }
    if (per_warp == 0)
        return INT_MAX;
    /* Registers are split evenly among the sub-partitions; a warp lives in one. */
    long long warps_per_sub = (a->regs_per_sm / a->subpartitions) / per_warp;
    return warps_per_sub * a->subpartitions / warps;
}

/* cudaOccMaxBlocksPerSMSmemLimit (Volta and later).  Returns -1 (with
 * *why set) for a configuration error: a size no legal carveout holds. */
static long long smem_limit(const struct arch *a, const struct occ_launch *l,
                            struct occ_result *r, const char **why, char *detail, size_t n)
{
    /* cudaOccSMemPreferenceVoltaPlus: percent of the maximum (integer
     * division, as the header), rounded up to a legal carveout; no
     * preference means the maximum. */
    long long pref = l->carveout_pct < 0
                         ? a->smem_per_sm
                         : (long long)l->carveout_pct * a->smem_per_sm / 100;
    long pref_c = occ_carveout_round_up(a, (long)pref);
    if (pref_c < 0) {
        *why = "no legal carveout";
        snprintf(detail, n, "shared memory of %lld bytes per SM exceeds the largest legal "
                 "carveout (%d KB)", pref, a->carveouts_kb[a->n_carveouts - 1]);
        return -1;
    }
    r->smem_sm_bytes = (int)pref_c;

    /* The driver's reserve counts like static shared memory. */
    long long fixed = (long long)l->smem_static + a->smem_reserved_per_block;
    long long alloc = round_up(fixed + l->smem_dynamic, a->smem_alloc_granularity);
    r->smem_per_block_alloc = alloc > INT_MAX ? INT_MAX : (int)alloc;

    /* cudaOccSMemPerBlock: the opt-in ceiling applies when the kernel's
     * largest possible block (static + reserve + max dynamic) is above the
     * default; the reserve is added to either ceiling. */
    long long ceiling = a->smem_per_block;
    const char *which = "default";
    if (!l->smem_no_optin) {
        long long max_dyn = l->max_dynamic < 0 ? l->smem_dynamic : l->max_dynamic;
        if (l->smem_dynamic > max_dyn) {
            *why = "dynamic shared memory above the kernel's maximum";
            snprintf(detail, n, "dynamic shared memory %d B exceeds the kernel's maximum "
                     "dynamic size %lld B (cudaFuncAttributeMaxDynamicSharedMemorySize)",
                     l->smem_dynamic, max_dyn);
            return 0;
        }
        if (fixed + max_dyn > a->smem_per_block) {
            ceiling = a->smem_per_block_optin;
            which = "opt-in";
        }
    }
    ceiling += a->smem_reserved_per_block;
    if (alloc > ceiling) {
        *why = "shared memory per block exceeded";
        snprintf(detail, n, "shared memory per block %lld B (static %d + dynamic %d + "
                 "reserved %d, rounded to %d B) exceeds the %s per-block maximum %lld B",
                 alloc, l->smem_static, l->smem_dynamic, a->smem_reserved_per_block,
                 a->smem_alloc_granularity, which, ceiling);
        return 0;
    }
    /* The preference holds unless one block does not fit in it; then the
     * block's own size, rounded up to a legal carveout, is used. */
    long long sm = pref_c;
    if (pref_c < alloc) {
        sm = occ_carveout_round_up(a, (long)alloc);
        if (sm < 0) {
            *why = "no legal carveout";
            snprintf(detail, n, "shared memory per block %lld B exceeds the largest legal "
                     "carveout (%d KB)", alloc, a->carveouts_kb[a->n_carveouts - 1]);
            return -1;
        }
    }
    r->smem_sm_bytes = (int)sm;
    return alloc > 0 ? sm / alloc : INT_MAX;
}

int occ_compute(const struct arch *a, const struct occ_launch *l, struct occ_result *r)
{
    memset(r, 0, sizeof *r);
    r->limit_registers = r->limit_shared_mem = r->limit_barriers = INT_MAX;
    r->limit_barriers_ncu = INT_MAX;
    if (a->warp_size > 0)
        r->max_warps_per_sm = a->max_threads_per_sm / a->warp_size;
    if (check_inputs(a, l, r))
        return -1;

    int warps = (l->threads + a->warp_size - 1) / a->warp_size;
    r->warps_per_block = warps;

    /* Each limit is computed even when an earlier one is already 0, as the
     * header does, so every launch__occupancy_limit_* is filled.  The first
     * reason in the header's order is the one reported. */
    const char *why[5] = {0};
    char det[5][OCC_DETAIL_MAX];
    memset(det, 0, sizeof det);

    long long lim_warps;
    if (l->threads > a->max_threads_per_block) {
        lim_warps = 0;
        why[0] = "too many threads per block";
        snprintf(det[0], sizeof det[0], "%d threads per block exceed the maximum %d",
                 l->threads, a->max_threads_per_block);
    } else {
        lim_warps = r->max_warps_per_sm / warps;
    }
    long long lim_regs = regs_limit(a, l, warps, r, &why[1], det[1], sizeof det[1]);
    long long lim_blocks = a->max_blocks_per_sm;
    long long lim_smem = smem_limit(a, l, r, &why[2], det[2], sizeof det[2]);
    if (lim_smem < 0)
        return fail(r, why[2], "%s", det[2]);

    long long lim = min_ll(lim_regs, min_ll(lim_smem, min_ll(lim_warps, lim_blocks)));
    unsigned flags = 0;
    if (lim == lim_warps)
        flags |= OCC_LIM_WARPS;
    if (lim == lim_regs)
        flags |= OCC_LIM_REGISTERS;
    if (lim == lim_smem)
        flags |= OCC_LIM_SHARED_MEM;
    if (lim == lim_blocks)
        flags |= OCC_LIM_BLOCKS;

    /* Block barriers (CC >= 9 in the header): the SM has barrier_multiplier
     * barrier sets per resident-block slot.  Applied after the others, so
     * a tie adds the flag without clearing earlier ones. */
    long long lim_bars = INT_MAX;
    if (a->barrier_multiplier > 0 && l->barriers > 0) {
        lim_bars = lim_blocks * a->barrier_multiplier / l->barriers;
        lim = min_ll(lim, lim_bars);
        if (lim == lim_bars)
            flags |= OCC_LIM_BARRIERS;
    }

    r->limiters = flags;
    r->binding = (lim == lim_warps ? OCC_LIM_WARPS : 0u) |
                 (lim == lim_regs ? OCC_LIM_REGISTERS : 0u) |
                 (lim == lim_smem ? OCC_LIM_SHARED_MEM : 0u) |
                 (lim == lim_blocks ? OCC_LIM_BLOCKS : 0u) |
                 (lim == lim_bars ? OCC_LIM_BARRIERS : 0u);
    r->limit_warps = (int)lim_warps;
    r->limit_registers = (int)lim_regs;
    r->limit_shared_mem = (int)lim_smem;
    r->limit_blocks = (int)lim_blocks;
    r->limit_barriers = (int)lim_bars;
    /* Nsight Compute (2025.3.1 on the H200, the ncu CSVs of validate/data/h200:
     * 477 launches of 0- and 1-barrier kernels, all 32) caps the barrier
     * term at the block limit: 32 where the header says 64 (2 x 32 / 1) or
     * applies no term (0 barriers).  A value below 32 is the header's. */
    if (a->barrier_multiplier > 0)
        r->limit_barriers_ncu = (int)min_ll(lim_blocks, lim_bars);
    r->blocks_per_sm = (int)lim;

    if (lim == 0) {
        r->smem_config_bytes = r->smem_sm_bytes;
        for (int i = 0; i < 3; i++)
            if (why[i])
                return fail(r, why[i], "%s", det[i]);
        if (lim_warps == 0)
            return fail(r, "too many warps per block",
                        "a block of %d warps exceeds the SM's %d warp slots", warps,
                        r->max_warps_per_sm);
        if (lim_regs == 0)
            return fail(r, "registers per SM exceeded",
                        "one block's %d registers do not fit the SM's register file",
                        r->regs_per_block_alloc);
        if (lim_bars == 0)
            return fail(r, "too many barriers",
                        "%d barriers per block exceed the SM's %lld barrier sets",
                        l->barriers, lim_blocks * a->barrier_multiplier);
        return fail(r, "no block fits", "no block fits on an SM (block limit %lld)",
                    lim_blocks);
    }

    r->active_warps = r->blocks_per_sm * warps;
    r->occupancy_pct = r->max_warps_per_sm > 0
                           ? 100.0 * r->active_warps / r->max_warps_per_sm : 0.0;

    /* launch__shared_mem_config_size.  With a preference it is the header's
     * capacity.  Without one the header computes with the maximum, while
     * the driver configures the smallest legal capacity that keeps the same
     * number of blocks resident (CUDA programming guide, "Shared Memory" of
     * CC 8.x/9.0: the driver picks the capacity "to avoid shared memory
     * occupancy bottlenecks").  Model, not checked against hardware. */
    if (l->carveout_pct >= 0) {
        r->smem_config_bytes = r->smem_sm_bytes;
    } else {
        long c = occ_carveout_round_up(a, (long)r->blocks_per_sm * r->smem_per_block_alloc);
        r->smem_config_bytes = c < 0 || c > r->smem_sm_bytes ? r->smem_sm_bytes : (int)c;
    }
    return 0;
}

void occ_limiter_string(unsigned limiters, char *buf, size_t n)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {OCC_LIM_WARPS, "warps"},           {OCC_LIM_REGISTERS, "registers"},
        {OCC_LIM_SHARED_MEM, "shared memory"}, {OCC_LIM_BLOCKS, "blocks"},
        {OCC_LIM_BARRIERS, "barriers"},
    };
    size_t used = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(limiters & names[i].bit))
            continue;
        int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", names[i].name);
        if (k < 0 || (size_t)k >= n - used)
            return;
        used += (size_t)k;
    }
    if (used == 0)
        snprintf(buf, n, "none");
}
