/* eng_par.c — simulating the SMs on several threads with results
 * byte-identical to the serial engine (docs/performance.md).
 *
 * SMs interact only through the L2/DRAM servers and the block dispatcher.
 * Neither answers within a bounded time:
 *   - a request that reaches L2 is ready at least L = min(l2_latency,
 *     dram_latency) cycles after it issued (eng_mem.c adds that latency after
 *     the server), and
 *   - a block slot freed at t is refilled at t + max(1, block_launch_latency).
 * So time is cut into epochs [E, E + len) with len at most both bounds: within
 * an epoch every SM runs alone (its own thread), a request's answer is a
 * placeholder later than the epoch, and freed slots wait.  At the epoch end
 * one thread feeds all requests of the epoch to the servers in the serial
 * engine's order — by cycle, then SM index, then issue order — and hands out
 * blocks in the serial dispatcher's order (cycle, rank, SM).  These are the
 * same computations on the same inputs, so every answer, and everything that
 * follows from it, equals the serial run.  At the start of the next epoch
 * each SM applies its answers (sm_settle).
 *
 * What crosses between threads is kept small and in bulk, because a cache
 * line written by one core and read by another costs a transfer each way
 * per epoch, and memory-bound kernels run an epoch every 100-280 simulated
 * cycles (docs/performance.md).  At its epoch end each thread sorts the
 * requests of the SMs it stepped into one outbox array (par_out) and sums
 * those SMs up (the earliest next cycle, freed slots, errors); the serial phase reads only
 * the outboxes and the sums, merges the sorted outboxes, and writes the
 * answers into one array per thread; an SM's own structures are touched by
 * another thread only when it freed a block slot or failed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/eng_internal.h"

/* The epoch barrier.  An epoch is short (100-300 simulated cycles, tens to
 * hundreds of microseconds of work), so a barrier that puts threads to sleep
 * (pthread_barrier_wait: a futex wake per epoch) costs a visible share of the
 * run, and far more where system calls are slow (measured on a gVisor
 * sandbox: stream_copy on two threads only 1.14x faster, docs/performance.md).
 * A waiting thread therefore spins on the round's sense flag and yields its
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
    struct par_worker *wk;      /* [threads] the workers                          */
    int threads;                /* workers, the calling thread included           */
    uint64_t e, end;            /* current epoch: step cycles in [e, end)         */
    int par;                    /* the epoch's parity (which answer arrays)        */
    int quit;                   /* workers leave at the next start                */
    int go;                     /* 1 once threads and barriers are final          */
    pthread_mutex_t mu;         /* guards go                                      */
    pthread_cond_t cv;          /* signals go                                     */
    struct par_bar start;       /* epoch begins                                   */
    struct par_bar done;        /* every SM reached the epoch end                 */
};

/* A request in a thread's outbox: the servers' inputs and the second sort
 * key. */
struct par_srv {
    struct eng_srv s;           /* the servers' inputs                            */
    int sm;                     /* issuing SM                                     */
};

/* What one thread hands the serial phase at an epoch end, and gets back. */
struct par_out {
    struct par_srv *q;          /* [n] its SMs' requests, (cycle, SM, issue) order */
    uint64_t *ans[2];           /* [n] their answers (serial phase), by epoch parity:
                                   another thread may still read last epoch's while
                                   this one gathers (run_epoch)                    */
    int n;                      /* used                                           */
    int qcap, acap[2];          /* allocated entries of q and of ans[0], ans[1]   */
    int head;                   /* serial phase: next entry of q to resolve       */
    int *cnt;                   /* [longest epoch + 1] counting sort by cycle      */
    uint64_t next_min;          /* earliest next cycle of its SMs                 */
    int nfree;                  /* block slots its SMs freed this epoch           */
    int err;                    /* 1: one of its SMs failed                       */
    int oom;                    /* 1: the outbox could not grow                   */
};

/* One thread's share: line-aligned (eng_line_calloc), since each is written
 * by its own thread.  `cur` is alone in its line: the owner claims its SMs
 * through it, and another thread only touches it once it ran out of its
 * own SMs (run_epoch). */
struct par_worker {
    _Alignas(64) atomic_int cur;/* next entry of own[] to claim this epoch        */
    _Alignas(64) struct par_ctl *c; /* shared control                             */
    int id;                     /* index in the worker array                       */
    int *own;                   /* [nown] its SMs: id, id + threads, id + 2 threads, ... */
    int nown;                   /* entries in own                                  */
    int *did;                   /* [sm_count] SMs it stepped this epoch            */
    int ndid;                   /* entries in did                                  */
    int s_start, s_done;        /* this thread's senses of the two barriers       */
    pthread_t th;               /* the thread (workers 1..)                       */
    struct par_out out;         /* its outbox                                     */
};

/* Grow *p to at least n entries of `size` bytes (old contents dropped).
 * 0, or -1 when out of memory. */
static int grow(void **p, int *cap, int n, size_t size)
{
    if (n <= *cap)
        return 0;
    int c = n + n / 2 + 64;
    free(*p);
    *p = eng_line_calloc((size_t)c, size);
    *cap = *p ? c : 0;
    return *p ? 0 : -1;
}

