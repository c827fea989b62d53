/* eng_sched.c — scheduler policies (eng_sched.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine/eng_sched.h"
#include "engine/eng_run.h"

static int pick_lrr(int last, const int *elig, const uint8_t *mark, int n)
{
    /* key (ls - last - 1) mod nslots: the first slot after `last`, wrapping */
    int best = -1;
    for (int i = 0; i < n; i++)
        if (mark[i] == ENG_PICK_FREE) {
            if (elig[i] > last)
                return i;
            if (best < 0)
                best = i;
        }
    return best;
}

/* The oldest (youngest = 0) or the youngest (youngest = 1) by launch
 * order.  Ages are distinct, so ties cannot arise. */
static int pick_age(const struct eng_warp *w, int sub, int s, const int *elig,
                    const uint8_t *mark, int n, int youngest)
{
    int best = -1;
    uint64_t bage = 0;
    for (int i = 0; i < n; i++) {
        if (mark[i] != ENG_PICK_FREE)
            continue;
        uint64_t age = w[elig[i] * sub + s].age;
        if (best < 0 || (youngest ? age > bage : age < bage)) {
            best = i;
            bage = age;
        }
    }
    return best;
}

/* The youngest (youngest = 1) or the oldest (0) block by launch order, and
 * within it the first eligible slot after the last issued one, wrapping: a
 * block's warps take turns, which is how GH100's warps of one block share a
 * pipe (docs/model.md). */
static int pick_block(const struct eng_warp *w, int sub, int s, int last, const int *elig,
                      const uint8_t *mark, int n, int youngest)
{
    int best = -1;
    uint32_t bblk = 0;
    int bafter = 0;
    for (int i = 0; i < n; i++) {
        if (mark[i] != ENG_PICK_FREE)
            continue;
        uint32_t blk = w[elig[i] * sub + s].block;
        int after = elig[i] > last;
        if (best < 0 || (youngest ? blk > bblk : blk < bblk) ||
            (blk == bblk && after && !bafter)) {
            best = i;
            bblk = blk;
            bafter = after;
        }
    }
    return best;
}

int eng_sched_pick(int policy, const struct eng_warp *w, int sub, int s, int last,
                   const int *elig, const uint8_t *mark, int n, int last_idx)
{
    if (policy == SCHED_LRR)
        return pick_lrr(last, elig, mark, n);
    /* every other policy is greedy: the last issued warp while it is eligible */
    if (last_idx >= 0 && mark[last_idx] == ENG_PICK_FREE)
        return last_idx;
    if (policy == SCHED_GRR)
        return pick_lrr(last, elig, mark, n);
    if (policy == SCHED_GYB || policy == SCHED_GOB)
        return pick_block(w, sub, s, last, elig, mark, n, policy == SCHED_GYB);
    return pick_age(w, sub, s, elig, mark, n, policy == SCHED_GTY);
}
