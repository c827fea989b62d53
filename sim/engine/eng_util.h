/* eng_util.h — what every room of the engine uses: line-aligned
 * allocation and recording an SM's error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ENG_UTIL_H
#define SMSIM_ENG_UTIL_H

#include <stddef.h>
#include <stdint.h>

struct eng_run;

/* A zeroed array of n elements of `size` bytes that shares no cache line
 * with any other allocation (line-aligned, length rounded up to whole
 * lines); release with free().  NULL when out of memory. */
void *eng_line_calloc(size_t n, size_t size);

/* Record an error of SM smi at cycle t (one line).  The SM keeps the last
 * message of its first failing cycle; the time loop reports the lowest
 * cycle's, of equals the highest SM's (eng_par.c). */
void eng_error(struct eng_run *r, int smi, uint64_t t, const char *msg);

#endif
