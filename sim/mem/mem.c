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
    double l1 = (double)a->l1_smem_kb * 1024.0 - (double)smem_config_bytes -
                (double)a->l1_reserve_kb * 1024.0;
    c->l1_cap = l1 > 0 ? l1 : 0;
    c->l2_cap = (double)a->l2_size_kb * 1024.0;
    c->seed = seed;
    c->per_line = a->l1_cycles_per_line > 0 || a->l2_cycles_per_line > 0 ||
                  a->dram_cycles_per_line > 0;
    /* sector masks are 8 bits (mem_cache.h) */
    int spl = a->sector_bytes > 0 ? a->line_bytes / a->sector_bytes : 0;
    c->tags = spl >= 1 && spl <= 8 && a->line_bytes % a->sector_bytes == 0 &&
              a->l1_ways > 0 && a->l2_ways > 0;
    int banks = a->dram_banks > 1 ? a->dram_banks : 1;
    c->bank_svc = c->dram_rate > 0 ? (double)banks * a->sector_bytes / c->dram_rate : 0;
    /* memory.dram_access_sectors: an access of k sectors takes k + o
     * sectors' time, scaled so that a whole line (spl sectors) still takes
     * spl: dram_gbps stays the rate of whole-line streams */
    c->acc_scale = spl > 0 ? (double)spl / (spl + a->dram_access_sectors) : 1.0;
    /* the bank time of memory.dram_write_queue lines: how far a write-back's
     * service may lie ahead of the cycle L2 accepts its store */
    c->wq_slack = a->dram_write_queue * (a->sector_bytes > 0 ? a->line_bytes / a->sector_bytes : 1) *
                  c->bank_svc;
    /* the configured latencies are unloaded means (what a lone chase
     * measures): take the spread's mean, and the bank time of a
     * one-sector access for DRAM, off them */
    c->l2_base = a->l2_latency - a->l2_latency_spread;
    c->dram_base = a->dram_latency - a->dram_latency_spread -
                   (banks > 1 ? (1 + a->dram_access_sectors) * c->acc_scale * c->bank_svc : 0);
    if (c->l2_base < 1)
        c->l2_base = 1;
    if (c->dram_base < 1)
        c->dram_base = 1;
    c->min_lat = mem_min_latency(a);
    c->chunk_lines = a->dram_spread_bytes > a->line_bytes && a->line_bytes > 0
                         ? (uint64_t)(a->dram_spread_bytes / a->line_bytes) : 1;
    c->corr_lines = a->dram_corr_bytes > 0 && a->line_bytes > 0 && a->dram_corr_share > 0
                        ? (uint64_t)((a->dram_corr_bytes + a->line_bytes - 1) / a->line_bytes) : 0;
    c->corr_cut = (uint64_t)(a->dram_corr_share * 9007199254740992.0); /* 2^53 */
}

int mem_sm_init(const struct mem_cfg *c, struct mem_sm *m)
{
    memset(m, 0, sizeof *m);
    m->mshr.cap = c->a->l1_mshr_lines;
    m->scred.cap = c->a->l1_store_sectors;
    if (!c->tags || c->a->l1_ways < 1)
        return 0;
    if (mem_cache_init(&m->l1, (uint64_t)c->l1_cap, c->a->l1_ways, c->a->line_bytes) != 0)
        return -1;
    m->l1.modulo = c->a->l1_set_index == ARCH_INDEX_MODULO;
    return 0;
}

void mem_sm_free(struct mem_sm *m)
{
    mem_cache_free(&m->l1);
    mem_mshr_free(&m->mshr);
    mem_mshr_free(&m->scred);
    free(m->lines.v);
    memset(m, 0, sizeof *m);
}

int mem_gpu_init(const struct mem_cfg *c, struct mem_gpu *g)
{
    memset(g, 0, sizeof *g);
    int banks = c->a->dram_banks > 1 ? c->a->dram_banks : 1;
    g->bank = calloc((size_t)banks, sizeof *g->bank);
    if (!g->bank)
        return -1;
    g->nbank = banks;
    /* a rate of 0 (no DRAM configured) serves at once, as before */
    double br = c->dram_rate > 0 ? c->dram_rate / banks : 1e30;
    /* a bank slower than a sector per cycle keeps its calendar in slots of
     * one sector's time (whole cycles): many slow banks (memory.dram_banks
     * 1024: 14 cycles per sector) would otherwise be walked cycle by cycle */
    double slot = floor(c->a->sector_bytes / br);
    if (mem_cal_init(&g->l2s, c->l2_rate > 0 ? c->l2_rate : 1e30, 1.0) != 0) {
        mem_gpu_free(g);
        return -1;
    }
    for (int i = 0; i < banks; i++) {
        g->bank[i].last_rd = g->bank[i].last_wr = -1e300;
        if (mem_cal_init(&g->bank[i].cal, br, slot) != 0) {
            mem_gpu_free(g);
            return -1;
        }
    }
    g->nl2 = c->a->l2_partitions > 1 ? MEM_L2_PARTS : 1;
    for (int p = 0; p < g->nl2; p++)
        if (c->tags && c->a->l2_ways >= 1 &&
            mem_cache_init(&g->l2[p], (uint64_t)(c->l2_cap / g->nl2), c->a->l2_ways,
                           c->a->line_bytes) != 0) {
            mem_gpu_free(g);
            return -1;
        }
    return 0;
}

