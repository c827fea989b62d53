/* stats.c — allocation of the per-kernel counters and the names and grid
 * letters of the warp states.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "stats/stats.h"

int stats_kernel_init(struct stats_kernel *s, int sm_count, int smsp_per_sm)
{
    memset(s, 0, sizeof *s);
    if (sm_count <= 0 || smsp_per_sm <= 0)
        return -1;
    s->sm = calloc((size_t)sm_count, sizeof *s->sm);
    s->smsp = calloc((size_t)sm_count * (size_t)smsp_per_sm, sizeof *s->smsp);
    if (!s->sm || !s->smsp) {
        stats_kernel_free(s);
        return -1;
    }
    s->sm_count = sm_count;
    s->smsp_per_sm = smsp_per_sm;
    return 0;
}

void stats_kernel_free(struct stats_kernel *s)
{
    if (!s)
        return;
    free(s->sm);
    free(s->smsp);
    s->sm = NULL;
    s->smsp = NULL;
    s->sm_count = 0;
    s->smsp_per_sm = 0;
}

/* The suffixes of ncu's smsp__average_warps_issue_stalled_<name>_per_issue_active
 * metrics (Nsight Compute Profiling Guide, "Warp Stall Reasons"), in the
 * order of enum warp_state. */
static const char *const state_names[WS_COUNT] = {
    [WS_SELECTED] = "selected",
    [WS_NOT_SELECTED] = "not_selected",
    [WS_WAIT] = "wait",
    [WS_LONG_SCOREBOARD] = "long_scoreboard",
    [WS_SHORT_SCOREBOARD] = "short_scoreboard",
    [WS_MATH_PIPE_THROTTLE] = "math_pipe_throttle",
    [WS_MIO_THROTTLE] = "mio_throttle",
    [WS_LG_THROTTLE] = "lg_throttle",
    [WS_BARRIER] = "barrier",
    [WS_MEMBAR] = "membar",
    [WS_BRANCH_RESOLVING] = "branch_resolving",
    [WS_NO_INSTRUCTION] = "no_instruction",
    [WS_DISPATCH_STALL] = "dispatch_stall",
    [WS_DRAIN] = "drain",
    [WS_IMC_MISS] = "imc_miss",
};

/* Grid letters (docs/pictures.md): upper case for the states a user looks
 * for first (issued, memory, barrier), lower case for the rest.  "e" is an
 * eligible warp that another warp beat to the issue slot. */
static const char state_letters[WS_COUNT] = {
    [WS_SELECTED] = 'S',
    [WS_NOT_SELECTED] = 'e',
    [WS_WAIT] = 'w',
    [WS_LONG_SCOREBOARD] = 'L',
    [WS_SHORT_SCOREBOARD] = 's',
    [WS_MATH_PIPE_THROTTLE] = 'M',
    [WS_MIO_THROTTLE] = 'm',
    [WS_LG_THROTTLE] = 'g',
    [WS_BARRIER] = 'B',
    [WS_MEMBAR] = 'b',
    [WS_BRANCH_RESOLVING] = 'r',
    [WS_NO_INSTRUCTION] = 'n',
    [WS_DISPATCH_STALL] = 'd',
    [WS_DRAIN] = 'D',
    [WS_IMC_MISS] = 'c',
};

const char *stats_state_name(int ws)
{
    if (ws < 0 || ws >= WS_COUNT)
        return "unknown";
    return state_names[ws];
}

char stats_state_letter(int ws)
{
    if (ws < 0 || ws >= WS_COUNT)
        return '?';
    return state_letters[ws];
}

const struct stats_metric *stats_find(const struct stats_metric *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (m[i].name && !strcmp(m[i].name, name))
            return &m[i];
    return NULL;
}
