/* trace.h — one instruction-stream interface for every trace reader.
 *
 * A trace file holds one or more kernels.  Each kernel gives its launch
 * (grid, block, registers, shared memory, barriers) and, per warp, a stream of
 * decoded instructions.  Readers (native text format, Accel-Sim .traceg, ...)
 * implement struct trace_ops; the engine sees only this header.
 *
 * Per-instruction cost matters (the engine calls warp_next once per issued
 * warp-instruction): a cursor is a fixed-size value, next() never allocates.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_H
#define SMSIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

/* TRACE_PIPE_MAX: the most bytes read from a pipe or device (which is held
 * in memory, see trace_open). */
enum { TRACE_PIPE_MAX = 1 << 30 };
enum { TRACE_ERR_MAX = 512, TR_MAX_DST = 4, TR_MAX_SRC = 6, TR_MAX_DEPTH = 8 };

/* Register ids: one flat space so a scoreboard can index them.
 * R0..R254 -> 0..254, RZ (255) never creates a dependency.
 * P0..P6 -> TR_REG_P+0..6, PT never creates a dependency.
 * UR0..UR62 -> TR_REG_UR+0..62, URZ never creates a dependency.
 * UP0..UP6 -> TR_REG_UP+0..6. */
enum {
    TR_REG_R = 0, TR_REG_P = 256, TR_REG_UR = 264, TR_REG_UP = 328,
    TR_NREGS = 336,
    TR_REG_NONE = 0xFFFF
};

enum tr_kind {
    TR_K_ALU,     /* computes registers in a pipe (FFMA, IMAD, MUFU, HMMA, ...) */
    TR_K_LOAD,    /* reads memory into registers                               */
    TR_K_STORE,   /* writes memory                                            */
    TR_K_ATOMIC,  /* read-modify-write memory (returns a value if ndst > 0)    */
    TR_K_BARRIER, /* BAR.SYNC / __syncthreads                                  */
    TR_K_MEMBAR,  /* MEMBAR: waits for this warp's outstanding memory ops      */
    TR_K_BRANCH,  /* BRA/JMP etc.: costs branch_resolving                      */
    TR_K_EXIT,    /* EXIT: the warp is done after outstanding stores drain     */
    TR_K_NOP      /* NOP and the like: issues, no result                       */
};

enum tr_space {
    TR_SP_NONE, TR_SP_GLOBAL, TR_SP_LOCAL, TR_SP_SHARED, TR_SP_CONST, TR_SP_TEX
};

/* How a dependent instruction waits for this one's destinations.  TR_DEP_PIPE
 * (the zero value) defers to the pipe's configured arch_dep; the others are
 * fixed by the opcode (see sim/trace/trace_isa.c for the per-opcode choice). */
enum tr_dep {
    TR_DEP_PIPE,  /* use arch.pipe[pipe].dep                                   */
    TR_DEP_FIXED, /* fixed latency, compiler stall counts ("wait")             */
    TR_DEP_SHORT, /* short scoreboard: MIO (shared, const, SHFL, S2R, ...)     */
    TR_DEP_LONG   /* long scoreboard: L1TEX (global, local, texture, surface)  */
};

/* Access pattern for native traces (Accel-Sim traces give addresses). */
enum tr_pattern {
    TR_PAT_COALESCED, /* lane i touches base + i*width: ceil(32*width/sector) sectors */
    TR_PAT_STRIDED,   /* lane i touches base + i*stride                            */
    TR_PAT_RANDOM,    /* each lane an independent sector in `footprint` bytes       */
    TR_PAT_BROADCAST, /* all lanes one address (one sector)                        */
    TR_PAT_ADDRESSES  /* per-lane addresses come in struct tr_dyn                  */
};

