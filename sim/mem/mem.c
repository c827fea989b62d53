/* mem.c — the memory system's model today: coalescing into sectors,
 * capacity-rule hit draws, and bandwidth servers that turn traffic into
 * loaded latency (mem.h gives the two-stage contract; docs/model.md,
 * "Memory", the reasoning).
 *
 * Servers: the per-SM L1/TEX stage, the GPU-wide L2 and DRAM each serve
 * bytes at a fixed rate.  A request of B bytes arriving at time x starts at
 * max(x, free), the server is then busy for B / rate cycles, and the data is
 * usable the configured unloaded latency after the server finishes.
 *
 * Hit draws: where a footprint exceeds a capacity for a random pattern a
 * sector hits with probability capacity / footprint.  The number of hits
 * among an instruction's sectors is one binomial draw per level, from a hash
 * of (seed, warp, dynamic instruction, level), not a stateful RNG, so it does
 * not depend on the order the engine happens to visit warps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mem/mem.h"

void mem_cfg_init(struct mem_cfg *c, const struct arch *a, uint64_t smem_config_bytes,
                  uint64_t seed)
{
    c->a = a;
    c->l1_rate = a->l1_bytes_per_clk;
    c->l2_rate = a->l2_bytes_per_clk;
    c->dram_rate = arch_dram_bytes_per_clk(a);
    /* The unified L1/shared array: what the carveout leaves is L1. */
    double l1 = (double)a->l1_smem_kb * 1024.0 - (double)smem_config_bytes;
    c->l1_cap = l1 > 0 ? l1 : 0;
    c->l2_cap = (double)a->l2_size_kb * 1024.0;
    c->seed = seed;
    c->per_line = a->l1_cycles_per_line > 0 || a->l2_cycles_per_line > 0 ||
                  a->dram_cycles_per_line > 0;
}

uint64_t mem_min_latency(const struct arch *a)
{
    /* mem_global adds one of these latencies after the servers, which start
     * no earlier than the issue cycle */
    int l = a->l2_latency < a->dram_latency ? a->l2_latency : a->dram_latency;
    return (uint64_t)(l > 1 ? l : 1);
}

enum mem_queue_id mem_queue_of(const struct tr_inst *in)
{
    if (in->kind != TR_K_LOAD && in->kind != TR_K_STORE && in->kind != TR_K_ATOMIC)
        return MEM_Q_NONE;
    if (in->space == TR_SP_SHARED || in->space == TR_SP_CONST)
        return MEM_Q_MIO;
    return MEM_Q_LG;
}

int mem_queue_busy(const struct mem_queue *q, uint64_t t, uint64_t *until)
{
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < q->cap; i++) {
        if (q->free_at[i] <= t)
            return 0; /* a free slot: the common case, found without a full scan */
        if (q->free_at[i] < first)
            first = q->free_at[i];
    }
    *until = first;
    return 1;
}

