/* occ.h — CUDA block residency (theoretical occupancy), exactly as the
 * toolkit's cuda_occupancy.h computes it, driven by struct arch values
 * instead of per-CC switch tables so hypothetical GPUs work too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_OCC_H
#define SMSIM_OCC_H

#include "arch/arch.h"

/* Limiter bits, same values as cudaOccLimitingFactor. */
enum occ_limit {
    OCC_LIM_WARPS = 0x01,
    OCC_LIM_REGISTERS = 0x02,
    OCC_LIM_SHARED_MEM = 0x04,
    OCC_LIM_BLOCKS = 0x08,
    OCC_LIM_BARRIERS = 0x10
};

enum { OCC_DETAIL_MAX = 200 };

struct occ_launch {
    int threads;          /* threads per block (any positive value, partial warps ok) */
    int regs;             /* registers per thread                                   */
    int smem_static;      /* static shared memory per block, bytes                  */
    int smem_dynamic;     /* dynamic shared memory per block, bytes                 */
    int max_dynamic;      /* opt-in attribute (cudaFuncAttributeMaxDynamicSharedMemorySize);
                             -1 = the launch's own smem_dynamic                     */
    int carveout_pct;     /* preferred carveout percent 0..100, -1 = none           */
    int barriers;         /* named barriers used by the kernel (0 = none)           */
    int smem_no_optin;    /* 1 = kernel never opted in: per-block ceiling is
                             shared_memory.per_block and max_dynamic is ignored
                             (cudaOcc FUNC_SHMEM_LIMIT_DEFAULT); 0 = the runtime's
                             opt-in rules with max_dynamic (the usual case)        */
};

struct occ_result {
    int blocks_per_sm;       /* resident blocks per SM (0 = launch cannot run)       */
    unsigned limiters;       /* OR of enum occ_limit: every term equal to the min    */
    int limit_blocks;        /* launch__occupancy_limit_blocks                       */
    int limit_registers;     /* launch__occupancy_limit_registers (INT_MAX: unused)  */
    int limit_shared_mem;    /* launch__occupancy_limit_shared_mem (INT_MAX: unused) */
    int limit_warps;         /* launch__occupancy_limit_warps                        */
    int limit_barriers;      /* launch__occupancy_limit_barriers (INT_MAX: n/a)      */
    int warps_per_block;     /* ceil(threads / warp_size)                            */
    int active_warps;        /* blocks_per_sm * warps_per_block                      */
    double occupancy_pct;    /* active_warps / max warps per SM * 100                */
    int smem_per_block_alloc;/* bytes one block takes incl. reserve, rounded         */
    int smem_config_bytes;   /* carveout chosen (launch__shared_mem_config_size)     */
    const char *error;       /* NULL, or why the launch is invalid (blocks == 0)     */
    /* --- additions (occ engineer) --- */
    unsigned binding;        /* OR of enum occ_limit whose limit equals blocks_per_sm
                                (limiters, as the header, keeps flags set before a
                                lower barrier limit)                               */
    int max_warps_per_sm;    /* sm.max_threads / sm.warp_size: occupancy's denominator */
    int regs_per_block_alloc;/* registers one block is allocated (per-warp rounded)  */
    int smem_sm_bytes;       /* shared memory per SM the limit was computed with (the
                                header's choice: preference, else max carveout)     */
    char detail[OCC_DETAIL_MAX]; /* "" or the error with its numbers, one line      */
    int limit_barriers_ncu;  /* launch__occupancy_limit_barriers as Nsight Compute
                                reports it (CC >= 9): min(limit_blocks, the barrier
                                term), limit_blocks with no barrier; INT_MAX where
                                the arch has no barrier limit (barrier_multiplier 0) */
};

/* Compute residency.  Always fills *r; returns 0, or -1 for an invalid
 * launch (r->blocks_per_sm == 0 and r->error says why). */
int occ_compute(const struct arch *a, const struct occ_launch *l, struct occ_result *r);

/* Smallest legal carveout (shared_memory.carveouts_kb) of at least `bytes`,
 * in bytes; -1 if `bytes` exceeds the largest. */
long occ_carveout_round_up(const struct arch *a, long bytes);

/* Human name of the limiter set, e.g. "shared memory" or "warps, registers". */
void occ_limiter_string(unsigned limiters, char *buf, size_t n);

#endif
