/* mem_cache.c — sectored set-associative tag array (LRU) and the miss
 * table's limit (mem_cache.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "mem/mem_cache.h"

int mem_cache_init(struct mem_cache *c, uint64_t bytes, int ways, int line_bytes)
{
    memset(c, 0, sizeof *c);
    if (ways < 1 || line_bytes < 1)
        return 0;
    uint64_t sets = bytes / (uint64_t)line_bytes / (uint64_t)ways;
    if (sets == 0)
        return 0;
    if (sets > (1u << 30))
        return -1;
    size_t n = (size_t)sets * (size_t)ways;
    c->tag = calloc(n, sizeof *c->tag);
    c->use = calloc(n, sizeof *c->use);
    c->fill = calloc(n, sizeof *c->fill);
    c->ref = calloc(n, sizeof *c->ref);
    c->valid = calloc(n, 1);
    c->dirty = calloc(n, 1);
    if (!c->tag || !c->use || !c->fill || !c->ref || !c->valid || !c->dirty) {
        mem_cache_free(c);
        return -1;
    }
    c->sets = (int)sets;
    c->ways = ways;
    return 0;
}

void mem_cache_free(struct mem_cache *c)
{
    free(c->tag);
    free(c->use);
    free(c->fill);
    free(c->ref);
    free(c->valid);
    free(c->dirty);
    memset(c, 0, sizeof *c);
}

void mem_cache_clear(struct mem_cache *c)
{
    if (c->sets == 0)
        return;
    size_t n = (size_t)c->sets * (size_t)c->ways;
    memset(c->tag, 0, n * sizeof *c->tag);
    memset(c->valid, 0, n);
    memset(c->dirty, 0, n);
    c->stamp = 0;
}

void mem_cache_settle(struct mem_cache *c)
{
    if (c->sets == 0)
        return;
    size_t n = (size_t)c->sets * (size_t)c->ways;
    memset(c->fill, 0, n * sizeof *c->fill);
    memset(c->ref, 0, n * sizeof *c->ref);
}

/* The set of a line: its address modulo the set count, or a
 * multiplicative hash of it scaled to the set count (sets need not be a
 * power of two: L1 is what the carveout leaves). */
static size_t set_of(const struct mem_cache *c, uint64_t line)
{
    if (c->modulo)
        return (size_t)(line % (uint64_t)c->sets);
    uint64_t h = line * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)(((h >> 32) * (uint64_t)c->sets) >> 32);
}

long mem_cache_find(struct mem_cache *c, uint64_t line, unsigned *valid)
{
    *valid = 0;
    if (c->sets == 0)
        return -1;
    size_t base = set_of(c, line) * (size_t)c->ways;
    for (int w = 0; w < c->ways; w++)
        if (c->tag[base + (size_t)w] == line + 1) {
            c->use[base + (size_t)w] = ++c->stamp;
            *valid = c->valid[base + (size_t)w];
            return (long)(base + (size_t)w);
        }
    return -1;
}

long mem_cache_fill(struct mem_cache *c, uint64_t line, unsigned mask, unsigned dirty,
                    unsigned *evicted_dirty)
{
    *evicted_dirty = 0;
    if (c->sets == 0)
        return -1;
    size_t base = set_of(c, line) * (size_t)c->ways;
    /* one pass: the line's way if present, else an invalid way if there is
     * one, else the least recently used */
    size_t victim = base;
    int free_seen = 0;
    for (int w = 0; w < c->ways; w++) {
        size_t i = base + (size_t)w;
        uint64_t tg = c->tag[i];
        if (tg == line + 1) {
            victim = i;
            goto have;
        }
        if (free_seen)
            continue;
        if (tg == 0) {
            victim = i;
            free_seen = 1;
        } else if (c->use[i] < c->use[victim]) {
            victim = i;
        }
    }
    /* a new line in the victim way */
    *evicted_dirty = c->tag[victim] ? c->dirty[victim] : 0;
    c->tag[victim] = line + 1;
    c->valid[victim] = 0;
    c->dirty[victim] = 0;
    c->fill[victim] = 0;
    c->ref[victim] = 0;
have:
    c->use[victim] = ++c->stamp;
    c->valid[victim] |= (uint8_t)mask;
    c->dirty[victim] |= (uint8_t)dirty;
    return (long)victim;
}

