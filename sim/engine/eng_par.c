/* eng_par.c — the time loop: epochs, on one thread or several, with
 * results byte-identical for every thread count (docs/performance.md).
 *
 * SMs interact only through the memory system's globally ordered stage
 * (L2, DRAM) and the block dispatcher.  Neither answers within a bounded
 * time:
 *   - a request that reaches L2 is ready at least mem_min_latency() cycles
 *     after it issued (mem.h), and
 *   - a block slot freed at t is refilled no earlier than t + max(1,
 *     block_launch_latency) (eng_disp.c).
 * So time is cut into epochs [E, E + len) with len at most both bounds:
 * within an epoch every SM runs alone, a request's answer is a placeholder
 * later than the epoch, and freed slots wait.  At the epoch end one thread
 * feeds all requests of the epoch to mem_global() in (cycle, SM, issue)
 * order and hands out blocks in the dispatcher's order (round-robin over the SMs,
 * eng_disp.c); at the start of the next epoch each SM applies its answers
 * (eng_sm_settle).  The order is a function of the simulated times alone,
 * so the answers, and everything that follows from them, do not depend on
 * how many threads stepped the SMs or which thread stepped which SM.
 * Epochs also keep an SM's data in cache for many cycles, which is why a
 * one-thread run uses them too: there is only this one loop.
 *
 * What crosses between threads is kept small and in bulk, because a cache
 * line written by one core and read by another costs a transfer each way
 * per epoch, and memory-bound kernels run an epoch every 100-280 simulated
 * cycles.  At its epoch end each thread sorts its own SMs' requests into
 * one outbox array (par_out) and sums up its SMs (the earliest next cycle,
 * freed slots, errors); the serial phase reads only the outboxes and the
 * sums, merges the sorted outboxes, and writes the answers into one array
 * per thread, which that thread copies into its SMs' requests; an SM's own
 * structures are touched by another thread only when it freed a block slot
 * or failed, or when balance() moves it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/eng_disp.h"
#include "engine/eng_par.h"
#include "engine/eng_run.h"
#include "engine/eng_sm.h"
#include "engine/eng_util.h"

/* The epoch barrier.  An epoch is short (100-300 simulated cycles, tens to
 * hundreds of microseconds of work), so a barrier that puts threads to sleep
 * (pthread_barrier_wait: a futex wake per epoch) costs a visible share of the
 * run, and far more where system calls are slow (sandboxed kernels).  A
 * waiting thread therefore spins on the round's sense flag and yields its
 * core between looks once the wait is not short (so an oversubscribed
 * machine still makes progress). */
struct par_bar {
    atomic_int count;           /* threads arrived in this round                  */
    atomic_int sense;           /* flips when a round completes                   */
    int n;                      /* participants                                   */
};

static void bar_init(struct par_bar *b, int n)
{
    atomic_init(&b->count, 0);
    atomic_init(&b->sense, 0);
    b->n = n;
}

/* *local: the caller's own sense for this barrier (starts at 0). */
static void bar_wait(struct par_bar *b, int *local)
{
    int s = !*local;
    *local = s;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, s, memory_order_release);
        return;
    }
    for (unsigned i = 0; atomic_load_explicit(&b->sense, memory_order_acquire) != s; i++)
        if (i >= 1024)
            sched_yield();
}

struct par_ctl {
    struct eng_run *r;          /* the run                                        */
    int threads;                /* workers, the calling thread included           */
    uint64_t e, end;            /* current epoch: step cycles in [e, end)         */
    int quit;                   /* workers leave at the next start                */
    int go;                     /* 1 once threads and barriers are final          */
    pthread_mutex_t mu;         /* guards go                                      */
    pthread_cond_t cv;          /* signals go                                     */
    struct par_bar start;       /* epoch begins                                   */
    struct par_bar done;        /* every SM reached the epoch end                 */
};

/* A request in a thread's outbox, packed into 48 bytes: the serial phase
 * reads every request the other threads gathered, and they then write the
 * same lines again, so each byte here crosses between cores twice per
 * epoch.
 * key: the cycle's offset in the epoch (bits 34-63; epochs are at most
 * max(l2/dram latency, block_launch_latency) <= 10^6 cycles long), the SM
 * (bits 22-33; gpu.sm_count <= 1024), excess lines (bits 0-21; at most
 * 32 lanes x 65535-byte width).  arch_load's ranges give these bounds and
 * eng_run.c's check_arch holds hand-filled configurations to them.
 * Ordering by key orders by (cycle, SM); two threads never hold the same
 * (cycle, SM). */
