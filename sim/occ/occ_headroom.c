/* occ_headroom.c — the occupancy advisor's headroom: for registers, shared
 * memory, block size and barriers, the largest value that keeps the
 * launch's resident blocks, and the largest whose own limit allows one
 * block more (the next step).  Every number is occ_compute() on a changed
 * launch — one definition of the rules — scanned over the input's range
 * (at most the opt-in shared memory, ~230 k launches, a few ms).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "occ/occ_headroom.h"

#include <limits.h>
#include <string.h>

enum room_input { IN_REGS, IN_SMEM, IN_THREADS, IN_BARRIERS };

struct occ_launch occ_launch_with_smem(const struct occ_launch *l, int total)
{
    struct occ_launch m = *l;
    m.smem_static = total < l->smem_static ? total : l->smem_static;
    m.smem_dynamic = total - m.smem_static;
    if (m.max_dynamic >= 0 && m.max_dynamic < m.smem_dynamic)
        m.max_dynamic = m.smem_dynamic;
    return m;
}

/* The launch with input `in` set to v (shared memory: the total). */
static struct occ_launch with(const struct occ_launch *l, int in, int v)
{
    struct occ_launch m = *l;
    if (in == IN_REGS) {
        m.regs = v;
    } else if (in == IN_SMEM) {
        m = occ_launch_with_smem(l, v);
    } else if (in == IN_THREADS) {
        m.threads = v;
    } else {
        m.barriers = v;
    }
    return m;
}

/* The term of the limits that input `in` moves. */
static int term(const struct occ_result *r, int in)
{
    return in == IN_REGS ? r->limit_registers
           : in == IN_SMEM ? r->limit_shared_mem
           : in == IN_THREADS ? r->limit_warps
                              : r->limit_barriers;
}

static void scan(const struct arch *a, const struct occ_launch *l, int in, int lo, int hi,
                 int now, int blocks, struct occ_room *room)
{
    room->used = 1;
    room->now = now;
    room->keep_max = -1;
    room->next_max = -1;
    for (int v = lo; v <= hi; v++) {
        struct occ_launch m = with(l, in, v);
        struct occ_result r;
        occ_compute(a, &m, &r);
        if (blocks > 0 && r.blocks_per_sm >= blocks)
            room->keep_max = v;
        /* a value that makes the launch invalid has a term of 0; limit_blocks
         * is 0 only when occ_compute stopped before computing the limits */
        if (r.limit_blocks > 0 && term(&r, in) > blocks)
            room->next_max = v;
    }
}

int occ_headroom(const struct arch *a, const struct occ_launch *l, struct occ_headroom *h)
{
    struct occ_result r;
    memset(h, 0, sizeof *h);
    occ_compute(a, l, &r);
    if (r.error && (!strcmp(r.error, "invalid launch") || !strcmp(r.error, "invalid architecture")))
        return -1;
    h->blocks = r.blocks_per_sm;
    h->next = r.blocks_per_sm + 1;
    h->binding = r.binding;
    h->max_blocks = a->max_blocks_per_sm;
    h->next_pct = r.max_warps_per_sm > 0
                      ? 100.0 * h->next * r.warps_per_block / r.max_warps_per_sm : 0.0;
    scan(a, l, IN_REGS, 0, a->max_regs_per_thread, l->regs, h->blocks, &h->regs);
    scan(a, l, IN_SMEM, 0, a->smem_per_block_optin, l->smem_static + l->smem_dynamic,
         h->blocks, &h->smem);
    scan(a, l, IN_THREADS, 1, a->max_threads_per_block, l->threads, h->blocks, &h->threads);
    if (a->barrier_multiplier > 0)
        scan(a, l, IN_BARRIERS, 0, a->barriers_per_block, l->barriers, h->blocks,
             &h->barriers);
    return 0;
}

/* "(now 56: 8 fewer)" or "(now 12288: met)". */
static void now_part(FILE *f, const struct occ_room *r, const char *fewer)
{
    if (r->next_max >= 0 && r->now > r->next_max)
        fprintf(f, " (now %d: %d %s)", r->now, r->now - r->next_max, fewer);
    else
        fprintf(f, " (now %d: met)", r->now);
}

static void room_line(FILE *f, const char *indent, const struct occ_headroom *h,
                      const char *label, const struct occ_room *r, const char *unit_keep,
                      const char *unit_next, const char *fewer)
{
    fprintf(f, "%s  %-14s ", indent, label);
    if (h->blocks > 0) {
        if (r->keep_max >= 0)
            fprintf(f, "up to %d %s keep%s %d block%s per SM; ", r->keep_max, unit_keep,
                    h->blocks == 1 ? "s" : "", h->blocks, h->blocks == 1 ? "" : "s");
        fprintf(f, "%d blocks need ", h->next);
    } else {
        fprintf(f, "1 block needs ");
    }
    if (r->next_max >= 0) {
        fprintf(f, "<= %d %s", r->next_max, unit_next);
        now_part(f, r, fewer);
    } else {
        fprintf(f, "more than any value gives (now %d)", r->now);
    }
    fputc('\n', f);
}

void occ_headroom_text(const struct occ_headroom *h, const char *indent, FILE *f)
{
    fprintf(f, "%sHeadroom (one input changed at a time, the others as given):\n", indent);
    room_line(f, indent, h, "registers:", &h->regs, "registers per thread", "per thread",
              "fewer");
    room_line(f, indent, h, "shared memory:", &h->smem,
              "B of shared memory per block (static + dynamic)", "B per block", "B less");
    room_line(f, indent, h, "block size:", &h->threads, "threads per block",
              "threads by the warps limit", "fewer");
    if (h->barriers.used)
        room_line(f, indent, h, "barriers:", &h->barriers, "barriers per block", "barriers",
                  "fewer");

    char lim[128];
    occ_limiter_string(h->binding, lim, sizeof lim);
    if (h->blocks > 0)
        fprintf(f, "%sLimited by %s: ", indent, lim);
    else
        fprintf(f, "%sNo block fits: ", indent);
    if (h->next > h->max_blocks) {
        fprintf(f, "%d blocks per SM is the SM's maximum (sm.max_blocks): no next step\n",
                h->blocks);
        return;
    }
    const struct occ_room *rooms[4] = { &h->regs, &h->smem, &h->threads, &h->barriers };
    static const char *const what[4] = { "registers per thread",
                                         "B of shared memory per block",
                                         "threads per block", "barriers per block" };
    static const char *const less[4] = { "fewer", "less", "fewer", "fewer" };
    if (h->blocks > 0 && h->next_pct <= 100.0)
        fprintf(f, "the next step, %d blocks per SM (%.2f %% occupancy at this block size), "
                   "needs ", h->next, h->next_pct);
    else if (h->blocks > 0) /* more warps than the SM has at this block size */
        fprintf(f, "the next step, %d blocks per SM, needs ", h->next);
    else
        fputs("1 block per SM needs ", f);
    int n = 0, stuck = 0;
    for (int i = 0; i < 4; i++) {
        const struct occ_room *r = rooms[i];
        if (!r->used || (r->next_max >= 0 && r->now <= r->next_max))
            continue;
        if (r->next_max < 0) {
            stuck = 1;
            continue;
        }
        fprintf(f, "%s<= %d %s (%d %s)", n ? " and " : "", r->next_max, what[i],
                r->now - r->next_max, less[i]);
        n++;
    }
    if (stuck)
        fprintf(f, "%smore than one input changed alone can give", n ? ", and " : "");
    else if (!n)
        fputs("no change (its limits allow it)", f);
    fputc('\n', f);
}
