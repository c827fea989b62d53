/* eng_par.h — the engine's one time loop: epochs, stepped by one thread
 * or several, with the same results on any number.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_PAR_H
#define SMSIM_ENG_PAR_H

struct eng_run;

/* Run the kernel set up in r (first wave dispatched) to its end on
 * `threads` threads (>= 1).  0, or -1 with the message in r->err. */
int eng_par_run(struct eng_run *r, int threads);

#endif
