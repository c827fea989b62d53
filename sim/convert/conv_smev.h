/* conv_smev.h — strict reader of a tracer event file, launch-K.smev
 * (docs/tracing.md "The event file"): a text header of `key = value` lines
 * ended by `#events`, then little-endian binary records, one per warp-level
 * instrumented instruction, each a warp's in program order.
 *
 * The whole file is checked when it is opened (header keys, versions,
 * record sizes, kinds, warp ids, pc alignment, the record count), so a
 * reader of the records never meets a bad one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CONV_SMEV_H
#define SMSIM_CONV_SMEV_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

/* CONV_SMEV_MAX_BYTES: the largest event file read (it is held in memory);
 * CONV_SMEV_MAX_HEADER: the most bytes before `#events`. */
#define CONV_SMEV_MAX_BYTES (8ull << 30)
enum { CONV_SMEV_MAX_HEADER = 65536, CONV_SMEV_REC_HDR = 16 };

/* Record kinds: the Sanitizer_InstructionId values the tracer writes. */
enum conv_smev_kind {
    CONV_SMEV_BLOCK_ENTER = 1, CONV_SMEV_BLOCK_EXIT = 2, CONV_SMEV_GLOBAL = 3,
    CONV_SMEV_SHARED = 4, CONV_SMEV_LOCAL = 5, CONV_SMEV_BARRIER = 6, CONV_SMEV_SYNCWARP = 7,
    CONV_SMEV_SHFL = 8, CONV_SMEV_CALL = 9, CONV_SMEV_RET = 10, CONV_SMEV_MEMCPY_ASYNC = 14
};

/* One record, decoded. */
struct conv_smev_rec {
    uint32_t warp;          /* linear block id * warps per block + warp in block    */
    uint8_t kind;           /* enum conv_smev_kind                                 */
    uint8_t size;           /* bytes per lane (memory kinds), else 0               */
    uint16_t flags;         /* sanitizer memory flags (memory kinds), else 0       */
    uint32_t pc;            /* function-relative byte offset, a multiple of 16     */
    uint32_t mask;          /* active lanes, never 0                               */
    uint32_t naddr;         /* addresses: popcount(mask) for memory kinds, else 0  */
    const unsigned char *addr; /* naddr little-endian u64 in lane order (unaligned) */
    uint64_t index;         /* 0-based position in the file (messages say index+1) */
    uint64_t byte;          /* byte offset of the record in the file               */
};

/* An opened event file: the header's values and an index of the records. */
struct conv_smev {
    char path[512];          /* for messages                                        */
    char kernel[512];        /* kernel = mangled name (fits tr_launch.name)         */
    char module[256];        /* module = module-M.cubin                             */
    uint32_t grid[3];        /* grid = X,Y,Z                                        */
    uint32_t block[3];       /* block = X,Y,Z                                       */
    int nregs;               /* nregs = N (1..255)                                  */
    int shmem_static;        /* shmem static = B                                    */
    int shmem_dynamic;       /* shmem dynamic = B                                   */
    uint64_t launch;         /* launch = K                                          */
    uint32_t sampled_first;  /* sampled blocks = FIRST:COUNT (linear block ids)     */
    uint32_t sampled_count;
    uint64_t records;        /* records = R: records in the file                    */
    int overflow;            /* overflow = 0|1                                      */
    uint64_t pc_base;        /* pc base = 0xHEX (informational)                     */
    uint32_t warps_per_block; /* ceil(block threads / 32)                           */
    unsigned char *data;     /* the whole file                                      */
    size_t len;              /* bytes in data                                       */
    uint64_t *off;           /* byte offset of each record, `records` entries       */
};

/* Open and check path.  0 with *e filled (free with conv_smev_close), or -1
 * with one line in err: "FILE:LINE: message" for the header, "FILE: record
 * N (byte B): message" for a record (N from 1), "FILE: message" otherwise. */
int conv_smev_open(const char *path, struct conv_smev *e, char err[TRACE_ERR_MAX]);
/* The same for data[0..len) held in memory (copied; the fuzz harness). */
int conv_smev_open_mem(const char *path, const unsigned char *data, size_t len,
                       struct conv_smev *e, char err[TRACE_ERR_MAX]);
void conv_smev_close(struct conv_smev *e);

/* Record i (0 <= i < e->records), decoded. */
void conv_smev_get(const struct conv_smev *e, uint64_t i, struct conv_smev_rec *r);
/* Address k (0 <= k < r->naddr) of a memory record. */
uint64_t conv_smev_addr(const struct conv_smev_rec *r, uint32_t k);
/* 1 if records of this kind carry popcount(mask) addresses (3, 4, 5, 14). */
int conv_smev_is_mem(int kind);
/* A short name of a kind ("global", "barrier", ...), "?" if unknown. */
const char *conv_smev_kind_name(int kind);

#endif
