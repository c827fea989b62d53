/* conv_sass.h — convert `cuobjdump -sass` text into a native trace
 * (docs/sass-converter.md).
 *
 * The instruction stream is the compiled one: every reachable instruction of
 * the function is written verbatim (opcode, modifiers, registers, guard
 * predicate), prefixed by its address comment.  Control flow is rebuilt
 * from the branches: a backward conditional BRA closes a `loop`, a forward
 * conditional BRA opens a region that is kept, dropped or turned into a
 * `when` block.  Trip counts come from ncu's per-instruction executed counts
 * (SourceCounters CSV) or from --trip; what the SASS cannot say about memory
 * (access pattern, footprint) comes from an annotation file, which may only
 * add memory attributes, never change the instruction stream.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CONV_SASS_H
#define SMSIM_CONV_SASS_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

/* One PC=VALUE option (--trip, --take). */
struct conv_sass_ctl {
    uint32_t pc;           /* instruction address within the function         */
    const char *value;     /* number or native-trace expression (not copied)  */
};

struct conv_sass_opts {
    const char *sass_path;    /* cuobjdump -sass listing                         */
    const char *kernel_re;    /* POSIX extended regex selecting one function     */
    const char *kernel_name;  /* exact function name instead (NULL: kernel_re)   */
    int calls_skipped;        /* listing reader: 1: a CALL on the path continues
                                 after itself (its callee is not followed); 0: an
                                 error (a conversion: an error where written)    */
    const char *counts_path;  /* ncu SourceCounters CSV (per SASS instruction), or NULL */
    const char *annot_path;   /* memory annotation file, or NULL                 */
    const struct conv_sass_ctl *trips; /* --trip PC=N: trip count of the loop
                                          closed at PC                          */
    int ntrips;               /* entries in trips                                */
    const struct conv_sass_ctl *takes; /* --take PC=EXPR: warps for which the
                                          forward branch / guarded EXIT at PC
                                          is taken                              */
    int ntakes;               /* entries in takes                                */
    struct tr_launch launch;  /* grid, block, regs, smem (name: from the SASS)   */
    int barriers;             /* barriers= header value, -1 = reader's default   */
};

/* Where a line of the generated text came from (to report a native-reader
 * error against the SASS or annotation file). */
struct conv_sass_line_src {
    uint32_t sass_line;    /* line in the .sass file (0: none)                  */
    uint16_t out_col;      /* 1-based column of the instruction in the output   */
    uint16_t sass_col;     /* 1-based column of the same text in the .sass file */
    uint32_t annot_line;   /* line in the annotation file (0: none)             */
    uint16_t attr_col;     /* 1-based column where the attributes start         */
    uint16_t annot_col;    /* 1-based column of the attributes' line start      */
};

struct conv_sass_result {
    char *text;               /* the native trace (malloc'd, NUL-terminated)     */
    size_t len;               /* bytes in text                                   */
    char name[512];           /* the function converted (mangled name)           */
    uint64_t counts_total;    /* sum of the counts CSV's executed column, 0 = none */
    uint64_t counts_warps;    /* warps of the profiled launch (count of the first
                                 instruction), 0 without counts                 */
    struct conv_sass_line_src *map; /* one entry per output line (index = line - 1) */
    uint32_t nmap;            /* entries in map                                  */
    char sass_path[256];      /* for messages                                    */
    char annot_path[256];     /* for messages ("" = none)                        */
    char counts_path[256];    /* for messages ("" = none)                        */
    char *notes;              /* what was inferred from the counts (trips, branches
                                 always taken, EXITs every warp takes, code off the
                                 path), one line each, for stderr; NULL = nothing */
};

/* Convert.  Returns 0 with *r filled (free with conv_sass_result_free), or -1
 * with one line in err: "file:line:col: message" for bad input files, or
 * "smsim: message" for a bad --trip/--take. */
int conv_sass_convert(const struct conv_sass_opts *o, struct conv_sass_result *r,
                      char err[TRACE_ERR_MAX]);
void conv_sass_result_free(struct conv_sass_result *r);

