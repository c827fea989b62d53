/* eng_mem.c — memory instructions: coalescing into sectors, where each
 * sector hits (L1, L2, DRAM), and the bandwidth servers that turn traffic
 * into loaded latency.  docs/model.md ("Memory") gives the reasoning.
 *
 * Servers: the per-SM L1/TEX stage, the GPU-wide L2 and DRAM each serve
 * bytes at a fixed rate.  A request of B bytes arriving at time x starts at
 * max(x, free), the server is then busy for B / rate cycles, and the data is
 * usable the configured unloaded latency after the server finishes.  The
 * shared L2 and DRAM servers see requests in global (cycle, SM, issue) order,
 * so queueing delay is causal: at issue in the reference loop, at the epoch
 * end in the epoch scheme (eng_par.c, mem_resolve), with the same result.
 *
 * Hit draws: where a footprint exceeds a capacity for a random pattern a
 * sector hits with probability capacity / footprint.  The number of hits
 * among an instruction's sectors is one binomial draw per level, from a hash
 * of (seed, warp, dynamic instruction, level), not a stateful RNG, so it does
 * not depend on the order the engine happens to visit warps (the skipping
 * and no-skip runs draw the same numbers).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/eng_internal.h"

void mem_init(struct eng_run *r)
{
    const struct arch *a = r->a;
    r->mem.l2_free = 0.0;
    r->mem.dram_free = 0.0;
    r->mem.l1_rate = a->l1_bytes_per_clk;
    r->mem.l2_rate = a->l2_bytes_per_clk;
    r->mem.dram_rate = arch_dram_bytes_per_clk(a);
    /* The unified L1/shared array: what the carveout leaves is L1. */
    double l1 = (double)a->l1_smem_kb * 1024.0 - (double)r->st->occ.smem_config_bytes;
    r->mem.l1_cap = l1 > 0 ? l1 : 0;
    r->mem.l2_cap = (double)a->l2_size_kb * 1024.0;
    r->mem.seed = r->o->seed;
}

int mem_queue_of(const struct tr_inst *in)
{
    if (in->kind != TR_K_LOAD && in->kind != TR_K_STORE && in->kind != TR_K_ATOMIC)
        return 0;
    if (in->space == TR_SP_SHARED || in->space == TR_SP_CONST)
        return 2;
    return 1;
}

int queue_busy(const struct eng_queue *q, uint64_t t, uint64_t *until)
{
    uint64_t first = ENG_NEVER;
    for (int i = 0; i < q->cap; i++) {
        if (q->free_at[i] <= t)
            return 0; /* a free slot: the common case, found without a full scan */
        if (q->free_at[i] < first)
            first = q->free_at[i];
    }
    *until = first;
    return 1;
}

void queue_push(struct eng_queue *q, uint64_t t, uint64_t free_at)
{
    for (int i = 0; i < q->cap; i++)
        if (q->free_at[i] <= t) {
            q->free_at[i] = free_at;
            return;
        }
}

/* x / b, by a shift when b is a power of two (sector and line sizes are):
 * the same value, without a 64-bit division per lane. */
static uint64_t div_by(uint64_t x, uint64_t b)
{
    return (b & (b - 1)) == 0 ? x >> __builtin_ctzll(b) : x / b;
}

static int ascending(const uint64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        if (v[i - 1] > v[i])
            return 0;
    return 1;
}

/* How many distinct values v[i] / b take (n <= 128); sorted: v is in
 * ascending order.  Lanes' addresses mostly come in order (coalesced,
 * strided): then neighbours are compared.  Otherwise (random gathers) a set
 * of 256 slots, open addressing.  (An insertion sort and a second list for
 * the lines took a sixth of the samples of `smsim bench --only accelsim`;
 * docs/performance.md, "Sixth round".) */
static int distinct(const uint64_t *v, int n, uint64_t b, int sorted)
{
    if (sorted) {
        int u = n > 0;
        uint64_t prev = n > 0 ? div_by(v[0], b) : 0;
        for (int i = 1; i < n; i++) {
            uint64_t x = div_by(v[i], b);
            u += x != prev;
            prev = x;
        }
        return u;
    }
    uint64_t key[256], used[4] = {0, 0, 0, 0};
    int u = 0;
    for (int i = 0; i < n; i++) {
        uint64_t x = div_by(v[i], b);
        unsigned h = (unsigned)((x * 0x9E3779B97F4A7C15ull) >> 56); /* Fibonacci hashing */
        while (used[h >> 6] >> (h & 63) & 1) {
            if (key[h] == x)
                break;
            h = (h + 1) & 255;
        }
        if (!(used[h >> 6] >> (h & 63) & 1)) {
            used[h >> 6] |= UINT64_C(1) << (h & 63);
            key[h] = x;
            u++;
        }
    }
    return u;
}

