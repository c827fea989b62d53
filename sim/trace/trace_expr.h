/* trace_expr.h — the small integer expression language of native traces
 * (trip counts, `when` conditions, `addr=` of memory instructions): parsed
 * once into postfix code, evaluated per warp without allocation.
 * docs/trace-format.md gives the grammar.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_EXPR_H
#define SMSIM_TRACE_EXPR_H

#include <stddef.h>
#include <stdint.h>

enum { TR_EXPR_MAX = 64 }; /* postfix operations per expression (= stack bound) */

/* One postfix operation. */
struct tr_expr_op {
    int64_t val;  /* literal for the push operation                         */
    uint8_t op;   /* operation code (internal to trace_expr.c)              */
};

/* Values fixed for a whole launch, folded at parse time. */
struct tr_expr_launch {
    int64_t blocks;  /* `blocks`: blocks in the grid                        */
    int64_t warps;   /* `warps`: warps per block                            */
    int64_t gx, gy, gz; /* `gx` `gy` `gz`: grid dimensions                  */
    int loops;       /* loop indices in scope: `i0`..`i<loops-1>` (addr= of an
                        instruction inside that many loops); 0 elsewhere, where
                        a loop index is an error (trip counts and conditions
                        are per warp, not per trip)                         */
};

/* What a warp's expression may read at run time. */
struct tr_expr_env {
    int64_t block;   /* linear block index                                  */
    int64_t warp;    /* warp index in the block                             */
    int64_t gx, gy;  /* grid x and y, to derive bx, by, bz                  */
    const uint32_t *trips; /* `iK` = trips[K] - left[K]: the 0-based trip of */
    const uint32_t *left;  /* the K-th enclosing loop (struct tr_cursor's
                              arrays); read only by code that names iK      */
};

/* Result of parsing one expression. */
struct tr_expr {
    struct tr_expr_op code[TR_EXPR_MAX]; /* postfix code                     */
    int n;           /* operations in code                                  */
    int is_const;    /* 1 when no operand depends on block, warp or a loop   */
    int64_t value;   /* the value when is_const                              */
};

/* Parse an expression from s[*pos...]; stops before the first character that
 * cannot continue it (e.g. '{').  On success returns 0 and advances *pos.  On
 * error returns -1, writes a message (no position) into msg and the byte
 * offset of the offending text into *errpos. */
int tr_expr_parse(const char *s, size_t *pos, const struct tr_expr_launch *l,
                  struct tr_expr *out, char *msg, size_t msgsz, size_t *errpos);

/* Evaluate postfix code (n operations). Never allocates, never fails:
 * division or remainder by zero gives 0, arithmetic wraps (two's complement). */
int64_t tr_expr_eval(const struct tr_expr_op *code, int n, const struct tr_expr_env *env);

/* The values an expression can take over a set of warps (bounds inclusive). */
struct tr_expr_box {
    int64_t block_lo, block_hi; /* linear block indices                       */
    int64_t warp_lo, warp_hi;   /* warp indices in the block                  */
    int64_t gx, gy;             /* grid x and y, to derive bx, by, bz (>= 1)  */
};
/* Bounds [*lo, *hi] of code's value for every (block, warp) in the box, by
 * interval arithmetic: never narrower than the truth, possibly wider (a
 * result that may wrap, a loop index, or two correlated operands give wide
 * bounds).  Never allocates. */
void tr_expr_range(const struct tr_expr_op *code, int n, const struct tr_expr_box *box,
                   int64_t *lo, int64_t *hi);

/* Parse an unsigned number at s[*pos]: decimal or 0x hex, '_' separators,
 * optional K/M/G suffix (x1024, x1024^2, x1024^3).  The number must not be
 * followed by a letter, digit or '_'.  Returns 0, or -1 (bad syntax) or -2
 * (exceeds UINT64_MAX); on failure *pos is unchanged. */
int tr_parse_number(const char *s, size_t *pos, uint64_t *out);

#endif
