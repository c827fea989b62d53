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
#include "engine/eng_sb.h"
#include "stats/stats.h"

void eng_sb_reset(struct eng_sb *sb)
{
    sb->n = 0;
    sb->mask = 0;
}

static const int kind_state[3] = {WS_WAIT, WS_SHORT_SCOREBOARD, WS_LONG_SCOREBOARD};

static uint64_t reg_bit(uint16_t r)
{
    return UINT64_C(1) << (r & 63);
}

/* The binding entry is the one that clears last: while any of the matching
 * entries is pending the warp cannot issue, and reporting the latest one's
 * reason keeps the state constant over the whole stall (so skipping to
 * `until` is exact).  Ties prefer the longer kind.
 *
 * Entries hold only real registers, one live entry per (register, read or
 * write), so matching against the instruction's distinct real registers
 * (tr_inst.rd, rs) finds exactly the entries its full operand lists would.
 * (eng_sb_check in eng_sb.h skips the scan when no register can match
 * and the table cannot be full.) */
int eng_sb_check_scan(struct eng_sb *sb, const struct tr_inst *in, uint64_t t, uint64_t *until,
                  int *state)
{
    int need = eng_sb_need(in);
    uint64_t best = 0;
    int bkind = -1;
    int live = 0;
    uint64_t first_free = UINT64_MAX;
    int first_kind = 0;
    uint64_t lmask = 0;
    uint64_t gm = in->dmask | in->smask;
    /* The table can only be full when n + need exceeds it (live <= n). */
    int may_fill = sb->n + need > ENG_SB_MAX;
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
        if (bit & in->dmask)
            for (int d = 0; d < in->nrd && !hit; d++)
                hit = in->rd[d] == reg;
        /* Sources: RAW against pending writes only. */
        if (!hit && (bit & in->smask) && !(sb->kind[i] & ENG_SBK_READ))
            for (int s = 0; s < in->nrs && !hit; s++)
                hit = in->rs[s] == reg;
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
    if (may_fill && live + need > ENG_SB_MAX) {
        *until = first_free;
        *state = kind_state[first_kind];
        return 1;
    }
    return 0;
}

/* Record reg in slot e (a free slot, or -1: append; full: dropped, which
 * cannot happen because eng_sb_check made room before the issue). */