/* Sectors of an access with per-lane addresses (up to 32 lanes, each
 * `w` bytes).  With lines != NULL also the lines (memory.line_bytes) it
 * touches, counted from the same sectors (line = sector / sectors per
 * line: a lane's bytes cover a contiguous run of sectors, whose lines are
 * the lines of its bytes), or -1 when that cannot be done: sectors cut at
 * 128, or a line size that is not a multiple of the sector size
 * (arch_check rejects it; a hand-filled arch may not).  One list instead
 * of a second one built for the lines. */
static int addr_sectors(const struct arch *a, const struct tr_dyn *d, uint64_t w, int *lines)
{
    uint64_t S = (uint64_t)a->sector_bytes;
    uint64_t sec[128];
    int n = 0, cut = 0;
    for (uint32_t i = 0; i < d->naddr && i < 32; i++) {
        uint64_t lo = div_by(d->addr[i], S), hi = div_by(d->addr[i] + w - 1, S);
        uint64_t s = lo;
        for (; s <= hi && n < 128; s++)
            sec[n++] = s;
        cut |= s <= hi;
    }
    int sorted = ascending(sec, n);
    if (lines) {
        uint64_t L = (uint64_t)a->line_bytes;
        *lines = !cut && L >= S && L % S == 0 ? distinct(sec, n, L / S, sorted) : -1;
    }
    return distinct(sec, n, 1, sorted);
}

int mem_sectors(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
                int *lines)
{
    int lanes = eng_pop32(d->active_mask);
    if (lanes == 0)
        return 0;
    uint64_t S = (uint64_t)a->sector_bytes;
    uint64_t w = in->width ? in->width : 4;
    uint64_t per_lane = (w + S - 1) / S;
    switch (in->pattern) {
    case TR_PAT_STRIDED:
        if (in->stride >= S)
            return (int)((uint64_t)lanes * per_lane);
        return (int)(((uint64_t)(lanes - 1) * in->stride + w + S - 1) / S);
    case TR_PAT_RANDOM:
        return (int)((uint64_t)lanes * per_lane);
    case TR_PAT_BROADCAST:
        return (int)per_lane;
    case TR_PAT_ADDRESSES:
        if (d->naddr > 0 && d->addr)
            return addr_sectors(a, d, w, lines);
        /* no addresses given: assume a coalesced access */
        /* fall through */
    case TR_PAT_COALESCED:
    default:
        return (int)(((uint64_t)lanes * w + S - 1) / S);
    }
}

/* Lines (memory.line_bytes) one dynamic instruction touches beyond the
 * fewest its sectors need: 0 for coalesced, broadcast and dense strided
 * accesses, up to lanes - ceil(sectors / sectors_per_line) for a fully
 * divergent one (each lane its own line).  The hardware pays per line, not
 * per byte, in its tag stages and per request at L2 and DRAM
 * (docs/calibration.md, the 32-lane chase); the configured
 * memory.*_cycles_per_line charge these excess lines.  addr_lines: the
 * lines of an access with addresses if addr_sectors() counted them, else -1
 * (counted here). */
