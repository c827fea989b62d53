/* trace_accelsim_int.h — private state of the Accel-Sim reader, shared by
 * trace_accelsim.c (files, blocks, trace_ops) and trace_accelsim_inst.c
 * (instruction lines, static-instruction inference).  Not an API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ACCELSIM_INT_H
#define SMSIM_TRACE_ACCELSIM_INT_H

#include <stdint.h>
#include <stdio.h>
#include "trace/trace.h"
#include "trace/trace_accelsim_io.h"

#define AS_NO_ADDR UINT32_MAX

/* State shared by the kernels of one list: opcodes already warned about. */
struct as_shared {
    int refs;            /* kernels (and the opener) holding it                */
    FILE *warn;          /* where warnings go                                  */
    char **warned;       /* base names warned about                            */
    int nwarned;         /* entries in warned                                  */
    int capwarned;       /* capacity of warned                                 */
};

/* One dynamic warp-instruction in a block buffer: 12 bytes. */
struct as_rec {
    uint32_t sidx;       /* static instruction (as_kernel.st)                  */
    uint32_t mask;       /* active mask as traced (guard predicate applied)    */
    uint32_t aoff;       /* addresses in as_block.a, or AS_NO_ADDR             */
};

/* A warp's stream inside its block buffer. */
struct as_warp {
    uint64_t first;      /* index of its first record in as_block.d            */
    uint64_t n;          /* records (its 'insts = N')                          */
    int seen;            /* its 'warp = W' line was read                       */
    uint64_t scratch[32]; /* base+stride addresses expanded for warp_next      */
};

/* A thread block's decoded section.  Address words in `a`: a header word
 * 0 followed by one address per active lane, or header 1, base, stride. */
struct as_block {
    uint32_t id;         /* linear block index                                 */
    int refs;            /* warps begun and not yet ended                      */
    struct as_warp *w;   /* [wpb]                                              */
    struct as_rec *d;    /* records of all warps                               */
    uint64_t nd, capd;   /* used / allocated records                           */
    uint64_t *a;         /* address words                                      */
    uint64_t na, capa;   /* used / allocated words                             */
    uint64_t bytes;      /* bytes accounted for this block                     */
    struct as_block *next; /* live list                                        */
};

/* Offset of a thread-block section in the uncompressed text. */
struct as_index {
    uint64_t off;        /* byte offset of its '#BEGIN_TB' line                */
    uint64_t line;       /* line number of that line (for messages)            */
    uint32_t id;         /* linear block index                                 */
};

/* An interned static instruction. */
struct as_static {
    struct tr_inst in;   /* what the engine sees                               */
    uint32_t key;        /* offset of its key text in as_kernel.keys           */
    uint32_t keylen;     /* key length                                         */
    uint32_t next;       /* hash chain (UINT32_MAX ends)                       */
    uint32_t nop_twin;   /* EXIT only: the same as kind NOP, or UINT32_MAX     */
    uint8_t unknown;     /* opcode not in the SASS table                       */
    uint8_t has_addr;    /* its memory addresses are kept                      */
};

struct as_kernel {
    struct trace_kernel base; /* what trace_file holds (impl points back)      */
    struct as_shared *sh;  /* list-wide state                                  */
    char *path;            /* the kernel file                                  */
    int version;           /* tracer version 3..5                              */
    int lineinfo;          /* lines start with a source line number            */
    int binary_version;    /* SASS version                                     */
    uint32_t wpb;          /* warps per block                                  */
    uint64_t blocks;       /* blocks in the grid                               */
    uint64_t body_off;     /* first byte after the header                      */
    uint64_t body_line;    /* its line number                                  */
    struct as_io *io;      /* open stream, or NULL                             */
    struct as_index *idx;  /* sections seen, in file order                     */
    uint64_t nidx, capidx; /* used / allocated                                 */
    int out_of_order;      /* some section's id differs from its position      */
    uint64_t scan_off;     /* where the next unindexed section starts          */
    uint64_t scan_line;    /* its line number                                  */
    struct as_block *live; /* blocks with warps running                        */
    struct as_block *cold; /* the last released block, kept for re-use        */
    uint64_t releases;     /* blocks released so far                           */
    uint64_t blocks_loaded; /* sections decoded                                */
    uint64_t blocks_live;  /* blocks allocated (live + cold)                   */
    uint64_t bytes_now;    /* bytes in block buffers                           */
    uint64_t bytes_peak;   /* maximum of bytes_now                             */
    uint64_t restarts_closed; /* xz restarts of streams already closed         */
    struct as_static *st;  /* static instructions                              */
    uint32_t nst, capst;   /* used / allocated                                 */
    uint32_t *ht;          /* hash heads (UINT32_MAX empty)                    */
    uint32_t htcap;        /* power of two                                     */
    char *keys;            /* key text pool                                    */
    uint32_t nkeys, capkeys; /* used / allocated bytes                         */
    uint32_t unknown_opcodes; /* distinct unknown opcodes in this kernel       */
    char err[TRACE_ERR_MAX]; /* last error (base.error points here)            */
};

/* Parsing context for one block section. */
struct as_parse {
    struct as_kernel *k;   /* the kernel                                       */
    struct as_block *b;    /* the block being filled                           */
    uint32_t warp;         /* current warp                                     */
    uint64_t last_exit;    /* record index of the warp's last EXIT, or UINT64_MAX */
};

/* "path:line:col: message" into k->err (and k->base.error); returns -1. */
int as_err(struct as_kernel *k, uint64_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int as_hexval(int c);
/* Grow block buffers to hold nd records and na address words; 0 or -1. */
int as_block_reserve(struct as_kernel *k, struct as_block *b, uint64_t nd, uint64_t na);

void as_parse_init(struct as_parse *ps, struct as_kernel *k, struct as_block *b);
void as_parse_warp_begin(struct as_parse *ps, uint32_t warp);
void as_parse_warp_end(struct as_parse *ps);
/* Decode one instruction line (line number ln) into the block.  0 or -1. */
int as_parse_inst(struct as_parse *ps, const char *line, uint64_t ln);
void as_statics_free(struct as_kernel *k);

#endif