void mem_queue_push(struct mem_queue *q, uint64_t t, uint64_t free_at)
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
 * of 256 slots, open addressing.  (An insertion sort per access, and a
 * second list for the lines, cost a sixth of an address trace's run.) */
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
    int lanes = tr_lanes(d->active_mask);
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
    int lanes = tr_lanes(d->active_mask);
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

/* The capacity rule (mem.h).  footprint <= capacity: the stream fits and
 * is reused -> hit.  Larger: random reuse hits with probability c /
 * footprint; a streaming pattern touches each sector once -> miss. */
double mem_hit_p(const struct tr_inst *in, double c)
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

void mem_level_p(const struct mem_cfg *c, const struct tr_inst *in, double *p1, double *p2)
{
    /* stores write through L1 and atomics run at L2: only loads hit L1 */
    double h1 = in->kind == TR_K_LOAD ? mem_hit_p(in, c->l1_cap) : 0.0;
    double h2 = mem_hit_p(in, c->l2_cap);
    *p1 = h1 < 0 ? 0.0 : h1;
    *p2 = h2 < 0 ? 1.0 : h2;
}

/* The MIO path: shared memory (and constant loads) to the SM's
 * shared-memory unit, one wavefront per cycle: a k-way bank conflict
 * serialises k wavefronts, wide accesses need one wavefront per banks*4
 * bytes. */
static void mio(const struct arch *a, struct mem_sm *m, const struct tr_inst *in,
                const struct tr_dyn *d, uint64_t t, struct mem_local_res *res)
{
    int lanes = tr_lanes(d->active_mask);
    if (lanes == 0) {
        res->ready = res->sent = t + 1;
        return;
    }
    uint64_t wf = in->conflict > 1 ? in->conflict : 1;
    if (in->space == TR_SP_SHARED) {
        uint64_t row = (uint64_t)a->smem_banks * 4;
        uint64_t data = ((uint64_t)lanes * (in->width ? in->width : 4) + row - 1) / row;
        if (data > wf)
            wf = data;
    }
    uint64_t start = t > m->smem_free ? t : m->smem_free;
    m->smem_free = start + wf;
    res->sent = start + wf;
    int lat = in->space == TR_SP_SHARED ? a->smem_latency : a->l1_latency;
    res->ready = start + wf - 1 + (uint64_t)(lat > 0 ? lat : 0);
    if (res->ready <= t)
        res->ready = t + 1;
}

void mem_local(const struct mem_cfg *c, struct mem_sm *m, struct mem_counters *cnt,
               const struct tr_inst *in, const struct tr_dyn *d, uint64_t warp_uid,
               uint64_t seq, uint64_t t, struct mem_local_res *res, struct mem_req *req)
{
    const struct arch *a = c->a;
    res->global = 0;
    if (mem_queue_of(in) == MEM_Q_MIO) {
        mio(a, m, in, d, t, res);
        return;
    }
    int is_store = in->kind == TR_K_STORE;
    int is_atom = in->kind == TR_K_ATOMIC;
    /* the sectors now; the excess lines (mem_shape) where they are charged,
     * below, and only counted when a per-line cost is set */
    int addr_lines = -1;
    int nsec = mem_sectors(a, in, d, c->per_line ? &addr_lines : NULL);
    if (nsec == 0) {
        res->ready = res->sent = t + 1;
        return;
    }
    double S = (double)a->sector_bytes;
    uint64_t key = mix64(c->seed ^ mix64(warp_uid * 0x100000001B3ull + seq));
    /* L1/TEX stage: every sector passes the tag stage. */
    double s1 = dmax((double)t, m->l1_free);
    m->l1_free = s1 + nsec * S / c->l1_rate;
    double t1 = m->l1_free;
    res->sent = cycle_ceil(t1, t);
    /* Loads may hit L1; stores write through and atomics run at L2. */
    double p1, p2;
    mem_level_p(c, in, &p1, &p2);
    int h1 = 0;
    if (!is_store && !is_atom) {
        h1 = draw_hits(nsec, p1, key ^ 1);
        cnt->l1_sectors += (uint64_t)nsec;
        cnt->l1_sector_hits += (uint64_t)h1;
    }
    /* A divergent access pays per excess line on top of its bytes: a
     * latency, not server time, so coalesced streams (no excess lines) keep
     * exactly the byte rates. */
    int excess = c->per_line ? mem_excess_lines(a, in, d, nsec, addr_lines) : 0;
    double rdy = h1 ? t1 + a->l1_latency + (excess ? excess * a->l1_cycles_per_line : 0.0)
                    : 0.0;
    int miss = nsec - h1;
    if (miss == 0) {
        res->ready = cycle_ceil(rdy, t);
        return;
    }
    int h2, m3, wb = 0;
    if (is_store) {
        /* write-back L2: a store allocates and "hits"; the part that does
         * not fit is written back to DRAM. */
        h2 = miss;
        m3 = 0;
        wb = miss - draw_hits(miss, p2, key ^ 2);
    } else {
        h2 = draw_hits(miss, p2, key ^ 2);
        m3 = miss - h2;
    }
    cnt->l2_sectors += (uint64_t)miss;
    cnt->l2_sector_hits += (uint64_t)h2;
    cnt->l2_bytes += (uint64_t)miss * (uint64_t)a->sector_bytes;
    cnt->dram_bytes += (uint64_t)(m3 + wb) * (uint64_t)a->sector_bytes;
    req->t = t;
    req->t1 = t1;
    req->rdy = rdy;
    req->m = miss;
    req->h2 = h2;
    req->m3 = m3;
    req->wb = wb;
    req->excess = excess;
    req->is_store = is_store;
    res->global = 1;
    res->ready = 0;
}

uint64_t mem_global(const struct mem_cfg *c, struct mem_gpu *g, const struct mem_req *q)
{
    const struct arch *a = c->a;
    double S = (double)a->sector_bytes;
    double rdy = q->rdy;
    double s2 = dmax(q->t1, g->l2_free);
    g->l2_free = s2 + q->m * S / c->l2_rate;
    double t2 = g->l2_free;
    /* per excess line: latency only, the servers stay byte-rate */
    if (q->is_store || q->h2)
        rdy = dmax(rdy, t2 + a->l2_latency + (q->excess ? q->excess * a->l2_cycles_per_line : 0.0));
    if (q->m3 + q->wb > 0) {
        double s3 = dmax(t2, g->dram_free);
        g->dram_free = s3 + (q->m3 + q->wb) * S / c->dram_rate;
        if (q->m3)
            rdy = dmax(rdy, g->dram_free + a->dram_latency +
                                (q->excess ? q->excess * a->dram_cycles_per_line : 0.0));
    }
    return cycle_ceil(rdy, q->t);
}