void mem_gpu_free(struct mem_gpu *g)
{
    for (int i = 0; i < g->nbank; i++)
        mem_cal_free(&g->bank[i].cal);
    free(g->bank);
    mem_cal_free(&g->l2s);
    for (int p = 0; p < MEM_L2_PARTS; p++)
        mem_cache_free(&g->l2[p]);
    memset(g, 0, sizeof *g);
}

void mem_gpu_keep_l2(struct mem_gpu *g, struct mem_cache keep[MEM_L2_PARTS])
{
    for (int p = 0; p < MEM_L2_PARTS; p++) {
        mem_cache_free(&keep[p]);
        keep[p] = g->l2[p];
        memset(&g->l2[p], 0, sizeof g->l2[p]);
    }
}

void mem_gpu_take_l2(struct mem_gpu *g, struct mem_cache keep[MEM_L2_PARTS])
{
    for (int p = 0; p < MEM_L2_PARTS; p++) {
        if (keep[p].sets != g->l2[p].sets || keep[p].ways != g->l2[p].ways) {
            mem_cache_free(&keep[p]);
            continue;
        }
        mem_cache_free(&g->l2[p]);
        g->l2[p] = keep[p];
        memset(&keep[p], 0, sizeof keep[p]);
        mem_cache_settle(&g->l2[p]);
    }
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

/* The mean of each 1/64 quantile bin of an exponential distribution of
 * mean 1 (64 times the bin's integral of -ln(1 - u)): a draw is one table
 * entry, no libm call, so every platform gives the same bits.  Their
 * average is exactly 1. */
static const double exp_bins[64] = {
    0.0078535110072324166, 0.023727193488789045, 0.039856925135981491, 0.056251102113726414,
    0.072918540471078597, 0.089868504614545763, 0.10711073823670958, 0.12465549795866959,
    0.14251358997721564, 0.16069641004458823, 0.17921598715131104, 0.19808503133143951,
    0.21731698606606287, 0.23692608582635977, 0.2569274193730724, 0.27733699951773438,
    0.29817184015365861, 0.31945004148528966, 0.34119088452569102, 0.36341493609877418,
    0.38614416577936339, 0.40940207643796001, 0.43321385033481974, 0.4576065130405027,
    0.48260911785843419, 0.50825295390611913, 0.53457178159331775, 0.56160209994332888,
    0.58938345106918533, 0.6179587681796832, 0.64737477480403172, 0.6776824445570746,
    0.70893753280795835, 0.74120119418479646, 0.77454070310275824, 0.80903029865763543,
    0.84475218057084334, 0.88179768980132422, 0.92026871650615405, 0.96027939000535056,
    1.0019581213794169, 1.0454500908721762, 1.0909203016686071, 1.1385573622476102,
    1.1885782164422203, 1.2412341213282687, 1.2968182901843797, 1.3556757902405003,
    1.418216544056321, 1.4849326814401422, 1.5564221157460274, 1.6334212338156995,
    1.716851286685749, 1.8078860125180469, 1.9080533494451899, 2.0193942207723836,
    2.1447217933081788, 2.2880688553408106, 2.4555158301618434, 2.6568709656687304,
    2.9095425048844419, 3.2493405784752341, 3.7725887222397816, 5.1588830833596688,
};

/* A latency's spread beyond its level's minimum: mean * Exp(1), from key. */
static double spread(double mean, uint64_t key)
{
    return mean > 0 ? mean * exp_bins[mix64(key) >> 58] : 0.0;
}

/* The key of a DRAM line's latency draw for an access of key `key`: one
 * draw per memory.dram_spread_bytes chunk of the access; or, for the
 * memory.dram_corr_share of lines an address hash picks, the draw of its
 * memory.dram_corr_bytes region, shared with every access and warp: lines
 * 128 B-8 KiB apart that one warp reads together wait for their slowest
 * less than independent draws would make them (an H100's calib_mlps,
 * validate/data/h100/kit10-2026-12-06, docs/calibration.md "Close DRAM
 * loads").  The region's draw depends on the address and the run's seed
 * only, not on time, so that the saturation study's lone-warp walk meets
 * the draws a run does; a region read again after eviction meets it again. */
static uint64_t dram_key(const struct mem_cfg *c, uint64_t key, uint64_t line)
{
    if (c->corr_lines && (mix64(line ^ 0x2545F4914F6CDD1Dull) >> 11) < c->corr_cut)
        return mix64((line / c->corr_lines) ^ mix64(c->seed + 0x51));
    return key ^ mix64((line / c->chunk_lines) + 3);
}

static int popc8(unsigned x)
{
    return tr_lanes(x & 0xffu);
}

static int lines_reserve(struct mem_lines *L, int more)
{
    if (L->n + more <= L->alloc)
        return 0;
    int na = L->alloc ? L->alloc : 256;
    while (na < L->n + more)
        na *= 2;
    uint64_t *v = realloc(L->v, (size_t)na * sizeof *v);
    if (!v)
        return -1;
    L->v = v;
    L->alloc = na;
    return 0;
}

/* The lines of an access with addresses, appended to L as (line << 8) |
 * sectors, in first-touch order; *nsec gets its sectors.  Lanes' addresses
 * mostly come in order, so the last line is tried first.  Returns the
 * number of lines, -1 out of memory. */
static int addr_line_list(const struct arch *a, const struct tr_dyn *d, uint64_t w,
                          struct mem_lines *L, int *nsec)
{
    if (lines_reserve(L, 128) != 0)
        return -1;
    uint64_t S = (uint64_t)a->sector_bytes;
    uint64_t spl = (uint64_t)a->line_bytes / S;
    int lo = L->n, n = lo, sec = 0;
    uint32_t na = d->naddr < 32 ? d->naddr : 32;
    /* the common case (coalesced, dense strided): lanes ascending and
     * contiguous, so the bytes are one range and its lines follow in order */
    int contig = na > 0;
    for (uint32_t i = 1; i < na && contig; i++)
        contig = d->addr[i] == d->addr[i - 1] + w;
    if (contig) {
        uint64_t s0 = div_by(d->addr[0], S), s1 = div_by(d->addr[na - 1] + w - 1, S);
        for (uint64_t sx = s0; sx <= s1 && n - lo < 128; sx++) {
            uint64_t line = div_by(sx, spl);
            uint64_t bit = UINT64_C(1) << (sx - line * spl);
            if (n > lo && L->v[n - 1] >> 8 == line)
                L->v[n - 1] |= bit;
            else
                L->v[n++] = line << 8 | bit;
            sec++;
        }
        L->n = n;
        *nsec = sec;
        return n - lo;
    }
    for (uint32_t i = 0; i < na; i++) {
        uint64_t s0 = div_by(d->addr[i], S), s1 = div_by(d->addr[i] + w - 1, S);
        for (uint64_t sx = s0; sx <= s1 && sx < s0 + 4; sx++) {
            uint64_t line = div_by(sx, spl);
            uint64_t bit = UINT64_C(1) << (sx - line * spl);
            int j = n - 1;
            if (j < lo || L->v[j] >> 8 != line)
                for (j = lo; j < n && L->v[j] >> 8 != line; j++)
                    ;
            if (j < n && j >= lo) {
                sec += !(L->v[j] & bit);
                L->v[j] |= bit;
            } else {
                L->v[n++] = line << 8 | bit;
                sec++;
            }
        }
    }
    L->n = n;
    *nsec = sec;
    return n - lo;
}

static void add_dep(struct mem_req *q, uint32_t ref)
{
    for (int i = 0; i < q->ndeps; i++)
        if (q->deps[i] == ref)
            return;
    if (q->ndeps < MEM_MAX_DEPS) {
        q->deps[q->ndeps++] = ref;
        return;
    }
    /* full: keep the latest requests (the last issued arrive last, mostly) */
    int lo = 0;
    for (int i = 1; i < q->ndeps; i++)
        if (q->deps[i] < q->deps[lo])
            lo = i;
    if (ref > q->deps[lo])
        q->deps[lo] = ref;
}

static void req_base(struct mem_req *req, uint64_t t, double t1, uint64_t key, int excess,
                     int is_store, int is_atom)
{
    memset(req, 0, sizeof *req);
    req->t = t;
    req->t1 = t1;
    req->key = key;
    req->excess = excess;
    req->is_store = is_store;
    req->is_atom = is_atom;
}

/* The tag path of mem_local: an access with addresses, lines in m->lines
 * from lo.  Loads look up L1; a sector present is a hit, or, when its line
 * is still in flight, waits for that line (merged: no request of its
 * own); missing sectors allocate their line now and go to L2.  Stores
 * write through (allocating in L1 with memory.l1_store_allocate) and
 * atomics run at L2: their lines all go on. */
static int local_tags(const struct mem_cfg *c, struct mem_sm *m, struct mem_counters *cnt,
                      int lo, int nl, int nsec, int excess, int is_store, int is_atom,
                      uint64_t key, uint64_t t, double t1, uint32_t ref,
                      struct mem_local_res *res, struct mem_req *req)
{
    const struct arch *a = c->a;
    req_base(req, t, t1, key, excess, is_store, is_atom);
    req->tagged = 1;
    req->part = m->part;
    uint64_t tt = cycle_ceil(t1, t); /* the cycle the tags are looked up */
    uint64_t *v = m->lines.v;
    int j = lo, miss = 0, fresh = 0, found = 0;
    double rdy = 0.0;
    for (int i = lo; i < lo + nl; i++) {
        uint64_t line = v[i] >> 8;
        unsigned want = (unsigned)(v[i] & 0xff);
        if (is_store || is_atom) {
            v[j++] = v[i];
            miss += popc8(want);
            /* write-through; with l1_store_allocate the written sectors are
             * valid in L1 at once (fill 0: present), so a later load of them
             * hits; a line still in flight keeps its pending arrival */
            if (is_store && a->l1_store_allocate) {
                unsigned ev;
                mem_cache_fill(&m->l1, line, want, 0, &ev);
            }
            continue;
        }
        unsigned valid;
        long way = mem_cache_find(&m->l1, line, &valid);
        unsigned have = way >= 0 ? valid & want : 0;
        if (have) {
            uint64_t f = m->l1.fill[way];
            found += popc8(have);
            if (f == MEM_UNKNOWN)
                add_dep(req, m->l1.ref[way]);
            else if ((double)f > rdy && f > tt)
                rdy = (double)f;
        }
        unsigned need = want & ~have;
        if (need) {
            unsigned ev;
            long wy = mem_cache_fill(&m->l1, line, need, 0, &ev);
            if (wy >= 0) {
                m->l1.fill[wy] = MEM_UNKNOWN;
                m->l1.ref[wy] = ref;
            }
            v[j++] = line << 8 | need;
            miss += popc8(need);
            fresh++;
        }
    }
    m->lines.n = j;
    if (!is_store && !is_atom) {
        cnt->l1_sector_hits += (uint64_t)found;
        if (found)
            rdy = dmax(rdy, t1 + a->l1_latency + (excess ? excess * a->l1_cycles_per_line : 0.0));
    }
    /* the miss table: new lines need free entries, one each and
     * l1_mshr_inst_entries for the instruction (kit6's lg_throttle sets in
     * at fewer lines for narrow loads: docs/calibration.md), else the L1
     * stage waits (and everything behind it: the stage is in order) */
    if (fresh && m->mshr.cap > 0) {
        int k = fresh + a->l1_mshr_inst_entries;
        uint64_t room = mem_mshr_room(&m->mshr, tt, k);
        if ((double)room > t1) {
            t1 = (double)room;
            if (t1 > m->l1_free)
                m->l1_free = t1;
        }
        if (mem_mshr_take(&m->mshr, k, (uint64_t)ceil(t1) + c->min_lat, ref) != 0)
            return -1;
    }
    res->sent = cycle_ceil(t1, t);
    if (miss == 0 && req->ndeps == 0) {
        m->lines.n = lo;
        res->ready = cycle_ceil(rdy, t);
        return 0;
    }
    cnt->l2_bytes += (uint64_t)miss * (uint64_t)a->sector_bytes;
    req->t1 = t1;
    req->rdy = rdy;
    req->m = miss;
    req->lo = lo;
    req->nl = j - lo;
    res->global = 1;
    res->ready = 0;
    return 0;
}

int mem_local(const struct mem_cfg *c, struct mem_sm *m, struct mem_counters *cnt,
              const struct tr_inst *in, const struct tr_dyn *d, uint64_t warp_uid,
              uint64_t seq, uint64_t t, uint32_t ref, struct mem_local_res *res,
              struct mem_req *req)
{
    const struct arch *a = c->a;
    res->global = 0;
    if (mem_queue_of(in) == MEM_Q_MIO) {
        mio(a, m, in, d, t, res);
        return 0;
    }
    int is_store = in->kind == TR_K_STORE;
    int is_atom = in->kind == TR_K_ATOMIC;
    int tagged = c->tags && d->naddr > 0 && d->addr && tr_lanes(d->active_mask) > 0;
    /* the sectors now; the excess lines (mem_shape) where they are charged,
     * below, and only counted when a per-line cost is set */
    int addr_lines = -1, nsec, lo = m->lines.n, nl = 0;
    if (tagged) {
        nl = addr_line_list(a, d, in->width ? in->width : 4, &m->lines, &nsec);
        if (nl < 0)
            return -1;
        addr_lines = nl;
    } else {
        nsec = mem_sectors(a, in, d, c->per_line ? &addr_lines : NULL);
    }
    if (nsec == 0) {
        m->lines.n = lo;
        res->ready = res->sent = t + 1;
        return 0;
    }
    double S = (double)a->sector_bytes;
    uint64_t key = mix64(c->seed ^ mix64(warp_uid * 0x100000001B3ull + seq));
    /* L1/TEX stage: every sector passes the tag stage. */
    double s1 = dmax((double)t, m->l1_free);
    m->l1_free = s1 + nsec * S / c->l1_rate;
    double t1 = m->l1_free;
    /* Store credits: a store's sectors leave the L1 stage only while the SM
     * has fewer than memory.l1_store_sectors sectors that L2 has not yet
     * accepted (an acceptance not known yet counts from send + the minimum
     * latency), else the stage waits, and everything behind it: L2 and
     * DRAM pressure reach the SM this way (ncu 'lg_throttle' on stores). */
    if (is_store && m->scred.cap > 0) {
        uint64_t room = mem_mshr_room(&m->scred, cycle_ceil(t1, t), nsec);
        if ((double)room > t1) {
            t1 = (double)room;
            m->l1_free = t1;
        }
        if (mem_mshr_take(&m->scred, nsec, (uint64_t)ceil(t1) + c->min_lat, ref) != 0)
            return -1;
    }
    res->sent = cycle_ceil(t1, t);
    /* A divergent access pays per excess line on top of its bytes: a
     * latency, not server time, so coalesced streams (no excess lines) keep
     * exactly the byte rates. */
    int excess = c->per_line ? mem_excess_lines(a, in, d, nsec, addr_lines) : 0;
    /* L1 lookups (both models): loads' sectors, and a global store's, which
     * pass the L1/TEX tag stage as lookups that miss, as ncu's
     * l1tex__t_sector_hit_rate counts them (kit-2026-12-01/write/
     * write-ncu.raw.csv:10: every load of wp_store_then_load hits, 524,288
     * sectors, and the overall rate is 48.44 % = 524,288 / (524,288 +
     * 558,080 store sectors)); atomics run at L2. */
    if (!is_atom)
        cnt->l1_sectors += (uint64_t)nsec;
    /* ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_ld/_st: the sectors of
     * global loads and stores; an LDGSTS (cp.async) is a global load there
     * (the H200's cuBLAS fp32 GEMM: 3,145,728 load sectors, all of them its
     * LDGSTS' sources; validate/data/h200/tracer-2026-12-02/full/
     * matmul_fp32/ncu.csv).  The uniform-datapath copies (UTMALDG, UTMASTG,
     * UTMAPF, UBLKCP: the TMA unit's, the only U-prefixed memory opcodes of
     * trace_isa.c) are not LSU-pipe requests and are not counted there. */
    if (in->space == TR_SP_GLOBAL && in->opcode[0] != 'U') {
        if (in->kind == TR_K_LOAD)
            cnt->gld_sectors += (uint64_t)nsec;
        else if (is_store)
            cnt->gst_sectors += (uint64_t)nsec;
    }
    if (tagged)
        return local_tags(c, m, cnt, lo, nl, nsec, excess, is_store, is_atom, key, t, t1, ref,
                          res, req);
    /* Loads may hit L1; stores write through and atomics run at L2. */
    double p1, p2;
    mem_level_p(c, in, &p1, &p2);
    int h1 = 0;
    if (!is_store && !is_atom) {
        h1 = draw_hits(nsec, p1, key ^ 1);
        cnt->l1_sector_hits += (uint64_t)h1;
    }
    double rdy = h1 ? t1 + a->l1_latency + (excess ? excess * a->l1_cycles_per_line : 0.0)
                    : 0.0;
    int miss = nsec - h1;
    if (miss == 0) {
        res->ready = cycle_ceil(rdy, t);
        return 0;
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
    req_base(req, t, t1, key, excess, is_store, is_atom);
    req->rdy = rdy;
    req->m = miss;
    req->h2 = h2;
    req->m3 = m3;
    req->wb = wb;
    res->global = 1;
    res->ready = 0;
    return 0;
}

void mem_sm_answer(struct mem_sm *m, const struct mem_req *req, uint32_t ref, uint64_t ready)
{
    if (req->is_store && m->scred.cap > 0)
        mem_mshr_resolve(&m->scred, ref, ready);
    if (!req->tagged)
        return;
    if (m->mshr.cap > 0 && !req->is_store && !req->is_atom)
        mem_mshr_resolve(&m->mshr, ref, ready);
    if (req->is_store || req->is_atom || m->l1.sets == 0)
        return;
    /* the lines it allocated arrive now (unless a later miss took them over
     * or they were evicted); look them up without touching LRU order */
    for (int i = req->lo; i < req->lo + req->nl; i++) {
        uint64_t line = m->lines.v[i] >> 8;
        unsigned valid;
        uint64_t keep = m->l1.stamp;
        long way = mem_cache_find(&m->l1, line, &valid);
        m->l1.stamp = keep;
        if (way >= 0 && m->l1.fill[way] == MEM_UNKNOWN && m->l1.ref[way] == ref)
            m->l1.fill[way] = ready;
    }
}

void mem_sm_epoch_end(struct mem_sm *m)
{
    m->lines.n = 0;
}

/* The DRAM bank of a line: a hash of its address (memory.dram_banks). */
static int bank_of(const struct mem_cfg *c, uint64_t x)
{
    int banks = c->a->dram_banks > 1 ? c->a->dram_banks : 1;
    if (banks == 1)
        return 0;
    return (int)(((mix64(x) >> 32) * (uint64_t)banks) >> 32);
}

/* k sectors of one line through DRAM bank b from t, read or written back:
 * returns when they are served (the bank is then busy until then).  A bank
 * that served the other direction less than memory.dram_mix_window cycles
 * before pays the bus turnaround: each sector takes 1 + dram_mix_read (a
 * read) or 1 + dram_mix_write (a write) times its time.  A pure read or pure
 * write stream pays nothing: the H200 reads and writes at the same ~4.4 TB/s
 * alone and loses 6-18 % mixed, the more the larger the write share
 * (kit4-2026-12-02/rw, validate/calib_rw.py).  Each access costs
 * memory.dram_access_sectors sectors' time besides its k (scaled so that a
 * whole line costs its sectors, mem_cfg_init): the H200 streams
 * warp loads that span two lines (each line fetched in two pieces) from DRAM
 * at 2878-2906 GB/s against 3250-4118 aligned at 4-16 blocks/SM
 * (kit4-2026-12-02/misalign, validate/calib_misalign.py). */
static double bank_serve(const struct mem_cfg *c, struct mem_gpu *g, int b, uint64_t now,
                         double t, int k, int is_write, double *start)
{
    struct mem_bank *bk = &g->bank[b];
    mem_cal_forget(&bk->cal, now);
    /* the turnaround is judged at the arrival (the cycle the bank would
     * start without a queue) */
    double f = 1.0, win = c->a->dram_mix_window;
    double bytes = (k + c->a->dram_access_sectors) * c->acc_scale * c->a->sector_bytes;
    if (is_write && c->a->dram_write_batch > 0) {
        /* memory.dram_write_batch: gathered, accepted at once; the line
         * that completes a batch sends the whole of it (kit11, kit13:
         * reads beside a store stream wait far longer than bank time
         * says; docs/calibration.md "Close DRAM loads") */
        bk->wq_bytes += bytes;
        if (++bk->wq_n < c->a->dram_write_batch) {
            if (start)
                *start = t;
            return t;
        }
        bytes = bk->wq_bytes;
        bk->wq_bytes = 0;
        bk->wq_n = 0;
    }
    if (is_write) {
        if (t - bk->last_rd < win)
            f += c->a->dram_mix_write;
        if (t > bk->last_wr)
            bk->last_wr = t;
    } else {
        if (t - bk->last_wr < win)
            f += c->a->dram_mix_read;
        if (t > bk->last_rd)
            bk->last_rd = t;
    }
    bytes *= f;
    double s, done = mem_cal_serve(&bk->cal, t, bytes, &s);
    if (done < -1e299) {
        g->oom = 1;
        s = done = t;
    }
    if (start)
        *start = s;
    return done;
}

/* The L2 server: the request's bytes from when it left its SM's L1 stage
 * (visits come in issue order, arrivals out of it: mem_cal.h). */
static double l2_serve(struct mem_gpu *g, const struct mem_req *q, double bytes)
{
    mem_cal_forget(&g->l2s, q->t);
    double t2 = mem_cal_serve(&g->l2s, q->t1, bytes, NULL);
    if (t2 < -1e299) {
        g->oom = 1;
        t2 = q->t1;
    }
    return t2;
}

/* The L2 partition a line's address makes its home: a hash of it, other
 * than the one that picks its set (mem_cache.c), so each partition's lines
 * use all of its sets. */
int mem_l2_home(const struct mem_gpu *g, uint64_t line)
{
    return g->nl2 > 1 ? (int)(mix64(line ^ 0x2545F4914F6CDD1Dull) >> 63) : 0;
}

int mem_l2_near(const struct arch *a, int sm)
{
    if (a->l2_partitions < 2)
        return 0;
    int run = a->l2_partition_run > 0 ? a->l2_partition_run : 1;
    return (sm / run) % MEM_L2_PARTS;
}

/* A store's sectors `want` of `line` from an SM near partition `near`:
 * written at the line's home partition (write-back, write-allocate: whole
 * sectors, no read).  When the store came through the other partition
 * (near is not home) it allocates them there too, clean: the H200's load
 * of 16 MiB just stored by the same threads hits L2 89.5 %
 * (kit-2026-12-01/write, write-ncu.raw.csv:4); else a copy there loses
 * them.  Returns the dirty sectors allocations evicted (to be written to
 * DRAM). */
static int l2_store(struct mem_gpu *g, uint64_t line, unsigned want, int near, int home)
{
    unsigned valid, ev = 0;
    struct mem_cache *h = &g->l2[home];
    long wy = mem_cache_find(h, line, &valid);
    if (wy < 0) {
        mem_cache_fill(h, line, want, want, &ev);
    } else {
        h->valid[wy] |= (uint8_t)want;
        h->dirty[wy] |= (uint8_t)want;
    }
    if (g->nl2 > 1) {
        struct mem_cache *o = &g->l2[!home];
        if (near == home) {
            long ow = mem_cache_find(o, line, &valid);
            if (ow >= 0)
                o->valid[ow] &= (uint8_t)~want;
        } else {
            unsigned ev2 = 0;
            mem_cache_fill(o, line, want, 0, &ev2);
            return popc8(ev) + popc8(ev2);
        }
    }
    return popc8(ev);
}

/* n dirty sectors an L2 allocation for `line` evicted go to DRAM (the
 * evicted line's bank: a hash of line, as its address is not kept);
 * returns n. */
static int write_back(const struct mem_cfg *c, struct mem_gpu *g, const struct mem_req *q,
                      double t2, uint64_t line, int n)
{
    if (n)
        bank_serve(c, g, bank_of(c, line ^ 0x5bd1e995u), q->t, t2, n, 1, NULL);
    return n;
}

/* The globally ordered stage of a request with lines: L2 tags, then DRAM
 * banks for what misses; stores allocate dirty sectors (write-back) and a
 * dirty line evicted is written to DRAM.  With two partitions
 * (memory.l2_partitions) a load looks up its SM's near partition; sectors
 * missing there are looked up again at the line's home partition (a far
 * hit: memory.l2_far_latency more) and are then kept near as well; what
 * misses at home comes from DRAM into both.  Every lookup counts as one
 * (lts__t_sectors): the H200's misses are 2.0 per DRAM sector on a window
 * re-read by all SMs and 1.5 on a stream read once
 * (kit4-2026-12-02/misalign-ncu.raw.csv, docs/calibration.md). */
static uint64_t global_tags(const struct mem_cfg *c, struct mem_gpu *g, const struct mem_req *q,
                            const uint64_t *lines)
{
    const struct arch *a = c->a;
    double S = (double)a->sector_bytes;
    double rdy = q->rdy;
    if (q->m == 0)
        return cycle_ceil(rdy, q->t);
    double t2 = l2_serve(g, q, q->m * S);
    uint64_t t2c = cycle_ceil(t2, q->t);
    int hits = 0, dram = 0, lookups = q->m;
    double l2x = q->excess ? q->excess * a->l2_cycles_per_line : 0.0;
    double dx = q->excess ? q->excess * a->dram_cycles_per_line : 0.0;
    int near = g->nl2 > 1 ? q->part : 0;
    struct mem_cache *nc = &g->l2[near];
    for (int i = 0; i < q->nl; i++) {
        uint64_t line = lines[q->lo + i] >> 8;
        unsigned want = (unsigned)(lines[q->lo + i] & 0xff);
        uint64_t k = q->key + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
        unsigned valid, ev = 0;
        if (q->is_store) {
            int home = mem_l2_home(g, line);
            int evn = l2_store(g, line, want, near, home);
            if (home != near) {
                /* looked up near and at home, a hit at both: the H200's
                 * copy kernel (1 GiB read once, 1 GiB written) hits
                 * 50.5-50.9 % at every residency, the loads' 1.5 lookups
                 * per sector missing and the stores' 1.5 hitting
                 * (kit-2026-11-29/valid/copy.raw.csv) */
                lookups += popc8(want);
                hits += popc8(want);
            }
            double acc = t2;
            if (evn) {
                /* the line takes the place of a dirty one: L2 accepts the
                 * store once that has left for DRAM, or is queued at its
                 * bank within memory.dram_write_queue lines of its service
                 * (write-back pressure reaches the SM through its store
                 * credits) */
                dram += evn;
                bank_serve(c, g, bank_of(c, line ^ 0x5bd1e995u), q->t, t2, evn, 1, &acc);
                acc = dmax(t2, acc - c->wq_slack);
            }
            hits += popc8(want);
            rdy = dmax(rdy, acc + c->l2_base + spread(a->l2_latency_spread, k) + l2x);
            continue;
        }
        long way = mem_cache_find(nc, line, &valid);
        unsigned have = way >= 0 ? valid & want : 0;
        if (have) {
            hits += popc8(have);
            uint64_t f = nc->fill[way];
            double lr = f > t2c ? (double)f
                                : t2 + c->l2_base + spread(a->l2_latency_spread, k) + l2x;
            rdy = dmax(rdy, lr);
        }
        unsigned need = want & ~have;
        if (!need)
            continue;
        int home = mem_l2_home(g, line);
        struct mem_cache *hc = &g->l2[home];
        if (home != near) {
            /* looked up again at home: a far hit, kept near from then on */
            lookups += popc8(need);
            long hw = mem_cache_find(hc, line, &valid);
            unsigned far = hw >= 0 ? valid & need : 0;
            if (far) {
                hits += popc8(far);
                uint64_t f = hc->fill[hw];
                double lr = (f > t2c ? (double)f
                                     : t2 + c->l2_base + spread(a->l2_latency_spread, k) + l2x) +
                            a->l2_far_latency;
                rdy = dmax(rdy, lr);
                long nw = mem_cache_fill(nc, line, far, 0, &ev);
                if (nw >= 0) {
                    uint64_t nf = cycle_ceil(lr, q->t);
                    if (nf > nc->fill[nw])
                        nc->fill[nw] = nf;
                }
                dram += write_back(c, g, q, t2, line, popc8(ev));
                ev = 0;
                need &= ~far;
                if (!need)
                    continue;
            }
        }
        int ns = popc8(need);
        dram += ns;
        double done = bank_serve(c, g, bank_of(c, line), q->t, t2, ns, 0, NULL);
        uint64_t dk = dram_key(c, q->key, line);
        double lr = done + c->dram_base + spread(a->dram_latency_spread, dk) + dx;
        uint64_t f = cycle_ceil(lr, q->t);
        for (int p = 0; p < 2; p++) {
            /* into home, and near when that is another partition */
            struct mem_cache *pc = p == 0 ? hc : nc;
            if (p == 1 && pc == hc)
                break;
            long wy = mem_cache_fill(pc, line, need, 0, &ev);
            if (wy >= 0 && f > pc->fill[wy])
                pc->fill[wy] = f;
            dram += write_back(c, g, q, t2, line, popc8(ev));
            ev = 0;
        }
        rdy = dmax(rdy, lr);
    }
    g->cnt.l2_sectors += (uint64_t)lookups;
    g->cnt.l2_sector_hits += (uint64_t)hits;
    g->cnt.dram_bytes += (uint64_t)dram * (uint64_t)a->sector_bytes;
    return cycle_ceil(rdy, q->t);
}

uint64_t mem_global(const struct mem_cfg *c, struct mem_gpu *g, const struct mem_req *q,
                    const uint64_t *lines)
{
    if (q->tagged)
        return global_tags(c, g, q, lines);
    const struct arch *a = c->a;
    double S = (double)a->sector_bytes;
    double rdy = q->rdy;
    double t2 = l2_serve(g, q, q->m * S);
    /* No addresses: the sectors fill lines in order (a divergent access's
     * excess lines on top), the hits first; each line its own draw and
     * DRAM bank (a hash of the request), as if its address were random. */
    int spl = a->line_bytes / a->sector_bytes > 0 ? a->line_bytes / a->sector_bytes : 1;
    int lines_all = (q->m + spl - 1) / spl + q->excess;
    int lines_hit = q->m > 0 ? (int)(((int64_t)lines_all * q->h2 + q->m - 1) / q->m) : 0;
    if (lines_hit < (q->h2 > 0))
        lines_hit = q->h2 > 0;
    /* per excess line: latency only, the servers stay byte-rate */
    double l2x = q->excess ? q->excess * a->l2_cycles_per_line : 0.0;
    if (q->is_store || q->h2) {
        int nh = q->is_store ? 1 : lines_hit;
        double sp = 0.0;
        for (int i = 0; i < nh; i++) {
            double x = spread(a->l2_latency_spread, q->key + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull);
            if (x > sp)
                sp = x;
        }
        rdy = dmax(rdy, t2 + c->l2_base + sp + l2x);
    }
    int dram = q->m3 + q->wb;
    if (dram > 0) {
        int nl3 = lines_all - lines_hit;
        if (nl3 < 1)
            nl3 = 1;
        if (nl3 > dram)
            nl3 = dram;
        double dx = q->excess ? q->excess * a->dram_cycles_per_line : 0.0;
        for (int i = 0; i < nl3; i++) {
            /* sectors of line i: dram split as evenly as it goes */
            int k = dram / nl3 + (i < dram % nl3);
            uint64_t key = q->key + (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull;
            double ws, done = bank_serve(c, g, bank_of(c, key), q->t, t2, k, q->wb > 0, &ws);
            /* contiguous lines share a chunk's draw; a divergent access's
             * lines are apart (memory.dram_spread_bytes) */
            uint64_t chunk = q->excess ? (uint64_t)i : (uint64_t)i / c->chunk_lines;
            uint64_t dk = q->key ^ mix64(chunk + 3);
            if (q->m3)
                rdy = dmax(rdy, done + c->dram_base + spread(a->dram_latency_spread, dk) + dx);
            else /* written back: accepted once it left for DRAM (above),
                  * or queued within memory.dram_write_queue lines of it */
                rdy = dmax(rdy, dmax(t2, ws - c->wq_slack) + c->l2_base);
        }
    }
    return cycle_ceil(rdy, q->t);
}
