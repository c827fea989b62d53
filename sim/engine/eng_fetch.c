/* eng_fetch.c — a warp's next instruction from the trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine/eng_fetch.h"
#include "engine/eng_run.h"

void eng_fetch_next(struct eng_run *r, struct eng_warp *w, struct tr_inst *room)
{
    /* Called after every issue but EXIT's (w->ni is the instruction issued,
     * w->dyn its instance) and at launch (w->ni NULL): the one place an
     * observer's per-instruction issue count can be kept off the issue
     * loop (engine_observer.inst_issue). */
    if (__builtin_expect(r->obs != NULL, 0) && w->ni && r->obs->inst_issue)
        r->obs->inst_issue(r->obs->ud, w->ni, w->dyn.active_mask);
    const struct tr_inst *in = tr_next(r->k, &w->cur, &w->dyn);
    if (in && !in->sealed) { /* (the readers seal theirs; tests may not) */
        *room = *in;
        tr_inst_seal(room);
        in = room;
    }
    w->ni = in;
    w->cond_ok = 0;
    if (in) {
        w->pipe = (uint8_t)eng_pipe_of(in);
        w->queue = (uint8_t)mem_queue_of(in);
    }
}
