/* trace_accelsim_int.h — private state of the Accel-Sim reader, shared by
 * trace_accelsim.c (files, thread-block sections, trace_ops) and
 * trace_accelsim_inst.c (instruction lines, static instructions).  Not an API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ACCELSIM_INT_H
#define SMSIM_TRACE_ACCELSIM_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "trace/trace.h"
#include "trace/trace_accelsim_io.h"

enum {
    AS_ST_CHUNK0 = 256,   /* statics in chunk 0; chunk c holds 256 << c       */
    AS_ST_CHUNKS = 24,    /* chunks: room for 256 * (2^24 - 1) statics       */
    AS_WARP_BUF = 4096,   /* a running warp's text window, bytes             */
    AS_SKIM_BUF = 1 << 16 /* the section skimmer's window, bytes             */
};

/* State shared by the kernels of one list: opcodes already warned about. */
struct as_shared {
    pthread_mutex_t mu;  /* guards everything below                          */
    int refs;            /* kernels (and the opener) holding it              */
    FILE *warn;          /* where warnings go                                */
    char **warned;       /* base names warned about                          */
    int nwarned;         /* entries in warned                                */
    int capwarned;       /* capacity of warned                               */
};

/* One warp's instruction lines inside its thread-block section. */
struct as_wspan {
    uint64_t off;        /* offset of its first instruction line             */
    uint64_t end;        /* offset just after its last one                   */
    uint64_t line;       /* line number of the first one                     */
    uint32_t n;          /* its 'insts = N'                                  */
    uint32_t ok;         /* its lines were validated (atomic access)         */
};

/* A thread block the engine is running: where each warp's lines are. */
struct as_block {
    uint32_t id;         /* linear block index                               */
    int refs;            /* warps begun and not yet ended                    */
    struct as_block *next; /* hash chain of the live table                   */
    struct as_wspan w[]; /* [wpb]                                            */
};

/* An interned static instruction (never moves once made). */
struct as_static {
    struct tr_inst in;   /* what the engine sees                             */
    char *key;           /* PC, registers, opcode, width (single spaces)     */
    uint32_t keylen;     /* its length (0: a NOP twin, not in the table)     */
    uint32_t hash;       /* as_key_hash(key)                                 */
    uint32_t nop_twin;   /* EXIT only: the same as kind NOP, else UINT32_MAX */
    uint8_t unknown;     /* opcode not in the SASS table                     */
    uint8_t has_addr;    /* its memory addresses are passed on               */
    uint64_t first;      /* unknown only: min (line << 20 | column) of the
                            instances read (atomic), UINT64_MAX: none yet    */
};

/* Open-addressing table of static indices + 1 (0 = empty); replaced whole
 * when it grows, so readers never see a half-built one. */
struct as_ht {
    uint32_t mask;       /* slots - 1                                        */
    struct as_ht *old;   /* the tables it replaced (freed with the kernel)   */
    uint32_t slot[];     /* [mask + 1], atomic access                        */
};

/* Id -> (offset, line) of a section read over but not yet run. */
struct as_pend {
    uint32_t id;         /* linear block index                               */
    uint32_t used;       /* slot in use                                      */
    uint64_t off;        /* offset of its '#BEGIN_TB' line                   */
    uint64_t line;       /* that line's number                               */
};

