/* fuzz_smev.c — fuzz target for the tracer event-file reader
 * (sim/convert/conv_smev.c, docs/tracing.md "The event file").
 *
 * The input is opened in memory with conv_smev_open_mem().  After a
 * successful open every record is decoded again and must keep the reader's
 * promises: a known kind, a non-zero mask, a 16-aligned pc, a warp inside
 * the launch and the sampled blocks, popcount(mask) addresses for memory
 * kinds (none otherwise), all inside the file; every address is read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "convert/conv_smev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct conv_smev e;
    char err[TRACE_ERR_MAX];
    if (conv_smev_open_mem("fuzz.smev", data, size, &e, err)) {
        fz_check_error(err);
        return 0;
    }
    uint64_t lo = (uint64_t)e.sampled_first * e.warps_per_block;
    uint64_t hi = lo + (uint64_t)e.sampled_count * e.warps_per_block;
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < e.records; i++) {
        struct conv_smev_rec r;
        conv_smev_get(&e, i, &r);
        if (!strcmp(conv_smev_kind_name(r.kind), "?") || !r.mask || r.pc % 16 || r.warp < lo ||
            r.warp >= hi)
            abort();
        if (r.naddr != (conv_smev_is_mem(r.kind) ? (uint32_t)__builtin_popcount(r.mask) : 0u))
            abort();
        if (r.byte + CONV_SMEV_REC_HDR + 8ull * r.naddr > e.len)
            abort();
        for (uint32_t k = 0; k < r.naddr; k++)
            sink += conv_smev_addr(&r, k);
    }
    (void)sink;
    conv_smev_close(&e);
    return 0;
}
