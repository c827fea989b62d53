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
    if (r < 255) /* R0..R254: the common case, one compare */
        return 1;
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
    if (in->sealed) { /* the reader computed the masks once (tr_inst_seal) */
        g->dmask = in->dmask;
        g->smask = in->smask;
    } else {
        uint64_t dm = 0, sm = 0;
        for (int d = 0; d < in->ndst; d++)
            dm |= reg_bit(in->dst[d]);
        for (int s = 0; s < in->nsrc; s++)
            sm |= reg_bit(in->src[s]);
        g->dmask = dm;
        g->smask = sm;
    }
    g->need = in->ndst;
    if (in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC)
        g->need += in->nsrc; /* memory instructions also hold their sources */
}

/* The binding entry is the one that clears last: while any of the matching
 * entries is pending the warp cannot issue, and reporting the latest one's
 * reason keeps the state constant over the whole stall (so skipping to
 * `until` is exact).  Ties prefer the longer kind.
 *
 * (sb_check in eng_internal.h skips the scan when no register can match
 * and the table cannot be full.) */
int sb_check_scan(struct eng_sb *sb, const struct tr_inst *in, const struct sb_sig *g,
                  uint64_t t, uint64_t *until, int *state)
{
    uint64_t best = 0;
    int bkind = -1;
    int live = 0;
    uint64_t first_free = ENG_NEVER;
    int first_kind = 0;
    uint64_t lmask = 0;
    uint64_t gm = g->dmask | g->smask;
    /* The table can only be full when n + need exceeds it (live <= n). */
    int may_fill = sb->n + g->need > SB_MAX;
    for (int i = 0; i < sb->n; i++) {
        uint64_t rdy = sb->ready[i];
        if (rdy <= t)
            continue;
        uint16_t reg = sb->reg[i];
        uint64_t bit = reg_bit(reg);
        lmask |= bit;
        if (may_fill) {
            live++;
            if (rdy < first_free) {
                first_free = rdy;
                first_kind = sb->kind[i] & 3;
            }
        }
        if (!(bit & gm))
            continue;
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
        if (rdy > best || (rdy == best && k > bkind)) {
            best = rdy;
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
    if (may_fill && live + g->need > SB_MAX) {
        *until = first_free;
        *state = kind_state[first_kind];
        return 1;
    }
    return 0;
}

/* Record reg in slot e (a free slot, or -1: append; full: dropped, which
 * cannot happen because sb_check made room before the issue). */
static void sb_put(struct eng_sb *sb, int e, uint16_t reg, uint64_t ready, int kind)
{
    if (e < 0) {
        if (sb->n >= SB_MAX)
            return;
        e = sb->n++;
    }
    sb->ready[e] = ready;
    sb->mask |= reg_bit(reg);
    sb->reg[e] = reg;
    sb->kind[e] = (uint8_t)kind;
}

/* Trim expired entries at the end so scans stay short. */
static void sb_trim(struct eng_sb *sb, uint64_t t)
{
    while (sb->n > 0 && sb->ready[sb->n - 1] <= t)
        sb->n--;
}

/* One register (sb_add_n with nreg == 1, its common case): same register
 * and kind class keep the later time, else the first expired slot, else
 * append. */
static void sb_add(struct eng_sb *sb, uint16_t reg, uint64_t ready, int kind, uint64_t t)
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
    sb_put(sb, empty, reg, ready, kind);
    sb_trim(sb, t);
}

/* sb_add of regs[0..nreg) in turn, in one pass over the table.  The result
 * is exactly that of the calls one by one: each register first looks for a
 * live entry of its own (same register, same READ class) and keeps the later
 * time, else takes the lowest expired slot left, else appends; trailing
 * expired entries are trimmed at the end (one call's trim only ever drops
 * slots that a later append refills at the same index). */
void sb_add_n(struct eng_sb *sb, const uint16_t *regs, int nreg, uint64_t ready, int kind,
              uint64_t t)
{
    if (ready <= t || nreg <= 0)
        return;
    if (nreg == 1) {
        sb_add(sb, regs[0], ready, kind, t);
        return;
    }
    int rd = kind & SBK_READ;
    int found[TR_MAX_SRC > TR_MAX_DST ? TR_MAX_SRC : TR_MAX_DST] = {0};
    int freeslot[TR_MAX_SRC > TR_MAX_DST ? TR_MAX_SRC : TR_MAX_DST];
    int nf = 0;
    uint64_t bits = 0;
    for (int k = 0; k < nreg; k++)
        bits |= reg_bit(regs[k]);
    for (int i = 0; i < sb->n; i++) {
        if (sb->ready[i] <= t) {
            if (nf < nreg)
                freeslot[nf++] = i;
            continue;
        }
        if (!(reg_bit(sb->reg[i]) & bits) || (sb->kind[i] & SBK_READ) != rd)
            continue;
        for (int k = 0; k < nreg; k++)
            if (sb->reg[i] == regs[k] && !found[k]) {
                found[k] = 1;
                if (ready > sb->ready[i]) {
                    sb->ready[i] = ready;
                    sb->kind[i] = (uint8_t)kind;
                }
            }
    }
    int fi = 0;
    for (int k = 0; k < nreg; k++) {
        uint16_t reg = regs[k];
        if (found[k] || !reg_real(reg))
            continue;
        int dup = 0; /* the same register earlier in this batch: already there */
        for (int j = 0; j < k && !dup; j++)
            dup = regs[j] == reg;
        if (dup)
            continue;
        sb_put(sb, fi < nf ? freeslot[fi++] : -1, reg, ready, kind);
    }
    sb_trim(sb, t);
}