struct par_srv {
    uint64_t key;               /* (cycle - epoch start, SM, excess), above        */
    double t1;                  /* mem_req.t1                                     */
    double rdy;                 /* mem_req.rdy                                    */
    uint64_t dkey;              /* mem_req.key (latency draws)                    */
    uint32_t m;                 /* sectors to L2; bit 31: a store; bit 30: an
                                   atomic; bit 29: tagged                         */
    uint32_t x;                 /* L2 hits (loads), DRAM write-backs (stores);
                                   tagged: the lines' count                       */
    uint32_t lo;                /* tagged: first line in its SM's mem_sm.lines     */
    uint32_t part;              /* mem_req.part (the SM's near L2 partition)       */
};

#define SRV_STORE (UINT32_C(1) << 31)
#define SRV_ATOM (UINT32_C(1) << 30)
#define SRV_TAGGED (UINT32_C(1) << 29)
#define SRV_FLAGS (SRV_STORE | SRV_ATOM | SRV_TAGGED)
enum { SRV_T_SHIFT = 34, SRV_SM_SHIFT = 22 }; /* key fields, above (check_arch
                                               keeps the values in range)     */
#define SRV_EX_MASK ((UINT64_C(1) << SRV_SM_SHIFT) - 1)

static int srv_sm(const struct par_srv *p)
{
    return (int)(p->key >> SRV_SM_SHIFT & ((UINT64_C(1) << (SRV_T_SHIFT - SRV_SM_SHIFT)) - 1));
}

static struct par_srv srv_pack(const struct mem_req *s, uint64_t e, int sm)
{
    struct par_srv p;
    p.key = (s->t - e) << SRV_T_SHIFT | (uint64_t)sm << SRV_SM_SHIFT | (uint64_t)s->excess;
    p.t1 = s->t1;
    p.rdy = s->rdy;
    p.dkey = s->key;
    p.m = (uint32_t)s->m | (s->is_store ? SRV_STORE : 0) | (s->is_atom ? SRV_ATOM : 0) |
          (s->tagged ? SRV_TAGGED : 0);
    /* a load's sectors are L2 hits or DRAM reads (m3 = m - h2, no
     * write-back); a store's all "hit" (h2 = m, m3 = 0) */
    p.x = s->tagged ? (uint32_t)s->nl : (uint32_t)(s->is_store ? s->wb : s->h2);
    p.lo = (uint32_t)s->lo;
    p.part = (uint32_t)s->part;
    return p;
}

static void srv_unpack(const struct par_srv *p, uint64_t e, struct mem_req *s)
{
    memset(s, 0, sizeof *s);
    s->t = e + (p->key >> SRV_T_SHIFT);
    s->excess = (int)(p->key & SRV_EX_MASK);
    s->t1 = p->t1;
    s->rdy = p->rdy;
    s->key = p->dkey;
    s->is_store = (p->m & SRV_STORE) != 0;
    s->is_atom = (p->m & SRV_ATOM) != 0;
    s->tagged = (p->m & SRV_TAGGED) != 0;
    s->part = (int)p->part;
    s->m = (int)(p->m & ~SRV_FLAGS);
    if (s->tagged) {
        s->nl = (int)p->x;
        s->lo = (int)p->lo;
        return;
    }
    s->h2 = s->is_store ? s->m : (int)p->x;
    s->m3 = s->is_store ? 0 : s->m - (int)p->x;
    s->wb = s->is_store ? (int)p->x : 0;
}

/* What one thread hands the serial phase at an epoch end, and gets back. */
struct par_out {
    struct par_srv *q;          /* [n] its SMs' requests, (cycle, SM, issue) order */
    uint64_t *ans;              /* [n] their answers (serial phase)               */
    uint64_t **dst;             /* [n] where each answer goes: its eng_req.ready   */
    int n, cap;                 /* used / allocated                               */
    int head;                   /* serial phase: next entry of q to resolve       */
    int *cnt;                   /* [longest epoch + 1] counting sort by cycle      */
    uint64_t next_min;          /* earliest next cycle of its SMs                 */
    int nfree;                  /* freed block slots its SMs have queued          */
    int err;                    /* 1: one of its SMs failed                       */
    int oom;                    /* 1: the outbox could not grow                   */
    uint64_t sink;              /* dst of answers taken over by balance()         */
};

