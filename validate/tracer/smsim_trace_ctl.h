/* smsim_trace_ctl.h: the device control struct shared by the injection library
 * (smsim_tracer.cpp) and the patch functions (smsim_patch.cu). One per traced launch.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef SMSIM_TRACE_CTL_H
#define SMSIM_TRACE_CTL_H
#include <stdint.h>

/* Bit set in a record's flags when the API passed pData == NULL (atomics; some reads):
 * the sanitizer has no atomic flag of its own (sanitizer_patching.h, SanitizerCallbackMemoryAccess). */
#define SMSIM_FLAG_PDATA_NULL 0x8000u

typedef struct smsim_trace_ctl {
    unsigned long long offset;   /* bytes reserved so far in buf (may exceed capacity) */
    unsigned long long capacity; /* size of buf in bytes */
    unsigned long long pc_base;  /* subtracted from the API's pc (function start, host-derived) */
    unsigned long long raw_pc_min; /* smallest raw pc seen (diagnostic for the pc base), init ~0 */
    unsigned long long raw_pc_max; /* largest raw pc seen (diagnostic) */
    unsigned char *buf;          /* record buffer (device memory) */
    uint32_t enabled;            /* 0: every patch returns at once (untraced launch) */
    uint32_t overflow;           /* set to 1 by a warp whose record did not fit */
    uint32_t block_first;        /* first linear block id recorded */
    uint32_t block_count;        /* number of linear block ids recorded */
    uint32_t grid_x, grid_y;     /* gridDim for the linear block id */
    uint32_t block_x, block_y;   /* blockDim for the warp index in the block */
    uint32_t warps_per_block;    /* ceil(threads per block / 32) */
    uint32_t pad;                /* keeps the struct 8-byte sized */
} smsim_trace_ctl;

/* Bytes per record: 16 header bytes plus 8 per active lane for memory kinds. */
#define SMSIM_REC_HDR 16u
#endif
