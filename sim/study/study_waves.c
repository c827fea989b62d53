/* study_waves.c — how a grid falls into waves of resident blocks.
 *
 * A wave is one block on every resident-block slot of the GPU: blocks per
 * SM x SMs blocks (Nsight Compute's launch__waves_per_multiprocessor is the
 * grid over that product).  When the grid is not a whole number of waves,
 * the last wave leaves slots empty: the GPU runs under-filled for its
 * tail, which a throughput read off such a point includes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "study/study.h"

int study_waves(uint64_t grid, int blocks_per_sm, int sms, struct study_waves *w)
{
    w->waves = 0;
    w->full = 0;
    w->last_blocks = 0;
    w->partial = 0;
    w->last_fill = 0;
    if (blocks_per_sm < 1 || sms < 1)
        return -1;
    uint64_t slots = (uint64_t)blocks_per_sm * (uint64_t)sms;
    w->waves = (double)grid / (double)slots;
    w->full = grid / slots;
    w->last_blocks = grid % slots;
    w->partial = w->last_blocks != 0;
    w->last_fill = w->partial ? (double)w->last_blocks / (double)slots : 1.0;
    return 0;
}
