/* trace_ctl.h — control bits for programs that have none: an assignment pass
 * that derives stall counts, dependence counters, wait masks, yield and reuse
 * bits from the arch's pipe latencies the way ptxas does, so a hand-written
 * native trace runs on the compiler-guided issue stage (docs/model.md
 * "Control bits"; shared/reference/modern-sm-core.md §1).
 *
 * The pass needs the arch (latencies) and the whole static program (loops,
 * conditions), so it runs where both meet: at the start of engine_run, when
 * scheduler.assign_ctl is 1.  It never writes the reader's instructions (the
 * kernel may be run again on another arch, or concurrently): it returns a
 * kernel over a copy of the program with one instruction per position (the
 * reader shares one static instruction among equal ones) and the bits filled
 * in, which the engine runs instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_TRACE_CTL_H
#define SMSIM_TRACE_CTL_H

#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"
#include "trace/trace.h"

/* One kernel's program with assigned control bits.  n == 0: no pass (run
 * the reader's kernel as it is). */
struct trace_ctl {
    struct trace_kernel k;      /* the kernel to run: the reader's, with the program below */
    struct nt_prog *prog;       /* owned: the reader's program with one instruction per
                                   position (its expressions borrowed from the reader's) */
    struct tr_inst *insts;      /* [n] its instructions, in program order (prog->insts) */
    uint32_t n;                 /* entries of insts; 0: no pass                        */
    uint32_t counters;          /* instructions given a write or read counter          */
    uint32_t waits;             /* instructions given a wait mask                      */
};

/* Assign control bits for kernel k on arch a into *c (zeroed first).  Only
 * native traces have a static program the pass can see (their reader keeps
 * it: nt_prog); for any other kernel, and for a program in which any
 * instruction already carries control bits (compiler output is trusted
 * whole; a mix is left alone), c->n is 0.  c->k shares k's reader state and
 * must not be destroyed; it is valid while k is.  Returns 0, or -1 out of
 * memory. */
int trace_ctl_new(const struct trace_kernel *k, const struct arch *a, struct trace_ctl *c);

/* The pass itself on program p (trace_prog.h), whose instructions insts
 * (p->insts) it fills in place; *counters and *waits (may be NULL) count the
 * instructions given a counter / a wait mask.  0, or -1 out of memory. */
struct nt_prog;
int trace_ctl_assign(const struct nt_prog *p, const struct arch *a, struct tr_inst *insts,
                     uint32_t *counters, uint32_t *waits);

void trace_ctl_free(struct trace_ctl *c);

#endif
