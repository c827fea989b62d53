/* smsim_patch.cu: device patch functions the Compute Sanitizer inserts into traced modules.
 * Each call appends one warp-aggregated record (format: docs/tracing.md, "launch-K.smev")
 * to the launch's buffer: the lowest active lane reserves the record's bytes with one atomicAdd,
 * broadcasts the offset, every active lane stores its own address at its rank among the active
 * lanes. Signatures follow sanitizer_patching.h (SanitizerCallback*). Built with
 * nvcc --fatbin --compile-as-tools-patch (Compute Sanitizer API guide, "Writing a Patch").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <sanitizer_patching.h>
#include "smsim_trace_ctl.h"

/* The control struct for this launch and this thread's global warp id, or NULL when the launch is
 * not traced or the block is outside the sampled range (the cheap early-out). */
static __device__ __forceinline__ smsim_trace_ctl *smsim_active(void *ud, uint32_t *warp)
{
    smsim_trace_ctl *c = (smsim_trace_ctl *)ud;
    if (c == 0 || c->enabled == 0)
        return 0;
    uint32_t b = blockIdx.x + blockIdx.y * c->grid_x + blockIdx.z * c->grid_x * c->grid_y;
    if (b - c->block_first >= c->block_count) /* unsigned: also rejects b < block_first */
        return 0;
    uint32_t t = threadIdx.x + threadIdx.y * c->block_x + threadIdx.z * c->block_x * c->block_y;
    *warp = b * c->warps_per_block + t / 32u;
    return c;
}

static __device__ __forceinline__ uint32_t smsim_laneid(void)
{
    uint32_t l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

/* Appends one record; mem != 0 adds this lane's address at its rank. diag != 0 also folds the raw
 * pc into the min/max diagnostic (only for block enter/exit, to keep atomics off the hot path). */
static __device__ __forceinline__ void smsim_emit(smsim_trace_ctl *c, uint32_t warp, uint32_t kind,
                                                  uint32_t size, uint32_t flags, uint64_t pc,
                                                  uint64_t addr, int mem, int diag)
{
    uint32_t m = __activemask();
    uint32_t lane = smsim_laneid();
    uint32_t leader = (uint32_t)__ffs(m) - 1u;
    uint32_t n = (uint32_t)__popc(m);
    unsigned long long bytes = SMSIM_REC_HDR + (mem ? 8ull * n : 0ull);
    unsigned long long off = 0;
    if (lane == leader)
        off = atomicAdd(&c->offset, bytes);
    off = __shfl_sync(m, off, leader);
    if (off + bytes > c->capacity) {
        if (lane == leader)
            atomicExch(&c->overflow, 1u);
        return;
    }
    unsigned char *r = c->buf + off;
    if (lane == leader) {
        uint32_t rel = (uint32_t)(pc - c->pc_base);
        unsigned long long w0 = (unsigned long long)warp | ((unsigned long long)(kind & 0xffu) << 32) |
                                ((unsigned long long)(size & 0xffu) << 40) |
                                ((unsigned long long)(flags & 0xffffu) << 48);
        unsigned long long w1 = (unsigned long long)rel | ((unsigned long long)m << 32);
        ((unsigned long long *)r)[0] = w0; /* little-endian: warp, kind, size, flags */
        ((unsigned long long *)r)[1] = w1; /* pc, mask */
        if (diag) {
            atomicMin(&c->raw_pc_min, (unsigned long long)pc);
            atomicMax(&c->raw_pc_max, (unsigned long long)pc);
        }
    }
    if (mem) {
        uint32_t rank = (uint32_t)__popc(m & ((1u << lane) - 1u));
        ((unsigned long long *)(r + SMSIM_REC_HDR))[rank] = (unsigned long long)addr;
    }
}

static __device__ __forceinline__ SanitizerPatchResult smsim_plain(void *ud, uint64_t pc, uint32_t kind, int diag)
{
    uint32_t warp;
    smsim_trace_ctl *c = smsim_active(ud, &warp);
    if (c)
        smsim_emit(c, warp, kind, 0, 0, pc, 0, 0, diag);
    return SANITIZER_PATCH_SUCCESS;
}

static __device__ __forceinline__ SanitizerPatchResult smsim_mem(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                                 uint32_t flags, const void *pData, uint32_t kind)
{
    uint32_t warp;
    smsim_trace_ctl *c = smsim_active(ud, &warp);
    if (c) {
        uint32_t f = (flags & 0x7fffu) | (pData == 0 ? SMSIM_FLAG_PDATA_NULL : 0u);
        smsim_emit(c, warp, kind, size, f, pc, (uint64_t)(uintptr_t)ptr, 1, 0);
    }
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_block_enter(void *ud, uint64_t pc)
{
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_BLOCK_ENTER, 1);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_block_exit(void *ud, uint64_t pc)
{
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_BLOCK_EXIT, 1);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_global(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                                     uint32_t flags, const void *pData)
{
    return smsim_mem(ud, pc, ptr, size, flags, pData, SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_shared(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                                     uint32_t flags, const void *pData)
{
    return smsim_mem(ud, pc, ptr, size, flags, pData, SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_local(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                                    uint32_t flags, const void *pData)
{
    return smsim_mem(ud, pc, ptr, size, flags, pData, SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_barrier(void *ud, uint64_t pc, uint32_t barIndex,
                                                                      uint32_t threadCount, uint32_t flags)
{
    (void)barIndex; (void)threadCount; (void)flags;
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_BARRIER, 0);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_syncwarp(void *ud, uint64_t pc, uint32_t mask)
{
    (void)mask;
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_SYNCWARP, 0);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_shfl(void *ud, uint64_t pc)
{
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_SHFL, 0);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_call(void *ud, uint64_t pc, uint64_t targetPc, uint32_t flags)
{
    (void)targetPc; (void)flags;
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_CALL, 0);
}

extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_ret(void *ud, uint64_t pc)
{
    return smsim_plain(ud, pc, SANITIZER_INSTRUCTION_RET, 0);
}

/* cp.async global->shared: records the global source per lane (the shared destination offset is
 * not kept: the format has one address per lane). */
extern "C" __device__ __noinline__ SanitizerPatchResult SANITIZERAPI smsim_memcpy_async(void *ud, uint64_t pc, void *src, uint32_t dst,
                                                                           uint32_t size)
{
    (void)dst;
    uint32_t warp;
    smsim_trace_ctl *c = smsim_active(ud, &warp);
    if (c)
        smsim_emit(c, warp, SANITIZER_INSTRUCTION_MEMCPY_ASYNC, size, SANITIZER_MEMORY_DEVICE_FLAG_READ, pc,
                   (uint64_t)(uintptr_t)src, 1, 0);
    return SANITIZER_PATCH_SUCCESS;
}
