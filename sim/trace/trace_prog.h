/* trace_prog.h — a compiled native kernel: a flat program of instructions and
 * control entries (loop begin/end, conditions, jumps), one per kernel however
 * large its trip counts.  Built by trace_native.c, run by trace_prog.c.
 * Internal to the trace module (and its tests).
 *
 * Execution model (warp_next): the cursor's pc indexes ops[].  A loop entry
 * evaluates its trip count once per entry and pushes it on the cursor's
 * left[] stack; its end entry decrements and jumps back; a condition jumps
 * past its body when false; a jump skips an else branch.  Conditions and trip
 * counts depend only on (block, warp) and launch constants, so a warp's path
 * is fixed; a loop whose body could produce no instruction for some warp is
 * flagged and skipped whole when that warp's body is empty, so warp_next is
 * O(1) amortized per returned instruction and never allocates.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_PROG_H
#define SMSIM_TRACE_PROG_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"
#include "trace/trace_expr.h"

enum nt_op_type {
    NT_INST,    /* return insts[arg]                                          */
    NT_LOOP,    /* trips = value; 0 -> pc = target (past the end entry)       */
    NT_ENDLOOP, /* if --left > 0 pc = target (first body entry)               */
    NT_COND,    /* if value == 0 pc = target (else branch or end)             */
    NT_JUMP     /* pc = target                                                */
};

enum {
    NT_F_CONST = 1,       /* LOOP/COND: arg is the literal value, not an expr */
    NT_F_EXIT = 2,        /* INST: the warp's stream ends after it            */
    NT_F_MAYBE_EMPTY = 4, /* LOOP: body may produce nothing for some warps    */
    NT_F_ADDR = 8         /* INST: fills per-lane addresses (nt_prog.mem[arg]) */
};

/* Where an instruction's lane 0 is (docs/trace-format.md, "Addresses"). */
enum nt_addr_mode {
    NT_A_NONE,      /* no addresses (naddr = 0)                                */
    NT_A_EXPR,      /* addr=EXPR: lane 0 at the expression's value             */
    NT_A_FOOTPRINT  /* footprint shorthand: walks a region of `footprint` bytes */
};

/* Addresses of one static instruction (global or local space). */
struct nt_mem {
    uint8_t mode;        /* enum nt_addr_mode                                   */
    uint8_t is_const;    /* NT_A_EXPR: the address is `value`, else exprs[expr]  */
    uint16_t pad;        /* (explicit layout)                                   */
    uint32_t expr;       /* NT_A_EXPR, !is_const: index in nt_prog.exprs        */
    uint64_t value;      /* NT_A_EXPR: constant address; NT_A_FOOTPRINT: region base */
    uint64_t range;      /* random: bytes the lanes draw from (the footprint)   */
    uint64_t span;       /* NT_A_FOOTPRINT streaming: bytes one access advances  */
    uint64_t chunks;     /* NT_A_FOOTPRINT streaming: positions in the region   */
};

struct nt_op {
    uint8_t type;    /* enum nt_op_type                                       */
    uint8_t flags;   /* NT_F_*                                                */
    uint16_t pad;    /* (explicit layout)                                     */
    uint32_t target; /* jump target (op index)                                */
    uint64_t arg;    /* inst index, literal value, or expr index              */
};

struct nt_expr {
    uint32_t off;    /* first operation in nt_prog.code                        */
    uint32_t n;      /* operations                                            */
};

struct nt_prog {
    struct nt_op *ops;        /* the program                                  */
    uint32_t nops;            /* entries in ops                               */
    struct tr_inst *insts;    /* static instructions                          */
    uint32_t ninsts;          /* entries in insts                             */
    struct tr_expr_op *code;  /* postfix code of all dynamic expressions      */
    uint32_t ncode;           /* entries in code                              */
    struct nt_expr *exprs;    /* dynamic expressions                          */
    uint32_t nexprs;          /* entries in exprs                             */
    struct nt_mem *mem;       /* [ninsts] addresses per instruction, NULL when
                                 no instruction has any                        */
    uint32_t *run;            /* [nops] plain instructions that follow op i
                                 straight (consecutive ops and insts, no EXIT
                                 flag): tr_next's run; NULL: none computed     */
    int dynamic;              /* 1 if some control depends on block or warp   */
    uint64_t blocks;          /* blocks in the grid                           */
    uint32_t warps;           /* warps per block                              */
    int64_t gx, gy;           /* grid x, y (bx/by/bz in expressions)           */
};

/* The reader's operations (warp_begin, warp_next, ...). */
extern const struct trace_ops nt_trace_ops;

/* Exact instructions of (block, warp) by walking the structure (loops
 * multiplied, not unrolled); saturates at UINT64_MAX. */
uint64_t nt_count(const struct nt_prog *p, uint32_t block, uint32_t warp);

/* An upper bound of nt_count over every (block, warp) of the launch, from
 * the bounds of the trip counts and conditions (tr_expr_range); exact when
 * no control depends on block or warp.  Costs one walk of the program. */
uint64_t nt_count_bound(const struct nt_prog *p);

/* Instructions in ops[from, to) for env (body of a loop, no EXIT inside). */
uint64_t nt_count_range(const struct nt_prog *p, uint32_t from, uint32_t to,
                        const struct tr_expr_env *env, int *exited);

void nt_prog_free(struct nt_prog *p);

/* Compute p->run (after the program is final).  0, or -1 out of memory. */
int nt_prog_runs(struct nt_prog *p);

#endif