static void sort_ints(int *v, int n)
{
    /* insertion sort: did[] is its own SMs in order, then a few taken over */
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

/* Epoch end, on the thread: sum up the SMs it stepped and sort their
 * requests of the epoch [e, end) into its outbox, by cycle, then SM, then
 * issue order (each SM's own requests are in issue order, hence in cycle
 * order); par: the epoch's parity, which answer array the serial phase
 * fills. */
static void gather(struct eng_run *r, struct par_worker *wk, int par, uint64_t e, uint64_t end)
{
    struct par_out *o = &wk->out;
    int total = 0, nfree = 0, err = 0;
    uint64_t nm = ENG_NEVER;
    sort_ints(wk->did, wk->ndid);
    for (int k = 0; k < wk->ndid; k++) {
        const struct eng_sm *sm = &r->sm[wk->did[k]];
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
    if (grow((void **)&o->q, &o->qcap, total, sizeof *o->q) ||
        grow((void **)&o->ans[par], &o->acap[par], total, sizeof *o->ans[par])) {
        o->oom = 1;
        return;
    }
    uint64_t len = end - e;
    memset(o->cnt, 0, (size_t)(len + 1) * sizeof *o->cnt);
    for (int k = 0; k < wk->ndid; k++) {
        const struct eng_sm *sm = &r->sm[wk->did[k]];
        for (int j = 0; j < sm->nreq; j++)
            o->cnt[sm->req[j].s.t - e + 1]++;
    }
    for (uint64_t k = 1; k <= len; k++)
        o->cnt[k] += o->cnt[k - 1];
    for (int k = 0; k < wk->ndid; k++) {
        int i = wk->did[k];
        struct eng_sm *sm = &r->sm[i];
        sm->box = wk->id;
        for (int j = 0; j < sm->nreq; j++) {
            struct eng_req *q = &sm->req[j];
            int p = o->cnt[q->s.t - e]++;
            o->q[p].s = q->s;
            o->q[p].sm = i;
            q->pos = p;
        }
    }
    o->n = total;
}

/* One SM's epoch: apply last epoch's answers (in the outbox of the thread
 * that gathered it, of parity 1 - par), then step it to the epoch end. */
static void run_sm(struct eng_run *r, const struct par_worker *all, int i, int par,
                   uint64_t end)
{
    struct eng_sm *sm = &r->sm[i];
    if (sm->nreq) {
        const uint64_t *ans = all[sm->box].out.ans[!par];
        for (int j = 0; j < sm->nreq; j++)
            sm->req[j].ready = ans[sm->req[j].pos];
    }
    sm_settle(r, i);
    while (sm->next < end)
        sm_step(r, i, sm->next);
}

/* One thread's epoch: its own SMs, then whatever the other threads have
 * not claimed yet, then its outbox.
 *
 * Own SMs are every threads-th SM rather than a contiguous range: SMs that
 * run the same kernel fall into step, and their phase drifts with the SM
 * index (the L2/DRAM servers take same-cycle requests in SM order, so
 * higher SMs are answered later).  With halves, one thread got the busy
 * SMs of an epoch and the other the idle ones: on dram_chain
 * (docs/performance.md) the epoch times alternated in a three-epoch cycle
 * between 5 and 120 us per thread, and the slower thread set the pace.
 * Interleaved, each thread gets SMs of every phase.  (Neighbouring SMs then
 * belong to different threads, hence the line-aligned per-SM data:
 * eng_sm.)
 *
 * Taking over the unclaimed SMs of the others evens out what interleaving
 * cannot: SMs whose work differs within an epoch, and cores that are not
 * equally fast (on a shared VM one vCPU ran a third slower than the other
 * for minutes, docs/performance.md).  Which thread steps an SM does not
 * change the result: within an epoch every SM runs alone, and the outboxes
 * are merged in (cycle, SM) order whoever gathered them.  A claim is an
 * atomic increment of the owner's counter, in a line of its own, so a
 * thread's claims of its own SMs stay in its cache until another thread
 * comes to help near the epoch's end. */
static void run_epoch(struct eng_run *r, struct par_worker *all, struct par_worker *wk,
                      int nw, int par, uint64_t e, uint64_t end)
{
    wk->ndid = 0;
    for (int v = 0; v < nw; v++) {
        struct par_worker *o = &all[(wk->id + v) % nw];
        for (;;) {
            int k = atomic_fetch_add_explicit(&o->cur, 1, memory_order_relaxed);
            if (k >= o->nown)
                break;
            int i = o->own[k];
            wk->did[wk->ndid++] = i;
            run_sm(r, all, i, par, end);
        }
    }
    gather(r, wk, par, e, end);
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
        run_epoch(c->r, c->wk, w, c->threads, c->par, c->e, c->end);
        bar_wait(&c->done, &w->s_done);
        /* nobody claims again before the next start */
        atomic_store_explicit(&w->cur, 0, memory_order_relaxed);
    }
    return NULL;
}

/* Epoch end, one thread: the servers and the dispatcher in serial order.
 * Returns the lowest cycle anything can happen next (ENG_NEVER: done), or
 * ENG_PEND on out of memory. */
static uint64_t serial_phase(struct eng_run *r, struct par_worker *wk, int nw, int par)
{
    int nsm = r->a->sm_count;
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
        uint64_t bt = 0;
        int bsm = 0;
        for (int k = 0; k < nw; k++) {
            const struct par_out *o = &wk[k].out;
            if (o->head == o->n)
                continue;
            const struct par_srv *q = &o->q[o->head];
            if (best < 0 || q->s.t < bt || (q->s.t == bt && q->sm < bsm)) {
                best = k;
                bt = q->s.t;
                bsm = q->sm;
            }
        }
        if (best < 0)
            break;
        struct par_out *o = &wk[best].out;
        uint64_t ready = mem_resolve(r, &o->q[o->head].s);
        o->ans[par][o->head++] = ready;
        if (ready < low)
            low = ready;
    }
    for (int k = 0; k < nw; k++)
        wk[k].out.head = 0;

    /* freed block slots: cycle by cycle, each cycle's slots in SM order */
    while (nfree > 0) {
        uint64_t t = ENG_NEVER;
        for (int i = 0; i < nsm; i++)
            if (r->sm[i].nfr && r->sm[i].fr[0].t < t)
                t = r->sm[i].fr[0].t;
        if (t == ENG_NEVER)
            break;
        r->nfreed = 0;
        for (int i = 0; i < nsm; i++) {
            struct eng_sm *sm = &r->sm[i];
            int k = 0;
            while (k < sm->nfr && sm->fr[k].t == t) {
                r->freed[r->nfreed].sm = i;
                r->freed[r->nfreed].bslot = sm->fr[k].bslot;
                r->freed[r->nfreed].rank = sm->fr[k].rank;
                r->nfreed++;
                k++;
            }
            memmove(sm->fr, sm->fr + k, (size_t)(sm->nfr - k) * sizeof *sm->fr);
            sm->nfr -= k;
        }
        nfree -= r->nfreed;
        /* the SMs that got a block look again at its launch */
        uint64_t at = gpu_assign_freed(r, t);
        if (at < low)
            low = at;
    }
    return low;
}

