/* eng_sb.c — per-warp register scoreboard: which registers have a result
 * (or a pending read by an in-flight memory instruction) outstanding, and
 * until when.
 *
 * The table is a fixed array searched linearly: a warp rarely has more than
 * a handful of writes in flight, so a scan of a few cache lines beats any
 * per-register array (336 registers x 8 bytes per warp would be 2.7 KB x
 * 8448 warps on a full H100).  Nothing is allocated per instruction.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine/eng_internal.h"

void sb_reset(struct eng_sb *sb)
{
    sb->n = 0;
    sb->mask = 0;
}

/* RZ, PT, URZ and "none" never create a dependency (trace.h). */
static int reg_real(uint16_t r)
{
    return r != 255 && r != TR_REG_P + 7 && r != TR_REG_UR + 63 && r != TR_REG_UP + 7 &&
           r < TR_NREGS;
}

static const int kind_state[3] = {WS_WAIT, WS_SHORT_SCOREBOARD, WS_LONG_SCOREBOARD};

static uint64_t reg_bit(uint16_t r)
{
    return UINT64_C(1) << (r & 63);
}

/* The masks may include RZ/PT/none (a false "maybe": sb_check then scans
 * and compares exactly); leaving them in keeps this branch-free. */
void sb_sig_of(const struct tr_inst *in, struct sb_sig *g)
{
    uint64_t dm = 0, sm = 0;
    for (int d = 0; d < in->ndst; d++)
        dm |= reg_bit(in->dst[d]);
    for (int s = 0; s < in->nsrc; s++)
        sm |= reg_bit(in->src[s]);
    g->dmask = dm;
    g->smask = sm;
    g->need = in->ndst;
    if (in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC)
        g->need += in->nsrc; /* memory instructions also hold their sources */
}

/* The binding entry is the one that clears last: while any of the matching
 * entries is pending the warp cannot issue, and reporting the latest one's
 * reason keeps the state constant over the whole stall (so skipping to
 * `until` is exact).  Ties prefer the longer kind.
 *
 * An instruction none of whose registers has its bit in sb->mask matches
 * no entry, and with n + need
 * entries at most the table cannot be full: no scan needed. */
int sb_check(struct eng_sb *sb, const struct tr_inst *in, const struct sb_sig *g,
             uint64_t t, uint64_t *until, int *state)
{
    if (!(sb->mask & (g->dmask | g->smask)) && sb->n + g->need <= SB_MAX)
        return 0;
    uint64_t best = 0;
    int bkind = -1;
    int live = 0;
    uint64_t first_free = ENG_NEVER;
    int first_kind = 0;
    uint64_t lmask = 0;
    for (int i = 0; i < sb->n; i++) {
        if (sb->ready[i] <= t)
            continue;
        live++;
        if (sb->ready[i] < first_free) {
            first_free = sb->ready[i];
            first_kind = sb->kind[i] & 3;
        }
        uint16_t reg = sb->reg[i];
        uint64_t bit = reg_bit(reg);
        lmask |= bit;
        int hit = 0;
        /* Destinations: WAW against pending writes, WAR against pending reads. */
        if (bit & g->dmask)
            for (int d = 0; d < in->ndst && !hit; d++)
                hit = in->dst[d] == reg;
        /* Sources: RAW against pending writes only. */
        if (!hit && (bit & g->smask) && !(sb->kind[i] & SBK_READ))
            for (int s = 0; s < in->nsrc && !hit; s++)
                hit = in->src[s] == reg;
        if (!hit)
            continue;
        int k = sb->kind[i] & 3;
        if (sb->ready[i] > best || (sb->ready[i] == best && k > bkind)) {
            best = sb->ready[i];
            bkind = k;
        }
    }
    sb->mask = lmask; /* entries expired at t stay expired */
    if (bkind >= 0) {
        *until = best;
        *state = kind_state[bkind];
        return 1;
    }
    /* A full table: the instruction could not record its own results.  The
     * warp waits for the oldest entry, reported as that entry's reason. */
    if (live + g->need > SB_MAX) {
        *until = first_free;
        *state = kind_state[first_kind];
        return 1;
    }
    return 0;
}

void sb_add(struct eng_sb *sb, uint16_t reg, uint64_t ready, int kind, uint64_t t)
{
    if (!reg_real(reg) || ready <= t)
        return;
    /* Same register and kind class: keep the later time. */
    int empty = -1;
    for (int i = 0; i < sb->n; i++) {
        if (sb->ready[i] <= t) {
            if (empty < 0)
                empty = i;
            continue;
        }
        if (sb->reg[i] == reg && (sb->kind[i] & SBK_READ) == (kind & SBK_READ)) {
            if (ready > sb->ready[i]) {
                sb->ready[i] = ready;
                sb->kind[i] = (uint8_t)kind;
            }
            return;
        }
    }
    if (empty < 0) {
        if (sb->n >= SB_MAX)
            return; /* sb_check made room before issue; cannot happen */
        empty = sb->n++;
    }
    sb->ready[empty] = ready;
    sb->mask |= reg_bit(reg);
    sb->reg[empty] = reg;
    sb->kind[empty] = (uint8_t)kind;
    /* Trim expired entries at the end so scans stay short. */
    while (sb->n > 0 && sb->ready[sb->n - 1] <= t)
        sb->n--;
}