struct as_kernel {
    struct trace_kernel base; /* what trace_file holds (impl points back)    */
    struct as_shared *sh;  /* list-wide state                                */
    char *path;            /* the kernel file                                */
    int version;           /* tracer version 3..5                            */
    int lineinfo;          /* lines start with a source line number          */
    int binary_version;    /* SASS version                                   */
    uint32_t wpb;          /* warps per block                                */
    uint64_t blocks;       /* blocks in the grid                             */
    uint64_t body_off;     /* first byte after the header                    */
    uint64_t body_line;    /* its line number                                */
    uint64_t nregs_bad;    /* -nregs as read + 1 when it is not trusted
                              (-binary version 0), else 0                    */
    uint64_t nregs_line;   /* its line                                       */
    int maxreg;            /* highest register of the first block (estimate) */
    pthread_mutex_t mu;    /* guards what follows up to the statics' lookup  */
    struct as_src *src;    /* open text, or NULL                             */
    struct as_lr front;    /* the skimmer, at the first unread section       */
    int front_ok;          /* front is positioned (else: at body_off)        */
    uint64_t nsections;    /* sections read over so far (first pass)         */
    uint8_t *seen;         /* bit per block id: section met (first pass)     */
    uint64_t seencap;      /* bytes of seen                                  */
    int front_end;         /* the first pass reached the end of the file     */
    struct as_pend *pend;  /* sections passed over, not yet run              */
    uint64_t npend, cappend; /* used / slots (power of two)                  */
    struct as_block **live; /* blocks with warps begun, hashed by id         */
    uint32_t livecap;      /* buckets (power of two)                         */
    struct as_block *cold; /* the last released block, kept for re-use      */
    struct as_wspan *spans; /* scratch [wpb] for the skimmer                 */
    uint64_t warps_ended;  /* warp_end calls (the run is over at all warps)  */
    uint64_t blocks_loaded; /* sections skimmed to run them                  */
    uint64_t blocks_live;  /* blocks allocated (live + cold)                 */
    uint64_t restarts;     /* rescans from the start for a block passed      */
    uint64_t bytes_now;    /* bytes in blocks and warp cursors (atomic)      */
    uint64_t bytes_peak;   /* maximum of bytes_now (atomic)                  */
    int failed;            /* an error was reported: every later begin fails */
    char err[TRACE_ERR_MAX]; /* that error (base.error points here)          */
    /* statics: made under mu, looked up without it */
    struct as_static *chunk[AS_ST_CHUNKS]; /* storage, chunk c: 256 << c     */
    uint32_t nst;          /* statics made (under mu)                        */
    struct as_ht *ht;      /* current table (atomic pointer)                 */
};

/* A running warp (tr_cursor.state). */
struct as_cur {
    struct as_block *b;    /* its block (reference held)                     */
    struct as_src *src;    /* the text (open while any warp runs)            */
    uint64_t acct;         /* bytes counted for it in bytes_now              */
    uint32_t left;         /* instruction lines still to read                */
    struct as_lr lr;       /* over its lines                                 */
    uint64_t addr[32];     /* addresses of the instruction last returned     */
};

/* One parsed instruction line. */
struct as_line {
    uint32_t mask;         /* active mask                                    */
    uint32_t pc;           /* PC (low 32 bits)                               */
    uint32_t naddr;        /* addresses in addr (0: none)                    */
    uint16_t width;        /* memory width, bytes                            */
    uint8_t nd, ns;        /* registers named                                */
    uint16_t dreg[4];      /* destination registers                          */
    uint16_t sreg[32];     /* source registers                               */
    const char *opc;       /* opcode (not NUL-terminated)                    */
    uint32_t opclen;       /* its length                                     */
    uint32_t opccol;       /* its column                                     */
    const char *key;       /* static key (PC .. width), maybe in keybuf      */
    uint32_t keylen;       /* its length                                     */
    char keybuf[320];      /* the key with single spaces, when the line had
                              other separators                               */
};

/* "path:line:col: message" into dst (TRACE_ERR_MAX); returns -1. */
int as_fmt_err(char *dst, const char *path, uint64_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Parse instruction line `line` (number ln) of kernel k: addresses go to
 * addr[32].  0, or -1 with the message in err.  Thread-safe. */
int as_parse_line(const struct as_kernel *k, const char *line, uint64_t ln,
                  struct as_line *pl, uint64_t *addr, char *err);
/* The static instruction of a parsed line: looked up without a lock, made
 * under k->mu the first time.  UINT32_MAX when out of memory. */
uint32_t as_intern(struct as_kernel *k, const struct as_line *pl, uint64_t ln);
/* Static number i. */
static inline struct as_static *as_st(const struct as_kernel *k, uint32_t i)
{
    uint32_t j = i + AS_ST_CHUNK0;
    int c = 31 - __builtin_clz(j) - 8;
    return &k->chunk[c][j - ((uint32_t)AS_ST_CHUNK0 << c)];
}
/* Distinct unknown base names among the statics (under mu). */
uint32_t as_unknown_names(const struct as_kernel *k);
/* Print the warnings for unknown opcodes read so far and not yet warned
 * about in this list, in file order (under mu). */
void as_warn_flush(struct as_kernel *k);
void as_statics_free(struct as_kernel *k);
int as_hexval(int c);

#endif