/* The first error of the epoch (lowest cycle; the serial engine keeps the
 * last message of that cycle, i.e. the highest SM's).  1 if there was one. */
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

static void free_workers(struct par_worker *wk, int n)
{
    for (int i = 0; wk && i < n; i++) {
        free(wk[i].out.q);
        free(wk[i].out.ans[0]);
        free(wk[i].out.ans[1]);
        free(wk[i].out.cnt);
        free(wk[i].own);
        free(wk[i].did);
    }
    free(wk);
}

int par_run(struct eng_run *r, int threads)
{
    const struct arch *a = r->a;
    int nsm = a->sm_count;
    int lmem = a->l2_latency < a->dram_latency ? a->l2_latency : a->dram_latency;
    uint64_t len_mem = (uint64_t)(lmem > 1 ? lmem : 1);
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
        wk[i].own = eng_line_calloc((size_t)nsm, sizeof *wk[i].own);
        wk[i].did = eng_line_calloc((size_t)nsm, sizeof *wk[i].did);
        ok = wk[i].out.cnt && wk[i].own && wk[i].did;
    }
    if (!ok) {
        free_workers(wk, threads);
        snprintf(r->err, 512, "out of memory");
        return -1;
    }
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    int started = 1;
    for (int i = 1; i < threads; i++) {
        wk[i].c = &c;
        wk[i].id = i;
        if (pthread_create(&wk[i].th, NULL, worker, &wk[i]) != 0)
            break;
        started++;
    }
    /* fewer threads than asked (the system refused): share the SMs among
     * those that run — the result does not depend on it */
    c.threads = started;
    c.wk = wk;
    wk[0].c = &c;
    wk[0].id = 0;
    for (int i = 0; i < nsm; i++) {
        struct par_worker *o = &wk[i % started];
        o->own[o->nown++] = i;
    }
    bar_init(&c.start, started);
    bar_init(&c.done, started);
    pthread_mutex_lock(&c.mu);
    c.go = 1;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);

    int rc = 0;
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
        if (r->o->max_cycles && end > r->o->max_cycles + 1)
            end = r->o->max_cycles + 1;
        c.e = e;
        c.end = end;
        bar_wait(&c.start, &wk[0].s_start);
        run_epoch(r, wk, &wk[0], started, c.par, e, end);
        bar_wait(&c.done, &wk[0].s_done);
        atomic_store_explicit(&wk[0].cur, 0, memory_order_relaxed);
        if (take_error(r, wk, started)) {
            rc = -1;
            break;
        }
        e = serial_phase(r, wk, started, c.par);
        c.par = !c.par;
        if (e == ENG_PEND) {
            snprintf(r->err, 512, "out of memory");
            rc = -1;
            break;
        }
    }
    c.quit = 1;
    bar_wait(&c.start, &wk[0].s_start);
    for (int i = 1; i < started; i++)
        pthread_join(wk[i].th, NULL);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    free_workers(wk, threads);
    return rc;
}