/* One thread's share: line-aligned (eng_line_calloc), since each is written
 * by its own thread. */
struct par_worker {
    _Alignas(64) struct par_ctl *c; /* shared control                             */
    int *own;                   /* [sm_count] its SMs, ascending: at first id,
                                   id + threads, id + 2 threads, ... (run_range);
                                   balance() moves them                           */
    int nown;                   /* entries in own                                  */
    uint64_t busy;              /* ns spent in run_range since balance() last looked */
    int s_start, s_done;        /* this thread's senses of the two barriers       */
    pthread_t th;               /* the thread (workers 1..)                       */
    struct par_out out;         /* its outbox                                     */
};

/* Epoch end, on the thread: sum up its SMs and sort their requests of the
 * epoch [e, end) into its outbox, by cycle, then SM, then issue order (each
 * SM's own requests are in issue order, hence in cycle order). */
static void gather(struct eng_run *r, struct par_worker *wk, uint64_t e, uint64_t end)
{
    struct par_out *o = &wk->out;
    int total = 0, nfree = 0, err = 0;
    uint64_t nm = ENG_NEVER;
    for (int k = 0; k < wk->nown; k++) {
        int i = wk->own[k];
        const struct eng_sm *sm = &r->sm[i];
        total += sm->nreq;
        nfree += sm->nfr;
        err |= sm->err_t != ENG_NEVER;
        if (sm->next < nm)
            nm = sm->next;
    }
    o->next_min = nm;
    o->nfree = nfree;
    o->err = err;
    o->n = 0;
    if (total == 0)
        return;
    if (total > o->cap) {
        int cap = total + total / 2 + 64;
        free(o->q);
        free(o->ans);
        free(o->dst);
        o->q = eng_line_calloc((size_t)cap, sizeof *o->q);
        o->ans = eng_line_calloc((size_t)cap, sizeof *o->ans);
        o->dst = eng_line_calloc((size_t)cap, sizeof *o->dst);
        o->cap = o->q && o->ans && o->dst ? cap : 0;
        if (!o->cap) {
            o->oom = 1;
            return;
        }
    }
    uint64_t len = end - e;
    memset(o->cnt, 0, (size_t)(len + 1) * sizeof *o->cnt);
    for (int k = 0; k < wk->nown; k++) {
        int i = wk->own[k];
        const struct eng_sm *sm = &r->sm[i];
        for (int j = 0; j < sm->nreq; j++)
            o->cnt[sm->req[j].s.t - e + 1]++;
    }
    for (uint64_t k = 1; k <= len; k++)
        o->cnt[k] += o->cnt[k - 1];
    for (int k = 0; k < wk->nown; k++) {
        int i = wk->own[k];
        struct eng_sm *sm = &r->sm[i];
        for (int j = 0; j < sm->nreq; j++) {
            struct eng_req *q = &sm->req[j];
            int p = o->cnt[q->s.t - e]++;
            o->q[p] = srv_pack(&q->s, e, i);
            o->dst[p] = &q->ready;
        }
    }
    o->n = total;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One epoch of the thread's SMs: apply last epoch's answers, step, then
 * fill the outbox.
 *
 * A thread's SMs start as every threads-th SM rather than a contiguous
 * range: SMs that run the same kernel fall into step, and their phase
 * drifts with the SM index (the L2/DRAM servers take same-cycle requests in
 * SM order, so higher SMs are answered later).  With contiguous halves one
 * thread gets the busy SMs of an epoch and the other the idle ones, and the
 * slower thread sets the pace; interleaved, each thread gets SMs of every
 * phase.  (Neighbouring SMs then belong to different threads, hence the
 * line-aligned per-SM data: eng_sm.) */
static void run_range(struct eng_run *r, struct par_worker *wk, uint64_t e, uint64_t end)
{
    int timed = wk->c->threads > 1; /* balance() reads busy */
    uint64_t t0 = timed ? now_ns() : 0;
    /* last epoch's answers into the requests, in outbox order: the serial
     * phase wrote them on another core, and a sequential read of them lets
     * the hardware prefetch it (read per SM, the order is scattered); the
     * writes go to this thread's own SMs */
    struct par_out *o = &wk->out;
    for (int p = 0; p < o->n; p++)
        *o->dst[p] = o->ans[p];
    for (int k = 0; k < wk->nown; k++) {
        int i = wk->own[k];
        struct eng_sm *sm = &r->sm[i];
        eng_sm_settle(r, i);
        while (sm->next < end)
            eng_sm_step(r, i, sm->next);
    }
    gather(r, wk, e, end);
    if (timed)
        wk->busy += now_ns() - t0;
}

/* Between epochs (every thread waits), once the threads worked at least
 * BAL_NS since the last look: if the busiest one worked longer than the
 * idlest by more than two of its SMs' shares at this look and at the one
 * before, give one of its SMs to the idlest (pick_sm).  This evens out
 * what interleaving cannot: cores that are not equally fast (virtual CPUs
 * of a shared host can differ by a third for minutes), where an even split
 * makes every epoch wait for the slow one.  The threshold and the second
 * look keep noise from moving SMs (a move on noise leaves a real gap of one
 * SM); a move can only shrink the gap, so it does not swing back, and one
 * SM at a time keeps it from overshooting.
 * Which SMs move matters: SMs running the same kernel drift in phase with
 * their index, so a thread that ends up with a run of neighbouring SMs gets
 * busy and idle epochs in turn, and each epoch waits for the busier thread
 * (run_range).  pick_sm() takes the SM in whose neighbourhood the giver has
 * the most SMs and the receiver the fewest, which keeps both threads' SMs
 * spread over the index range.
 * Moving an SM costs its state moving to another core's cache once, so SMs
 * move rarely rather than being handed out afresh every epoch.
 * Which thread steps an SM does not change the result: within an epoch
 * every SM runs alone, and the outboxes are merged in (cycle, SM) order.
 * Runs after the serial phase: the moved SM's answers, still in the old
 * owner's outbox, are applied here, and that outbox's scatter (run_range)
 * is pointed away from the SM. */
enum { BAL_NS = 8000000, BAL_WIN = 4 };

/* The position in h->own of the SM to give l: the one whose neighbours
 * (BAL_WIN indices either side) hold the most of h's SMs and the fewest of
 * l's; of equals, the highest. */
static int pick_sm(const struct par_worker *h, const struct par_worker *l, int nsm)
{
    signed char d[1024]; /* -1: h's, +1: l's (gpu.sm_count <= 1024: check_arch) */
    memset(d, 0, (size_t)nsm);
    for (int k = 0; k < h->nown; k++)
        d[h->own[k]] = -1;
    for (int k = 0; k < l->nown; k++)
        d[l->own[k]] = 1;
    int best_k = h->nown - 1, best = nsm + 1;
    for (int k = h->nown - 1; k >= 0; k--) {
        int i = h->own[k], score = 0;
        for (int j = i - BAL_WIN; j <= i + BAL_WIN; j++)
            if (j >= 0 && j < nsm)
                score += d[j];
        if (score < best) {
            best = score;
            best_k = k;
        }
    }
    return best_k;
}

/* Warp-instructions issued so far (between epochs: no thread is stepping). */
static uint64_t issued_so_far(const struct eng_run *r)
{
    uint64_t n = 0;
    for (int i = 0; i < r->a->sm_count; i++)
        for (int s = 0; s < r->sub; s++)
            n += r->sm[i].sp[s].st.inst_issued;
    return n;
}

/* Move one SM of h to l (both waiting between epochs). */
static void move_sm(struct par_worker *h, struct par_worker *l, int nsm)
{
    int pk = pick_sm(h, l, nsm);
    int i = h->own[pk];
    memmove(h->own + pk, h->own + pk + 1, (size_t)(h->nown - pk - 1) * sizeof *h->own);
    h->nown--;
    int k = l->nown++;
    while (k > 0 && l->own[k - 1] > i) { /* the receiver's list stays ascending */
        l->own[k] = l->own[k - 1];
        k--;
    }
    l->own[k] = i;
    struct par_out *o = &h->out;
    for (int p = 0; p < o->n; p++)
        if (srv_sm(&o->q[p]) == i) {
            *o->dst[p] = o->ans[p];
            o->dst[p] = &o->sink;
        }
}

/* nepoch: epochs run; every: engine_opts.rebalance_every. */
static void balance(struct par_worker *wk, int nw, int *was, uint64_t nepoch, int every,
                    int nsm)
{
    if (every > 0) {
        int h = (int)(nepoch / (uint64_t)every % (uint64_t)nw);
        if (nepoch % (uint64_t)every == 0 && wk[h].nown > 1)
            move_sm(&wk[h], &wk[(h + 1) % nw], nsm);
        return;
    }
    int hi = 0, lo = 0;
    uint64_t sum = 0;
    for (int k = 0; k < nw; k++) {
        sum += wk[k].busy;
        if (wk[k].busy > wk[hi].busy)
            hi = k;
        if (wk[k].busy < wk[lo].busy)
            lo = k;
    }
    if (sum < (uint64_t)nw * BAL_NS)
        return;
    struct par_worker *h = &wk[hi], *l = &wk[lo];
    int gap = hi != lo && h->nown > 1 && h->busy - l->busy > 2 * (h->busy / (uint64_t)h->nown);
    /* the same gap two looks in a row */
    int pair = gap ? hi * nw + lo : -1;
    int move = pair >= 0 && pair == *was;
    *was = move ? -1 : pair;
    if (move)
        move_sm(h, l, nsm);
    for (int k = 0; k < nw; k++)
        wk[k].busy = 0;
}

static void *worker(void *arg)
{
    struct par_worker *w = arg;
    struct par_ctl *c = w->c;
    /* wait until the calling thread knows how many threads really started */
    pthread_mutex_lock(&c->mu);
    while (!c->go)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
    for (;;) {
        bar_wait(&c->start, &w->s_start);
        if (c->quit)
            break;
        run_range(c->r, w, c->e, c->end);
        bar_wait(&c->done, &w->s_done);
    }
    return NULL;
}

/* Epoch end, one thread: the memory system's global stage and the
 * dispatcher, in the order that makes results independent of threads.
 * Returns the lowest cycle anything can happen next (ENG_NEVER: done), or
 * ENG_PEND on out of memory. */
static uint64_t serial_phase(struct eng_run *r, struct par_worker *wk, int nw, uint64_t e,
                             uint64_t end)
{
    uint64_t low = ENG_NEVER;
    int nfree = 0;
    for (int k = 0; k < nw; k++) {
        if (wk[k].out.oom)
            return ENG_PEND;
        if (wk[k].out.next_min < low)
            low = wk[k].out.next_min;
        nfree += wk[k].out.nfree;
    }

    /* requests: merge the sorted outboxes by (cycle, SM); within one SM
     * they are in issue order */
    for (;;) {
        int best = -1;
        uint64_t bk = 0;
        for (int k = 0; k < nw; k++) {
            const struct par_out *o = &wk[k].out;
            if (o->head == o->n)
                continue;
            uint64_t key = o->q[o->head].key;
            if (best < 0 || key < bk) {
                best = k;
                bk = key;
            }
        }
        if (best < 0)
            break;
        struct par_out *o = &wk[best].out;
        struct mem_req sv;
        srv_unpack(&o->q[o->head], e, &sv);
        uint64_t ready =
            mem_global(&r->mcfg, &r->mem, &sv, r->sm[srv_sm(&o->q[o->head])].mem.lines.v);
        o->ans[o->head++] = ready;
        if (ready < low)
            low = ready;
    }
    for (int k = 0; k < nw; k++)
        wk[k].out.head = 0;
    if (r->mem.oom)
        return ENG_PEND;

    /* freed block slots */
    if (nfree > 0) {
        uint64_t wake;
        uint64_t at = eng_disp_refill(r, end, nfree, &wake);
        if (at < low)
            low = at;
        if (wake < low)
            low = wake;
    }
    return low;
}

/* The first error of the epoch: the lowest cycle's, of equals the highest
 * SM's (the last one a cycle-by-cycle walk over the SMs would meet).  1 if
 * there was one. */
static int take_error(struct eng_run *r, const struct par_worker *wk, int nw)
{
    int any = 0;
    for (int k = 0; k < nw; k++)
        any |= wk[k].out.err;
    if (!any)
        return 0;
    int best = -1;
    for (int i = 0; i < r->a->sm_count; i++)
        if (r->sm[i].err_t != ENG_NEVER && (best < 0 || r->sm[i].err_t <= r->sm[best].err_t))
            best = i;
    if (best < 0)
        return 0;
    snprintf(r->err, 512, "%s", r->sm[best].err);
    return 1;
}

int eng_par_run(struct eng_run *r, int threads)
{
    const struct arch *a = r->a;
    int nsm = a->sm_count;
    uint64_t len_mem = mem_min_latency(a);
    uint64_t len_blk = (uint64_t)(a->block_launch_latency > 1 ? a->block_launch_latency : 1);
    uint64_t maxlen = len_mem > len_blk ? len_mem : len_blk;
    struct par_worker *wk = eng_line_calloc((size_t)threads, sizeof *wk);
    struct par_ctl c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.threads = threads;
    int ok = wk != NULL;
    for (int i = 0; ok && i < threads; i++) {
        wk[i].out.cnt = calloc((size_t)maxlen + 1, sizeof *wk[i].out.cnt);
        wk[i].own = calloc((size_t)nsm, sizeof *wk[i].own);
        ok = wk[i].out.cnt && wk[i].own;
    }
    if (!ok) {
        for (int i = 0; wk && i < threads; i++) {
            free(wk[i].out.cnt);
            free(wk[i].own);
        }
        free(wk);
        snprintf(r->err, 512, "out of memory");
        return -1;
    }
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    int started = 1;
    for (int i = 1; i < threads; i++) {
        wk[i].c = &c;
        if (pthread_create(&wk[i].th, NULL, worker, &wk[i]) != 0)
            break;
        started++;
    }
    /* fewer threads than asked (the system refused): share the SMs among
     * those that run — the result does not depend on it */
    c.threads = started;
    wk[0].c = &c;
    for (int i = 0; i < nsm; i++) {
        struct par_worker *w = &wk[i % started];
        w->own[w->nown++] = i;
    }
    bar_init(&c.start, started);
    bar_init(&c.done, started);
    pthread_mutex_lock(&c.mu);
    c.go = 1;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);

    int rc = 0;
    int bal_was = -1; /* balance(): the gap found at the last look */
    uint64_t nepoch = 0;
    uint64_t nprog = 0; /* epochs since the start, for engine_opts.progress */
    uint64_t e = ENG_NEVER;
    for (int i = 0; i < nsm; i++)
        if (r->sm[i].next < e)
            e = r->sm[i].next;
    for (;;) {
        if (e == ENG_NEVER)
            break;
        if (r->o->max_cycles && e > r->o->max_cycles) {
            snprintf(r->err, 512, "kernel '%s': simulation passed max_cycles (%llu)",
                     r->k->launch.name, (unsigned long long)r->o->max_cycles);
            rc = -1;
            break;
        }
        /* no block left to hand out: only the memory bound matters */
        uint64_t len = r->next_block < r->nblocks && len_blk < len_mem ? len_blk : len_mem;
        uint64_t end = e + len;
        if (r->o->max_cycles && end - 1 > r->o->max_cycles) /* (no wrap at 2^64 - 1) */
            end = r->o->max_cycles + 1;
        c.e = e;
        c.end = end;
        bar_wait(&c.start, &wk[0].s_start);
        run_range(r, &wk[0], e, end);
        bar_wait(&c.done, &wk[0].s_done);
        if (take_error(r, wk, started)) {
            rc = -1;
            break;
        }
        e = serial_phase(r, wk, started, e, end);
        if (e == ENG_PEND) {
            snprintf(r->err, 512, "out of memory");
            rc = -1;
            break;
        }
        if (started > 1)
            balance(wk, started, &bal_was, ++nepoch, r->o->rebalance_every, nsm);
        if (r->o->progress && (++nprog & 255) == 0)
            r->o->progress(r->o->progress_ud, issued_so_far(r));
    }
    c.quit = 1;
    bar_wait(&c.start, &wk[0].s_start);
    for (int i = 1; i < started; i++)
        pthread_join(wk[i].th, NULL);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    for (int i = 0; i < threads; i++) {
        free(wk[i].out.q);
        free(wk[i].out.ans);
        free(wk[i].out.dst);
        free(wk[i].own);
        free(wk[i].out.cnt);
    }
    free(wk);
    return rc;
}
