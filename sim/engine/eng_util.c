/* eng_util.c — line-aligned allocation and per-SM error recording.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/eng_run.h"
#include "engine/eng_util.h"

void *eng_line_calloc(size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (size && n > (size_t)(PTRDIFF_MAX - 63) / size)
        return NULL;
    size_t bytes = (n * size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void eng_error(struct eng_run *r, int smi, uint64_t t, const char *msg)
{
    struct eng_sm *sm = &r->sm[smi];
    if (sm->err_t == ENG_NEVER || sm->err_t == t) {
        sm->err_t = t;
        snprintf(sm->err, sizeof sm->err, "%s", msg);
    }
}