static int mem_excess_lines(const struct arch *a, const struct tr_inst *in,
                            const struct tr_dyn *d, int nsec, int addr_lines)
{
    int lanes = eng_pop32(d->active_mask);
    uint64_t L = (uint64_t)a->line_bytes;
    if (lanes == 0 || nsec == 0 || L < (uint64_t)a->sector_bytes)
        return 0;
    uint64_t w = in->width ? in->width : 4;
    uint64_t per_lane = (w + L - 1) / L;
    uint64_t lines;
    switch (in->pattern) {
    case TR_PAT_STRIDED:
        if (in->stride >= L)
            lines = (uint64_t)lanes * per_lane;
        else
            lines = ((uint64_t)(lanes - 1) * in->stride + w + L - 1) / L;
        break;
    case TR_PAT_RANDOM:
        lines = (uint64_t)lanes * per_lane;
        break;
    case TR_PAT_ADDRESSES:
        if (addr_lines >= 0) { /* counted with the sectors (addr_sectors) */
            lines = (uint64_t)addr_lines;
            break;
        }
        if (d->naddr > 0 && d->addr) {
            uint64_t v[128];
            int n = 0;
            for (uint32_t i = 0; i < d->naddr && i < 32; i++) {
                uint64_t lo = d->addr[i] / L, hi = (d->addr[i] + w - 1) / L;
                for (uint64_t x = lo; x <= hi && n < 128; x++)
                    v[n++] = x;
            }
            lines = (uint64_t)distinct(v, n, 1, ascending(v, n));
            break;
        }
        /* fall through */
    default: /* coalesced, broadcast: as few lines as the sectors need */
        return 0;
    }
    uint64_t spl = L / (uint64_t)a->sector_bytes;
    uint64_t need = ((uint64_t)nsec + spl - 1) / spl;
    return lines > need ? (int)(lines - need) : 0;
}

int mem_shape(const struct arch *a, const struct tr_inst *in, const struct tr_dyn *d,
              int *excess)
{
    int addr_lines = -1;
    int nsec = mem_sectors(a, in, d, excess ? &addr_lines : NULL);
    if (excess)
        *excess = mem_excess_lines(a, in, d, nsec, addr_lines);
    return nsec;
}

/* Probability that a sector of this instruction hits a cache of capacity c.
 * footprint <= capacity: the stream fits and is reused -> hit.  Larger:
 * random reuse hits with probability c / footprint; a streaming pattern
 * touches each sector once -> miss.  -1: footprint unknown (0). */
static double hit_p(const struct tr_inst *in, double c)
{
    double f = (double)in->footprint;
    if (in->footprint == 0)
        return -1.0;
    if (f <= c)
        return 1.0;
    if (in->pattern == TR_PAT_RANDOM || in->pattern == TR_PAT_ADDRESSES)
        return c / f;
    return 0.0;
}