/* Open the converted trace written at `path` with the native reader and add up
 * every warp's dynamic instructions (tr_warp_insts).  A reader error is mapped
 * back onto the .sass / annotation file.  With counts from the same launch
 * (counts_warps == the launch's warps), the total must equal counts_total,
 * else "counts CSV mismatch".  0 with *total, or -1 with err. */
int conv_sass_verify(const struct conv_sass_result *r, const char *path, uint64_t *total,
                     char err[TRACE_ERR_MAX]);

/* The immediate offset of a SASS memory instruction's address operand: the
 * sum of the numbers in its first [...] group that is not a descriptor
 * (desc[UR4]) or constant bank (c[0x0][0x160]): "LDG.E R2, desc[UR4][R6.64+0x200c]"
 * -> 0x200c, "[R4.64+-0x400]" -> -0x400, "[R2.64]" -> 0.  An annotation's
 * addr= expression names it `imm` (docs/sass-converter.md). */
int64_t conv_sass_imm(const char *text);

/* How an instruction changes control flow (struct conv_sass_insn.flow). */
enum conv_sass_flow {
    CONV_SASS_PLAIN,        /* falls through (BSSY, BSYNC, WARPSYNC, ... included)  */
    CONV_SASS_BRA,          /* conditional branch: target or the next instruction   */
    CONV_SASS_JMP,          /* unconditional branch: target only                    */
    CONV_SASS_EXIT,         /* unguarded EXIT: no successor                         */
    CONV_SASS_EXIT_COND,    /* guarded EXIT: the next instruction (lanes may leave) */
    CONV_SASS_UNSUPPORTED,  /* RET, BRX, JMX, ...: no successor followed            */
    CONV_SASS_CALL          /* CALL: the next instruction (the callee not followed)  */
};

/* One instruction of the function a listing was read for. */
struct conv_sass_insn {
    uint32_t line;         /* line in the .sass file                               */
    uint16_t col;          /* column of the instruction text                       */
    char *text;            /* guard, opcode, operands (no ';'), owned              */
    char opcode[48];       /* opcode with modifiers                                */
    int flow;              /* enum conv_sass_flow                                  */
    int pred;              /* guarded by a predicate other than @PT (@!PT too)     */
    uint32_t target;       /* branch target, instruction index (flow BRA/JMP)      */
    int reach;             /* reachable from address 0 by the branches (counts aside) */
    int64_t count;         /* executed count from the counts file, -1 = none       */
};

/* The instructions of one function, as sass2trace --events reads them: the
 * listing's syntax and (with counts_path) the counts file are checked as for
 * a conversion; reachability is by the branches alone (code the counts show
 * executing 0 times stays reachable, and needs a count); a return or an
 * indirect jump reachable is an error, and a call unless calls_skipped. */
struct conv_sass_listing {
    struct conv_sass_insn *in;  /* instruction i is at address 16*i            */
    uint32_t n;                 /* instructions                                */
    char name[1024];            /* the function's (mangled) name                */
    int64_t warps;              /* counts: executions of the first instruction, 0 = none */
};

/* Read the function of o->sass_path selected by o->kernel_name (or
 * o->kernel_re), and o->counts_path if set (every other option is unused).
 * 0 with *l filled (free with conv_sass_listing_free), or -1 with err. */
int conv_sass_listing_read(const struct conv_sass_opts *o, struct conv_sass_listing *l,
                           char err[TRACE_ERR_MAX]);
void conv_sass_listing_free(struct conv_sass_listing *l);

/* The successors of instruction i of l (0..2 into succ), by the rule that
 * decides reachability: a branch's target first, then the next instruction
 * unless i is an unconditional BRA, an unguarded EXIT or an unsupported
 * transfer (a CALL continues after itself). */
int conv_sass_succ(const struct conv_sass_listing *l, uint32_t i, uint32_t succ[2]);

/* Warp-instructions of every warp of kernel k added up (saturating). */
uint64_t conv_sass_kernel_insts(struct trace_kernel *k);

#endif