/* One static instruction, decoded once.  24 opcode chars keep reports readable. */
struct tr_inst {
    uint8_t kind;          /* enum tr_kind                                          */
    uint8_t pipe;          /* enum arch_pipe: execution unit                        */
    uint8_t space;         /* enum tr_space (TR_SP_NONE for non-memory)             */
    uint8_t pattern;       /* enum tr_pattern (memory only)                         */
    uint8_t ndst;          /* valid entries in dst                                  */
    uint8_t nsrc;          /* valid entries in src                                  */
    uint8_t conflict;      /* shared-memory bank-conflict ways, 1 = none            */
    uint8_t has_pc;        /* 1: pc holds the instruction's address                 */
    uint16_t dst[TR_MAX_DST]; /* destination register ids (flat space above)        */
    uint16_t src[TR_MAX_SRC]; /* source register ids                                */
    uint16_t width;        /* bytes per lane (memory only)                          */
    int16_t latency;       /* explicit result latency override, -1 = pipe default    */
    uint32_t stride;       /* bytes between lanes (TR_PAT_STRIDED)                  */
    uint32_t active;       /* active-lane mask for native traces (0xffffffff usual) */
    uint64_t footprint;    /* bytes the access stream covers (cache-hit model)      */
    uint32_t line;         /* source line in the trace, for messages                */
    char opcode[24];       /* opcode with modifiers, NUL-terminated                 */
    uint8_t dep;           /* enum tr_dep: how a consumer waits for the result      */
    uint8_t fma_path;      /* enum tr_fma_path: which FMA datapath(s) (pipe fma only) */
    uint8_t sealed;        /* 1: the fields below are filled in (tr_inst_seal)     */
    uint8_t nrd;           /* entries in rd                                         */
    uint8_t nrs;           /* entries in rs                                         */
    uint16_t rd[TR_MAX_DST]; /* dst without duplicates and non-dependencies (RZ, PT,
                              URZ, UPT, none), in first-occurrence order           */
    uint16_t rs[TR_MAX_SRC]; /* the same for src                                    */
    uint64_t dmask;        /* bit (r % 64) of every register in rd                  */
    uint64_t smask;        /* bit (r % 64) of every register in rs                  */
    /* Compiler control bits (SASS bits 105..125, docs/trace-format.md "Control
     * bits"); meaningful only when ctl is 1. */
    uint8_t ctl;           /* 1: the trace gave control bits (stall= ...)           */
    uint8_t stall;         /* cycles before the warp's next issue, 0..15            */
    uint8_t yield;         /* 1: the warp is not re-picked in the next cycle         */
    uint8_t wbar;          /* dependence counter released at write-back, TR_SB_NONE  */
    uint8_t rbar;          /* dependence counter released once sources are read      */
    uint8_t wait;          /* mask of counters SB0..SB5 that must be 0 to issue      */
    uint8_t reuse;         /* operand slots 0..3 kept in the register-file cache     */
    uint8_t depbar_sb;     /* DEPBAR.LE SBx, N: x (TR_SB_NONE: not a DEPBAR.LE)      */
    uint8_t depbar_n;      /* ... and N, 0..63                                      */
    uint8_t opr[3];        /* R register read by source operand slot 0..2 (the
                              register-file banks and cache), TR_OPR_NONE: none  */
    uint32_t pc;           /* with has_pc: byte address in the kernel's code (native:
                              the address comment "/ *0250* /" that starts its line;
                              Accel-Sim: the line's PC), the key of per-PC counters */
    uint16_t coff;         /* with has_c: byte offset of the c[bank][offset] operand */
    uint8_t cbank;         /* with has_c: its constant bank                          */
    uint8_t has_c;         /* 1: a source operand is c[bank][offset] with an immediate
                              offset (native traces; the constant caches' key)    */
};

/* Dependence counters per warp (SB0..SB5) and the "no counter" value of the
 * 3-bit wbar/rbar fields (modern-sm-core.md §1). */