static void sb_put(struct eng_sb *sb, int e, uint16_t reg, uint64_t ready, int kind)
{
    if (e < 0) {
        if (sb->n >= ENG_SB_MAX)
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

/* The table rule both adds follow, register by register in operand order:
 * a live entry of the same register and class keeps the later time, else the
 * register takes the lowest expired slot, else it is appended; trailing
 * expired entries are then trimmed.  Doing a whole operand list in one pass
 * gives the same table (a register's trim only ever drops slots that a later
 * append refills at the same index). */

void eng_sb_add_dst(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                uint64_t t)
{
    int nreg = in->nrd;
    if (ready <= t || nreg == 0)
        return;
    /* No destination has a live entry (eng_sb_add_dst's contract), so each takes
     * the next expired slot: the scan stops once all have one. */
    int k = 0;
    for (int i = 0; i < sb->n && k < nreg; i++)
        if (sb->ready[i] <= t)
            sb_put(sb, i, in->rd[k++], ready, kind);
    for (; k < nreg; k++)
        sb_put(sb, -1, in->rd[k], ready, kind);
    sb_trim(sb, t);
}

void eng_sb_add_src(struct eng_sb *sb, const struct tr_inst *in, uint64_t ready, int kind,
                uint64_t t)
{
    int nreg = in->nrs;
    if (ready <= t || nreg == 0)
        return;
    int rd = kind & ENG_SBK_READ;
    unsigned found = 0;
    int freeslot[TR_MAX_SRC];
    int nf = 0;
    for (int i = 0; i < sb->n; i++) {
        if (sb->ready[i] <= t) {
            if (nf < nreg)
                freeslot[nf++] = i;
            continue;
        }
        if (!(reg_bit(sb->reg[i]) & in->smask) || (sb->kind[i] & ENG_SBK_READ) != rd)
            continue;
        for (int k = 0; k < nreg; k++)
            if (sb->reg[i] == in->rs[k]) {
                found |= 1u << k;
                if (ready > sb->ready[i]) {
                    sb->ready[i] = ready;
                    sb->kind[i] = (uint8_t)kind;
                }
                break;
            }
    }
    int fi = 0;
    for (int k = 0; k < nreg; k++)
        if (!(found >> k & 1))
            sb_put(sb, fi < nf ? freeslot[fi++] : -1, in->rs[k], ready, kind);
    sb_trim(sb, t);
}

/* ---- dependence counters (eng_sb.h) ---- */

void eng_dc_add(struct eng_dc *dc, int sb, uint64_t rel, int kind, uint64_t t)
{
    uint64_t *r = dc->rel[sb];
    uint8_t *k = dc->kind[sb];
    int n = 0;
    for (int i = 0; i < dc->n[sb]; i++) /* drop the released ones, keep order */
        if (r[i] > t) {
            r[n] = r[i];
            k[n] = k[i];
            n++;
        }
    if (n == ENG_DC_MAX) {
        /* fold the earliest release into the new one (the later of the two) */
        int e = 0;
        for (int i = 1; i < n; i++)
            if (r[i] < r[e])
                e = i;
        if (r[e] > rel) {
            rel = r[e];
            kind = k[e];
        }
        r[e] = r[n - 1];
        k[e] = k[n - 1];
        n--;
    }
    r[n] = rel;
    k[n] = (uint8_t)kind;
    dc->n[sb] = (uint8_t)(n + 1);
}

int eng_dc_check(const struct eng_dc *dc, const struct tr_inst *in, uint64_t t,
                 uint64_t *until, int *state)
{
    uint64_t best = 0;
    int bkind = 0;
    unsigned wait = in->wait;
    /* Wait mask: every named counter at 0, i.e. its latest release passed.
     * The binding release is the latest (as in the register scoreboard:
     * one reason over the whole stall keeps skipping exact). */
    for (int sb = 0; wait; sb++, wait >>= 1) {
        if (!(wait & 1))
            continue;
        for (int i = 0; i < dc->n[sb]; i++) {
            uint64_t r = dc->rel[sb][i];
            if (r > t && (r > best || (r == best && dc->kind[sb][i] > bkind))) {
                best = r;
                bkind = dc->kind[sb][i];
            }
        }
    }
    if (in->depbar_sb < TR_NSB) {
        /* DEPBAR.LE SBx, N: wait until at most N releases lie after t, i.e.
         * for the (N+1)-th latest. */
        int sb = in->depbar_sb, n = dc->n[sb];
        uint64_t r[ENG_DC_MAX];
        uint8_t k[ENG_DC_MAX];
        int m = 0;
        for (int i = 0; i < n; i++)
            if (dc->rel[sb][i] > t) {
                r[m] = dc->rel[sb][i];
                k[m] = dc->kind[sb][i];
                m++;
            }
        if (m > in->depbar_n) {
            /* selection of the (N+1)-th largest by repeated maximum (m <= 8) */
            for (int j = 0; j <= in->depbar_n; j++) {
                int mx = j;
                for (int i = j + 1; i < m; i++)
                    if (r[i] > r[mx])
                        mx = i;
                uint64_t tr = r[j];
                uint8_t tk = k[j];
                r[j] = r[mx];
                k[j] = k[mx];
                r[mx] = tr;
                k[mx] = tk;
            }
            uint64_t need = r[in->depbar_n];
            if (need > best) {
                best = need;
                bkind = k[in->depbar_n];
            }
        }
    }
    if (!best)
        return 0;
    *until = best;
    *state = kind_state[bkind & 3];
    return 1;
}

void eng_dc_resolve(struct eng_dc *dc, uint64_t ph, uint64_t ready)
{
    for (int sb = 0; sb < TR_NSB; sb++)
        for (int i = 0; i < dc->n[sb]; i++)
            if (dc->rel[sb][i] == ph)
                dc->rel[sb][i] = ready;
}