static uint64_t mix64(uint64_t x)
{
    /* splitmix64 finaliser (Steele, Lea, Flood 2014) */
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* x^n by squaring: IEEE multiplications only, so every platform gets the
 * same bits (pow() need not). */
static double ipow(double x, int n)
{
    double r = 1.0;
    while (n > 0) {
        if (n & 1)
            r *= x;
        x *= x;
        n >>= 1;
    }
    return r;
}

/* Of n sectors, how many hit, each independently with probability p: one
 * draw from Binomial(n, p) by inverting its distribution function with one
 * uniform number (the same distribution as n separate draws, at the cost of
 * about n * min(p, 1 - p) steps instead of n hashes).  The uniform is a hash
 * of key, so the count is a pure function of (key, n, p). */
static int draw_hits(int n, double p, uint64_t key)
{
    if (p >= 1.0)
        return n;
    if (p <= 0.0 || n <= 0)
        return 0;
    double u = (double)(mix64(key) >> 11) * (1.0 / 9007199254740992.0);
    /* Count the rarer outcome (q <= 1/2) so P(0) = (1 - q)^n >= 2^-n stays
     * a normal number for any n a warp can touch (mem_sectors <= 2^16 but
     * (1/2)^n underflows past n = 1022: then draw sector by sector). */
    int flip = p > 0.5;
    double q = flip ? 1.0 - p : p;
    double pmf = ipow(1.0 - q, n);
    int k = 0;
    if (pmf > 1e-300) {
        double ratio = q / (1.0 - q);
        double cdf = pmf;
        while (u >= cdf && k < n) {
            pmf *= ratio * (double)(n - k) / (double)(k + 1);
            k++;
            cdf += pmf;
        }
    } else {
        for (int j = 0; j < n; j++) {
            uint64_t v = mix64(key + (uint64_t)(j + 1) * 0xD1B54A32D192ED03ull);
            k += (double)(v >> 11) * (1.0 / 9007199254740992.0) < q;
        }
    }
    return flip ? n - k : k;
}

static double dmax(double x, double y)
{
    return x > y ? x : y;
}

static uint64_t cycle_ceil(double x, uint64_t t)
{
    double c = ceil(x);
    uint64_t u = c <= 0 ? 0 : (uint64_t)c;
    return u > t ? u : t + 1;
}

/* The L2/DRAM servers for sectors that left L1 at t1 (eng_req says what
 * each field is).  The serial engine runs this at issue; the parallel run at
 * the epoch end, in the same global order, with the same inputs, so the
 * floating-point steps and hence the answers are identical. */
static uint64_t l2_dram(const struct arch *a, struct eng_mem *mem, uint64_t t, double t1,
                        double rdy, int m, int h2, int m3, int wb, int is_store, int excess)
{
    double S = (double)a->sector_bytes;
    double s2 = dmax(t1, mem->l2_free);
    mem->l2_free = s2 + m * S / mem->l2_rate;
    double t2 = mem->l2_free;
    /* per excess line: latency only, the servers stay byte-rate (below) */
    if (is_store || h2)
        rdy = dmax(rdy, t2 + a->l2_latency + (excess ? excess * a->l2_cycles_per_line : 0.0));
    if (m3 + wb > 0) {
        double s3 = dmax(t2, mem->dram_free);
        mem->dram_free = s3 + (m3 + wb) * S / mem->dram_rate;
        if (m3)
            rdy = dmax(rdy, mem->dram_free + a->dram_latency +
                                (excess ? excess * a->dram_cycles_per_line : 0.0));
    }
    return cycle_ceil(rdy, t);
}

uint64_t mem_resolve(struct eng_run *r, const struct eng_srv *s)
{
    return l2_dram(r->a, &r->mem, s->t, s->t1, s->rdy, s->m, s->h2, s->m3, s->wb, s->is_store,
                   s->excess);
}

/* Room for one more deferred request of sm; NULL when out of memory. */
static struct eng_req *req_push(struct eng_sm *sm)
{
    if (sm->nreq == sm->capreq) {
        int cap = sm->capreq ? 2 * sm->capreq : 64;
        /* line-aligned like all per-SM data (eng_sm), so no other thread's
         * SM shares a line with the outbox */
        struct eng_req *n = eng_line_calloc((size_t)cap, sizeof *n);
        if (!n)
            return NULL;
        if (sm->nreq)
            memcpy(n, sm->req, (size_t)sm->nreq * sizeof *n);
        free(sm->req);
        sm->req = n;
        sm->capreq = cap;
    }
    return &sm->req[sm->nreq++];
}

void mem_issue(struct eng_run *r, struct eng_sm *sm, struct eng_smsp *sp,
               struct eng_warp *w, int slot, uint64_t t)
{
    const struct arch *a = r->a;
    const struct tr_inst *in = w->ni;
    const struct tr_dyn *d = &w->dyn;
    struct eng_acc *acc = &sm->acc;
    int is_store = in->kind == TR_K_STORE;
    int is_atom = in->kind == TR_K_ATOMIC;
    uint64_t ready, sent;
    int kind;

    if (w->queue == 2) {
        /* Shared memory (and constant loads) through the MIO queue to the
         * SM's shared-memory unit, one wavefront per cycle: a k-way bank
         * conflict serialises k wavefronts, wide accesses need one
         * wavefront per banks*4 bytes. */
        int lanes = eng_pop32(d->active_mask);
        if (lanes == 0) {
            ready = sent = t + 1;
        } else {
            uint64_t wf = in->conflict > 1 ? in->conflict : 1;
            if (in->space == TR_SP_SHARED) {
                uint64_t row = (uint64_t)a->smem_banks * 4;
                uint64_t data = ((uint64_t)lanes * (in->width ? in->width : 4) + row - 1) / row;
                if (data > wf)
                    wf = data;
            }
            uint64_t start = t > sm->smem_free ? t : sm->smem_free;
            sm->smem_free = start + wf;
            sent = start + wf;
            int lat = in->space == TR_SP_SHARED ? a->smem_latency : a->l1_latency;
            ready = start + wf - 1 + (uint64_t)(lat > 0 ? lat : 0);
            if (ready <= t)
                ready = t + 1;
        }
        queue_push(&sp->mio, t, sent);
        kind = SBK_SHORT;
    } else {
        /* the sectors now; the excess lines (mem_shape) where they are
         * charged, below, and only counted when a per-line cost is set */
        int per_line = a->l1_cycles_per_line > 0 || a->l2_cycles_per_line > 0 ||
                       a->dram_cycles_per_line > 0;
        int addr_lines = -1;
        int nsec = mem_sectors(a, in, d, per_line ? &addr_lines : NULL);
        if (nsec == 0) {
            ready = sent = t + 1;
        } else {
            double S = (double)a->sector_bytes;
            uint64_t wuid = (uint64_t)w->block * (uint64_t)r->wpb + w->wib;
            uint64_t key = mix64(r->mem.seed ^ mix64(wuid * 0x100000001B3ull + w->cur.seq));
            /* L1/TEX stage: every sector passes the tag stage. */
            double s1 = dmax((double)t, sm->l1_free);
            sm->l1_free = s1 + nsec * S / r->mem.l1_rate;
            double t1 = sm->l1_free;
            sent = cycle_ceil(t1, t);
            /* Loads may hit L1; stores write through and atomics run at L2. */
            int h1 = 0;
            if (!is_store && !is_atom) {
                double p1 = hit_p(in, r->mem.l1_cap);
                h1 = draw_hits(nsec, p1 < 0 ? 0.0 : p1, key ^ 1);
                acc->l1_sectors += (uint64_t)nsec;
                acc->l1_sector_hits += (uint64_t)h1;
            }
            /* A divergent access pays per excess line on top of its bytes:
             * a latency, not server time, so coalesced streams (no excess
             * lines) keep exactly the byte rates. */
            int excess = per_line ? mem_excess_lines(a, in, d, nsec, addr_lines) : 0;
            double rdy = h1 ? t1 + a->l1_latency +
                                  (excess ? excess * a->l1_cycles_per_line : 0.0)
                            : 0.0;
            int m = nsec - h1;
            if (m > 0) {
                double p2 = hit_p(in, r->mem.l2_cap);
                if (p2 < 0)
                    p2 = 1.0; /* unknown footprint: assume L2-resident */
                int h2, m3, wb = 0;
                if (is_store) {
                    /* write-back L2: a store allocates and "hits"; the part
                     * that does not fit is written back to DRAM. */
                    h2 = m;
                    m3 = 0;
                    wb = m - draw_hits(m, p2, key ^ 2);
                } else {
                    h2 = draw_hits(m, p2, key ^ 2);
                    m3 = m - h2;
                }
                acc->l2_sectors += (uint64_t)m;
                acc->l2_sector_hits += (uint64_t)h2;
                acc->l2_bytes += (uint64_t)m * (uint64_t)a->sector_bytes;
                acc->dram_bytes += (uint64_t)(m3 + wb) * (uint64_t)a->sector_bytes;
                struct eng_req *q = r->deferred ? req_push(sm) : NULL;
                if (q) {
                    /* The answer is at least min(l2, dram latency) away,
                     * past the epoch: a placeholder until the epoch end. */
                    q->s.t = t;
                    q->s.t1 = t1;
                    q->s.rdy = rdy;
                    q->s.m = m;
                    q->s.h2 = h2;
                    q->s.m3 = m3;
                    q->s.wb = wb;
                    q->s.excess = excess;
                    q->s.is_store = is_store;
                    q->slot = slot;
                    q->is_atom = (uint8_t)is_atom;
                    q->ph = ENG_PEND + (uint64_t)sm->nreq;
                    q->ready = 0;
                    w->npend++;
                    ready = q->ph;
                } else if (r->deferred) {
                    /* out of memory: the run fails at the epoch end; leave
                     * the shared servers to the serial phase */
                    sm_error(r, (int)(sm - r->sm), t, "out of memory");
                    ready = cycle_ceil(rdy, t);
                } else {
                    ready = l2_dram(a, &r->mem, t, t1, rdy, m, h2, m3, wb, is_store, excess);
                }
            } else {
                ready = cycle_ceil(rdy, t);
            }
        }
        queue_push(&sp->lg, t, sent);
        kind = SBK_LONG;
    }

    if (in->dep != TR_DEP_PIPE)
        kind = dep_kind(in->dep); /* the opcode knows better than the space */
    if (!is_store)
        sb_add_dst(&w->sb, in, ready, kind, t);
    /* Sources are read when the request leaves its queue (WAR hold). */
    sb_add_src(&w->sb, in, sent, kind | SBK_READ, t);
    if (ready >= ENG_PEND)
        return; /* mem_done and store_done take the answer in sm_settle */
    if (ready > w->mem_done)
        w->mem_done = ready;
    if ((is_store || is_atom) && ready > w->store_done)
        w->store_done = ready;
}