enum { TR_NSB = 6, TR_SB_NONE = 7 };
/* tr_inst.opr of a slot that reads no R register (RZ, UR, constant, immediate). */
enum { TR_OPR_NONE = 255 };

/* Does register id r create a dependency?  RZ, PT, URZ, UPT and ids outside
 * the flat space (TR_REG_NONE) never do. */
static inline int tr_reg_real(uint16_t r)
{
    if (r < 255) /* R0..R254: the common case, one compare */
        return 1;
    return r != 255 && r != TR_REG_P + 7 && r != TR_REG_UR + 63 && r != TR_REG_UP + 7 &&
           r < TR_NREGS;
}

/* Datapaths of the fma pipe an instruction may use when the arch splits it
 * into FMA-lite and FMA-heavy (pipes.fmaheavy; sim/trace/trace_isa.c). */
enum tr_fma_path {
    TR_FMA_ANY,   /* FP32 FFMA/FADD/FMUL: either datapath                     */
    TR_FMA_HEAVY, /* IMAD/IMUL/IDP: the FMA-heavy datapath only               */
    TR_FMA_BOTH,  /* FP16x2 HFMA2/HADD2/HMUL2: both datapaths at once          */
    TR_FMA_WIDE   /* IMAD.WIDE: FMA-heavy only, two passes (a 64-bit result)   */
};

/* Does in run on the FMA-heavy datapath alone (when the arch splits it)? */
static inline int tr_fma_heavy_only(const struct tr_inst *in)
{
    return in->fma_path == TR_FMA_HEAVY || in->fma_path == TR_FMA_WIDE;
}

/* Issue intervals FMA-heavy is busy with in: 2 for IMAD.WIDE, else 1. */
static inline int tr_fma_passes(const struct tr_inst *in)
{
    return in->fma_path == TR_FMA_WIDE ? 2 : 1;
}

/* Per-dynamic-instance data a reader may supply (addresses, real mask). */
struct tr_dyn {
    uint32_t active_mask;  /* lanes that executed (0 = predicated off entirely)     */
    uint32_t naddr;        /* entries in addr (0 when the pattern says it all)       */
    const uint64_t *addr;  /* per-active-lane byte addresses, owned by the reader    */
};

/* Lanes set in an active mask.  A population count that does not rely on
 * the POPCNT instruction (gcc's default x86-64 target lacks it and
 * __builtin_popcount calls a library routine); the engine counts every
 * issued instruction's lanes. */
