/* trace.c — the format-independent helpers every reader and the engine use:
 * sealing an instruction's registers, launch arithmetic, counting a warp's
 * instructions, the lane-address rule of native traces.  It calls no reader, so the readers can call it while
 * trace_open.c (the dispatcher) calls the readers: one way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "trace/trace.h"

/* Distinct dependency-creating registers of r[0..n) into out, in order;
 * *mask gets bit (id % 64) of each.  Returns how many. */
static int real_regs(const uint16_t *r, int n, uint16_t *out, uint64_t *mask)
{
    int k = 0;
    *mask = 0;
    for (int i = 0; i < n; i++) {
        int dup = !tr_reg_real(r[i]);
        for (int j = 0; j < k && !dup; j++)
            dup = out[j] == r[i];
        if (!dup) {
            out[k++] = r[i];
            *mask |= UINT64_C(1) << (r[i] & 63);
        }
    }
    return k;
}

void tr_inst_seal(struct tr_inst *in)
{
    in->nrd = (uint8_t)real_regs(in->dst, in->ndst < TR_MAX_DST ? in->ndst : TR_MAX_DST,
                                 in->rd, &in->dmask);
    in->nrs = (uint8_t)real_regs(in->src, in->nsrc < TR_MAX_SRC ? in->nsrc : TR_MAX_SRC,
                                 in->rs, &in->smask);
    in->sealed = 1;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a bijection whose
 * output bits each depend on every input bit. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* floor(a * b / 2^64): maps a uniform 64-bit a onto 0..b-1 without a
 * division and without the bias of a modulo.  One instruction where the
 * compiler has 128-bit integers; the same value from four 32-bit products
 * elsewhere. */
static uint64_t mul_hi(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* Lane i's uniform 64-bit number is lane_mix(key + (i + 1) * LANE_STEP):
 * the instance's key is already a full splitmix64 hash (tr_addr_key), so a
 * Weyl step per lane and one multiply-xorshift round decorrelate the lanes,
 * at a third of a splitmix64 per lane (a random access draws 32). */
#define LANE_STEP 0x9E3779B97F4A7C15ull
static uint64_t lane_mix(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    return x ^ (x >> 32);
}

uint64_t tr_addr_key(uint32_t block, uint32_t warp, uint64_t seq)
{
    return mix64(mix64(((uint64_t)block << 32) | warp) ^ seq);
}

uint32_t tr_lane_addrs(const struct tr_inst *in, uint64_t a0, uint64_t range, uint64_t key,
                       uint32_t mask, uint64_t out[32])
{
    uint64_t w = in->width ? in->width : 4;
    uint64_t step;
    switch (in->pattern) {
    case TR_PAT_COALESCED: step = w; break;
    case TR_PAT_STRIDED: step = in->stride; break;
    case TR_PAT_BROADCAST: step = 0; break;
    case TR_PAT_RANDOM: {
        uint64_t slots = range / w ? range / w : 1, x = key;
        uint32_t n = 0;
        if (slots <= UINT32_MAX) {
            /* u = a 32-bit half of a 64-bit draw, so one draw serves lanes
             * 2j and 2j+1 (half the hashing: random accesses were the
             * costliest fill); exact for power-of-two slot counts up to 2^32 */
            for (uint32_t lane = 0; lane < 32; lane += 2) {
                x += LANE_STEP; /* advanced for inactive lanes too: a lane's draw is its own */
                uint64_t h = lane_mix(x);
                if (mask >> lane & 1)
                    out[n++] = a0 + w * (((h & 0xffffffffu) * slots) >> 32);
                if (mask >> (lane + 1) & 1)
                    out[n++] = a0 + w * (((h >> 32) * slots) >> 32);
            }
            return n;
        }
        for (uint32_t lane = 0; lane < 32; lane++) {
            x += LANE_STEP;
            if (mask >> lane & 1)
                out[n++] = a0 + w * mul_hi(lane_mix(x), slots);
        }
        return n;
    }
    default: /* TR_PAT_ADDRESSES: the reader gives them; no rule */
        return 0;
    }
    if (mask == 0xffffffffu) { /* the common case: a loop the compiler unrolls */
        for (uint32_t i = 0; i < 32; i++)
            out[i] = a0 + i * step;
        return 32;
    }
    uint32_t n = 0;
    for (uint32_t m = mask; m; m &= m - 1)
        out[n++] = a0 + (uint64_t)__builtin_ctz(m) * step;
    return n;
}

uint32_t tr_warps_per_block(const struct tr_launch *l)
{
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    return (uint32_t)((threads + 31) / 32);
}

uint64_t tr_grid_blocks(const struct tr_launch *l)
{
    return (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
}

uint64_t tr_warp_insts(struct trace_kernel *k, uint32_t block, uint32_t warp)
{
    if ((uint64_t)block >= tr_grid_blocks(&k->launch) || warp >= tr_warps_per_block(&k->launch))
        return UINT64_MAX;
    if (k->ops->warp_count)
        return k->ops->warp_count(k, block, warp);
    struct tr_cursor c;
    if (k->ops->warp_begin(k, block, warp, &c))
        return UINT64_MAX;
    uint64_t n = 0;
    while (k->ops->warp_next(k, &c, NULL))
        n++;
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    return n;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

int tr_kernel_insts_total(struct trace_kernel *k, uint64_t limit, int exact, struct tr_total *t)
{
    uint64_t lim = limit ? limit : UINT64_MAX;
    uint64_t h = k->warp_insts_hint;
    if (h) {
        *t = (struct tr_total){ h, h == UINT64_MAX ? TR_TOTAL_ATLEAST : TR_TOTAL_EXACT };
        return limit && h > lim;
    }
    uint64_t blocks = tr_grid_blocks(&k->launch), wpb = tr_warps_per_block(&k->launch), warps;
    if (__builtin_mul_overflow(blocks, wpb, &warps)) {
        *t = (struct tr_total){ UINT64_MAX, TR_TOTAL_ATLEAST };
        return limit != 0;
    }
    *t = (struct tr_total){ warps, TR_TOTAL_ATLEAST };
    if (limit && warps > lim)
        return 1;
    /* a reader without a bound (Accel-Sim: a file that lists every
     * instruction, read to count them) is counted only when asked for */
    if (!k->ops->warp_count || (!exact && !k->ops->warp_bound))
        return 0;
    if (!exact) {
        uint64_t per = k->ops->warp_bound(k), ub;
        if (__builtin_mul_overflow(per, warps, &ub))
            ub = UINT64_MAX;
        if (ub <= lim && per != UINT64_MAX) {
            *t = (struct tr_total){ ub, TR_TOTAL_UPPER };
            return 0;
        }
    }
    uint64_t sum = 0;
    for (uint64_t b = 0; b < blocks; b++)
        for (uint64_t w = 0; w < wpb; w++) {
            sum = sat_add(sum, k->ops->warp_count(k, (uint32_t)b, (uint32_t)w));
            if (limit && sum > lim) {
                int last = b + 1 == blocks && w + 1 == wpb && sum != UINT64_MAX;
                *t = (struct tr_total){ sum, last ? TR_TOTAL_EXACT : TR_TOTAL_ATLEAST };
                return 1;
            }
        }
    *t = (struct tr_total){ sum, sum == UINT64_MAX ? TR_TOTAL_ATLEAST : TR_TOTAL_EXACT };
    return 0;
}
