/* mem_cache.h — the rooms of a cache: a sectored, set-associative tag
 * array with LRU replacement, and a miss table (MSHRs) of lines in flight.
 *
 * Lines and sectors as Nsight Compute counts them: a line (one tag) of
 * memory.line_bytes holds line_bytes / sector_bytes sectors, each with its
 * own valid bit, so a line can be partly present (Nsight Compute profiling
 * guide, memory tables; GPGPU-Sim's sectored tag_array has the same shape).
 * Sets are chosen by a hash of the line address, as GPUs do to spread
 * power-of-two strides (GPGPU-Sim's IPOLY hash serves the same purpose),
 * or, where a footprint sweep says so (memory.l1_set_index), by the line
 * address modulo the set count: which hash the H200 uses is not known.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_MEM_CACHE_H
#define SMSIM_MEM_CACHE_H

#include <stdint.h>

/* A tag array.  The zero value is an absent cache (sets == 0): every
 * probe misses and fills are dropped.  A line is allocated when its miss
 * is sent, not when the data arrives, so a second access to a line in
 * flight finds it and waits for the same data (the merge an MSHR does):
 * each line keeps the cycle its data arrives.  One arrival per line: a
 * later miss on other sectors of a line in flight moves the line's
 * arrival to the later of the two (conservative for the first sectors). */
struct mem_cache {
    uint64_t *tag;         /* [sets * ways] line address + 1; 0 = invalid way   */
    uint64_t *use;         /* [sets * ways] last-use stamp (LRU)                */
    uint64_t *fill;        /* [sets * ways] cycle the data arrives; MEM_UNKNOWN:
                              not known yet, see ref                            */
    uint32_t *ref;         /* [sets * ways] the caller's handle of the request
                              fetching it while fill is MEM_UNKNOWN             */
    uint8_t *valid;        /* [sets * ways] valid sectors, bit s = sector s     */
    uint8_t *dirty;        /* [sets * ways] written sectors not yet in memory   */
    uint64_t stamp;        /* last stamp handed out                             */
    int sets;              /* sets (0: no cache)                                */
    int ways;              /* ways per set                                      */
    int modulo;            /* sets by line address modulo sets, not the hash    */
};

#define MEM_UNKNOWN UINT64_MAX /* an arrival the globally ordered stage has not
                                  answered yet */

/* A cache of `bytes` (rounded down to whole sets of `ways` lines of
 * line_bytes).  0 on success, -1 out of memory; bytes too small for one
 * set gives an absent cache. */
int mem_cache_init(struct mem_cache *c, uint64_t bytes, int ways, int line_bytes);
void mem_cache_free(struct mem_cache *c);
/* Forget every line (a flush between launches). */
void mem_cache_clear(struct mem_cache *c);
/* Every line's data has arrived: a line kept for the next launch
 * (memory.warm_caches), whose clock starts again at 0, is present there. */
void mem_cache_settle(struct mem_cache *c);
/* The way holding `line` (address / line bytes), or -1; a hit makes it the
 * most recently used.  *valid gets its valid sectors. */
long mem_cache_find(struct mem_cache *c, uint64_t line, unsigned *valid);
/* Allocate `line` (the least recently used way of its set is evicted) or
 * find it, and mark sectors `mask` valid and `dirty` dirty; returns the
 * way.  *evicted_dirty gets the dirty sectors of an evicted line (to be
 * written to memory), 0 if none. */
long mem_cache_fill(struct mem_cache *c, uint64_t line, unsigned mask, unsigned dirty,
                    unsigned *evicted_dirty);

/* --- the miss table's limit ---------------------------------------------- */

/* Release cycles of the lines an SM has in flight, for a limit on them
 * (the merge itself is the tag array's, above). */
struct mem_mshr {
    uint64_t *rel;         /* [n] cycle each entry frees; MEM_UNKNOWN: not known */
    uint64_t *low;         /* [n] lower bound of rel while it is unknown         */
    uint32_t *ref;         /* [n] request handle (resolves unknown rel)          */
    int n, alloc;          /* used / allocated                                  */
    int cap;               /* entries the hardware has; 0 = no limit            */
};

void mem_mshr_free(struct mem_mshr *m);
/* The cycle at or after t by which k more entries are free: t when they
 * are free now, else the release of the entry that frees the last of them
 * (an unknown release counts as its lower bound).  Drops entries released
 * by t. */
uint64_t mem_mshr_room(struct mem_mshr *m, uint64_t t, int k);
/* Take k entries from `at` on; -1 out of memory. */
int mem_mshr_take(struct mem_mshr *m, int k, uint64_t low, uint32_t ref);
/* The request with handle ref was answered: its entries free at `ready`. */
void mem_mshr_resolve(struct mem_mshr *m, uint32_t ref, uint64_t ready);

#endif