/* --- the miss table's limit ---------------------------------------------- */

void mem_mshr_free(struct mem_mshr *m)
{
    free(m->rel);
    free(m->low);
    free(m->ref);
    m->rel = m->low = NULL;
    m->ref = NULL;
    m->n = m->alloc = 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

uint64_t mem_mshr_room(struct mem_mshr *m, uint64_t t, int k)
{
    if (m->cap <= 0)
        return t;
    if (k > m->cap)
        k = m->cap;
    /* drop what has been released by t (order kept: unknown entries are the
     * newest, and settle resolves them by handle) */
    int j = 0;
    for (int i = 0; i < m->n; i++)
        if (m->rel[i] == MEM_UNKNOWN || m->rel[i] > t) {
            m->rel[j] = m->rel[i];
            m->low[j] = m->low[i];
            m->ref[j] = m->ref[i];
            j++;
        }
    m->n = j;
    int excess = m->n + k - m->cap;
    if (excess <= 0)
        return t;
    /* the excess-th earliest release frees the last entry needed; usually
     * few entries are missing (a request wants a line or a few sectors), so
     * keep the `excess` earliest in a small sorted array instead of sorting
     * all entries (the sort was a third of the H200 bench's time) */
    if (excess <= 32) {
        uint64_t best[32];
        int nb = 0;
        for (int i = 0; i < m->n; i++) {
            uint64_t x = m->rel[i] == MEM_UNKNOWN ? m->low[i] : m->rel[i];
            if (nb == excess && x >= best[nb - 1])
                continue;
            int at = nb < excess ? nb++ : nb - 1;
            while (at > 0 && best[at - 1] > x) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = x;
        }
        return best[excess - 1] > t ? best[excess - 1] : t;
    }
    uint64_t tmp[1024], *v = m->n <= 1024 ? tmp : malloc((size_t)m->n * sizeof *v);
    if (!v)
        return t;
    for (int i = 0; i < m->n; i++)
        v[i] = m->rel[i] == MEM_UNKNOWN ? m->low[i] : m->rel[i];
    qsort(v, (size_t)m->n, sizeof *v, cmp_u64);
    uint64_t at = v[excess - 1];
    if (v != tmp)
        free(v);
    return at > t ? at : t;
}

int mem_mshr_take(struct mem_mshr *m, int k, uint64_t low, uint32_t ref)
{
    if (m->cap <= 0)
        return 0;
    if (m->n + k > m->alloc) {
        int na = m->alloc ? m->alloc * 2 : 64;
        while (na < m->n + k)
            na *= 2;
        uint64_t *r = realloc(m->rel, (size_t)na * sizeof *r);
        if (!r)
            return -1;
        m->rel = r;
        uint64_t *l = realloc(m->low, (size_t)na * sizeof *l);
        if (!l)
            return -1;
        m->low = l;
        uint32_t *f = realloc(m->ref, (size_t)na * sizeof *f);
        if (!f)
            return -1;
        m->ref = f;
        m->alloc = na;
    }
    for (int i = 0; i < k; i++) {
        m->rel[m->n] = MEM_UNKNOWN;
        m->low[m->n] = low;
        m->ref[m->n] = ref;
        m->n++;
    }
    return 0;
}

void mem_mshr_resolve(struct mem_mshr *m, uint32_t ref, uint64_t ready)
{
    /* unknown entries are the newest: walk back while they are unknown */
    for (int i = m->n - 1; i >= 0 && m->rel[i] == MEM_UNKNOWN; i--)
        if (m->ref[i] == ref)
            m->rel[i] = ready;
}