static inline int tr_lanes(uint32_t x)
{
    if (x == 0xffffffffu)
        return 32;
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

struct tr_launch {
    char name[512];        /* kernel name (mangled library names run past 200
                              characters: CuPy's CUB DeviceReduceKernel, 228)  */
    uint32_t grid[3];      /* grid dimensions                                       */
    uint32_t block[3];     /* block dimensions                                      */
    int regs;              /* registers per thread                                  */
    int smem_static;       /* static shared memory, bytes                           */
    int smem_dynamic;      /* dynamic shared memory, bytes                          */
    int barriers;          /* named barriers the kernel uses (1 if it syncs)        */
};

/* A warp's position in its stream.  Fixed size; copying it is cheap. */
struct tr_cursor {
    /* (what tr_next touches comes first: one cache line) */
    const struct tr_inst *run;    /* reader's promise (tr_next): the next nrun     */
    uint32_t nrun;                /* instructions are run[0..nrun), one pc each,
                                     static mask, no addresses; 0: ask warp_next  */
    uint32_t pc;                  /* reader-defined position                     */
    uint64_t seq;                 /* instructions returned so far                */
    uint32_t block;               /* linear block index                          */
    uint32_t warp;                /* warp index within the block                 */
    uint32_t depth;               /* loop nesting depth in use                   */
    uint32_t left[TR_MAX_DEPTH];  /* remaining trips per open loop               */
    void *state;                  /* reader-owned per-warp state, or NULL         */
    /* (touched only by instructions with addresses: after the hot line) */
    uint32_t trips[TR_MAX_DEPTH]; /* trip count of each open loop (native traces:
                                     trip k of loop j is trips[j] - left[j])      */
    uint64_t addr[32];            /* reader-filled per-lane addresses: struct
                                     tr_dyn.addr points here (each cursor its own,
                                     so warps on several threads share nothing);
                                     valid until the next warp_next             */
};

struct trace_kernel;

struct trace_ops {
    /* Position c at the first instruction of (block, warp). 0 or -1. */
    int (*warp_begin)(struct trace_kernel *k, uint32_t block, uint32_t warp,
                      struct tr_cursor *c);
    /* Next instruction of the warp, or NULL when its stream ended (EXIT was
     * returned last).  *dyn, if dyn != NULL, is filled for this instance. */
    const struct tr_inst *(*warp_next)(struct trace_kernel *k, struct tr_cursor *c,
                                       struct tr_dyn *dyn);
    /* Release per-warp state (may be NULL). */
    void (*warp_end)(struct trace_kernel *k, struct tr_cursor *c);
    /* Free the kernel. */
    void (*destroy)(struct trace_kernel *k);
    /* Exact number of instructions warp_next returns for (block, warp), without
     * walking the stream; NULL when the reader cannot tell cheaply (then
     * tr_warp_insts() walks the stream). */
    uint64_t (*warp_count)(struct trace_kernel *k, uint32_t block, uint32_t warp);
    /* An upper bound of every warp's count, at the cost of about one walk
     * of the program (not of the warps); NULL when the reader has none. */
    uint64_t (*warp_bound)(struct trace_kernel *k);
};

struct trace_kernel {
    const struct trace_ops *ops; /* reader implementation                        */
    struct tr_launch launch;     /* launch parameters                            */
    uint64_t warp_insts_hint;    /* total warp-instructions if known cheaply (UINT64_MAX:
                                    2^64 or more), else 0 */
    void *impl;                  /* reader-owned data                            */
    const char *error;           /* after a failed warp_begin: the reader's one-line
                                    "file:line:col: message" (reader-owned), or NULL */
    uint64_t code_bytes;         /* span of the instructions' addresses, last + 16 - first
                                    (native traces with addresses; else 0)       */
    uint64_t unknown_insts;      /* warp-instructions read so far whose opcode is not
                                    in the SASS table (Accel-Sim reader; else 0)  */
    int mt_safe;                 /* 1: warp_begin/next/end may run concurrently on
                                    distinct cursors (engine_opts.threads > 1); 0
                                    (the zero value): the engine uses one thread  */
};

struct trace_file {
    int nkernels;                /* kernels in launch order                      */
    struct trace_kernel **kernels; /* owned                                      */
};

/* Open any supported trace (format detected from content/name).  "-" is
 * standard input; standard input, pipes, FIFOs and devices are read once
 * into memory (at most TRACE_PIPE_MAX bytes) and must be native traces.  On
 * error returns NULL and writes one line "file:line:col: message" into err. */
struct trace_file *trace_open(const char *path, char err[TRACE_ERR_MAX]);
void trace_close(struct trace_file *t);

/* Fill in rd/rs and their masks from dst/src and set in->sealed.  Readers
 * call it once a static instruction's registers are final, so the engine
 * does not recompute them at every fetch (an unsealed instruction still
 * works: the engine then computes them itself, per fetch). */
void tr_inst_seal(struct tr_inst *in);

/* The next instruction of a warp: ops->warp_next, except inside a
 * straight-line run the reader announced in the cursor (native traces: the
 * instructions up to the next loop or condition), which costs a few loads
 * instead of a call.  Same results as calling warp_next. */
static inline const struct tr_inst *tr_next(struct trace_kernel *k, struct tr_cursor *c,
                                            struct tr_dyn *dyn)
{
    if (c->nrun) {
        const struct tr_inst *in = c->run++;
        c->nrun--;
        c->pc++;
        c->seq++;
        dyn->active_mask = in->active;
        dyn->naddr = 0;
        dyn->addr = NULL;
        return in;
    }
    return k->ops->warp_next(k, c, dyn);
}

/* The lane-address rule of the native format (docs/trace-format.md,
 * "Addresses"), one definition for every reader and tool: the byte address
 * of each active lane of `mask`, in lane order, into out[0..return) for an
 * access whose lane 0 is at a0, by the instruction's pattern and width
 * (0 = 4 bytes):
 *   coalesced  lane i at a0 + i*width
 *   strided    lane i at a0 + i*stride
 *   broadcast  every lane at a0
 *   random     lane i at a0 + width*floor(u*(range/width)), u uniform in
 *              [0, 1) from a hash of (key, i) (32 bits of it while
 *              range/width < 2^32, else 64): a width-aligned address in
 *              [a0, a0 + range) (range < width counts as width)
 * Lane i is the lane's index in the warp, so an inactive lane leaves a gap.
 * `key` identifies the dynamic instance (tr_addr_key); only random reads it.
 * Returns the lanes written (0 for TR_PAT_ADDRESSES, which has no rule). */
uint32_t tr_lane_addrs(const struct tr_inst *in, uint64_t a0, uint64_t range, uint64_t key,
                       uint32_t mask, uint64_t out[32]);
/* The key of one dynamic instance for tr_lane_addrs: a hash of the warp's
 * (block, warp) and its dynamic instruction number `seq` (the instruction's
 * 0-based position in the warp's stream), so random addresses depend on
 * nothing but the instance: not on threads, visiting order or other warps. */
uint64_t tr_addr_key(uint32_t block, uint32_t warp, uint64_t seq);

/* Warps per block of a launch: ceil(threads / 32). */
uint32_t tr_warps_per_block(const struct tr_launch *l);
/* Blocks in the grid. */
uint64_t tr_grid_blocks(const struct tr_launch *l);
/* Exact dynamic instructions (EXIT included) of warp `warp` of block `block`:
 * ops->warp_count when the reader has it, else by walking the stream.
 * Returns UINT64_MAX if (block, warp) is out of range. */
uint64_t tr_warp_insts(struct trace_kernel *k, uint32_t block, uint32_t warp);
/* A kernel's warp-instructions as far as they are known before it runs,
 * held against a limit (docs/trace-format.md, "Instruction totals"). */
enum tr_total_kind {
    TR_TOTAL_EXACT,   /* n is the total                                        */
    TR_TOTAL_UPPER,   /* the total is at most n (and within the limit)         */
    TR_TOTAL_ATLEAST  /* the total is at least n (UINT64_MAX: 2^64 or more)    */
};
struct tr_total {
    uint64_t n;       /* the count                                             */
    int kind;         /* enum tr_total_kind: what n is                         */
};
/* 1 when the kernel executes more than `limit` warp-instructions (0: no
 * limit, never above), else 0; *t says what is known.  In order, each step
 * only when the ones before did not decide: the reader's exact hint; the
 * warp count (every warp executes at least its EXIT); the reader's bound
 * of one warp times the warps, when it is within the limit (a quick yes,
 * TR_TOTAL_UPPER; skipped when `exact`); the warps counted one by one
 * (ops->warp_count), stopping as soon as the sum passes the limit.  Above
 * the limit *t is exact or a lower bound above it, never a guess; the
 * count by warps costs at most one walk of each warp's program, less than
 * the run it guards.  A reader without warp_count, or without warp_bound
 * unless `exact` (the Accel-Sim reader, whose counts read the whole file),
 * gives the warp count (TR_TOTAL_ATLEAST). */
int tr_kernel_insts_total(struct trace_kernel *k, uint64_t limit, int exact, struct tr_total *t);

#endif
