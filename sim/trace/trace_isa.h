/* trace_isa.h — SASS opcode table (Volta..Blackwell, SM 70-120), independent
 * of any trace syntax: the native reader and the Accel-Sim reader share it.
 *
 * An opcode's text is a base name and dot-separated modifiers
 * ("LDG.E.128.SYS" = LDG + E, 128, SYS).  The base name selects the table row
 * (kind, pipe, memory space, dependency class); a few modifiers refine it:
 * .64/.128 (and .U8/.S8/.U16/.S16) set the memory width, .64/.128/.WIDE and
 * 64-bit conversion types widen the destination register group.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_ISA_H
#define SMSIM_TRACE_ISA_H

#include <stddef.h>
#include "trace/trace.h"

/* What an opcode's operand list means, beyond the fields of struct tr_inst. */
struct tr_isa_info {
    int known;        /* 1 if the base name is in the table                      */
    int ndst_ops;     /* leading operands that may be destinations (0..3):
                         operand 0 always is; operand i >= 1 is one when it is a
                         bare predicate (P/UP/PT/UPT), or when i == 1, operand 0
                         is a predicate and operand 1 a bare register           */
    int dst_regs;     /* consecutive registers the main (R/UR) destination
                         writes: 1, 2 (64-bit) or 4 (128-bit)                   */
    int is_memory;    /* 1 for instructions that access memory (width valid)     */
};

/* Decode an opcode's text (with modifiers) into the static fields of *out:
 * kind, pipe, space, dep, width, pattern (coalesced, or broadcast for the
 * constant space), conflict = 1, latency = -1, active = all lanes, opcode
 * (truncated to 23 chars).  Registers and the other fields are zeroed.
 * Unknown base names are decoded as an ALU-pipe, fixed-latency ALU
 * instruction with one 32-bit destination (the Accel-Sim reader's fallback;
 * the native reader rejects them).  Returns info->known. */
int tr_isa_decode(const char *opcode, struct tr_inst *out, struct tr_isa_info *info);

/* Length of the base name of `opcode` (up to the first '.'). */
size_t tr_isa_base_len(const char *opcode);

/* Number of rows in the table, and row i's base name (tests, docs). */
int tr_isa_count(void);
const char *tr_isa_name(int i);

#endif
