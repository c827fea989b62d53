/* study_run.c — simulate the points of a sweep in parallel.
 *
 * Each worker thread opens the trace itself (a trace_kernel holds per-warp
 * reader state, so it is never shared) and takes the next point number from
 * a shared counter; results land in the point's row of the table, so the
 * table — and every output — is the same for any number of workers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/engine.h"
#include "stats/stats.h"
#include "study/study.h"

int study_table_init(struct study_table *t, int nvars, long npoints, int nmetrics)
{
    memset(t, 0, sizeof *t);
    t->nvars = nvars;
    t->npoints = npoints;
    t->nmetrics = nmetrics;
    t->keys = calloc((size_t)nvars + 1, sizeof *t->keys);
    t->vals = calloc((size_t)(npoints * nvars) + 1, sizeof *t->vals);
    t->metrics = calloc((size_t)nmetrics + 1, sizeof *t->metrics);
    t->m = malloc(((size_t)(npoints * nmetrics) + 1) * sizeof *t->m);
    if (!t->keys || !t->vals || !t->metrics || !t->m) {
        study_table_free(t);
        return -1;
    }
    for (long i = 0; i < npoints * nmetrics; i++)
        t->m[i] = NAN;
    return 0;
}

void study_table_free(struct study_table *t)
{
    if (t->keys)
        for (int i = 0; i < t->nvars; i++)
            free(t->keys[i]);
    if (t->vals)
        for (long i = 0; i < t->npoints * t->nvars; i++)
            free(t->vals[i]);
    if (t->metrics)
        for (int i = 0; i < t->nmetrics; i++)
            free(t->metrics[i]);
    free(t->keys);
    free(t->vals);
    free(t->metrics);
    free(t->m);
    memset(t, 0, sizeof *t);
}

int study_table_metric(const struct study_table *t, const char *name)
{
    for (int i = 0; i < t->nmetrics; i++)
        if (!strcmp(t->metrics[i], name))
            return i;
    return -1;
}

/* --- launch adapter ------------------------------------------------------
 * A point may change the block size.  The trace reader knows its own warps
 * per block, so the engine gets a kernel whose launch is the point's and
 * whose warp g (linear over the new launch) replays warp g mod W of the
 * trace, W its warps in total: the per-warp streams keep their traced mix. */
struct relaunch {
    struct trace_kernel *inner;   /* the traced kernel                          */
    uint32_t wpb;                 /* traced warps per block                     */
    uint32_t new_wpb;             /* warps per block of the point's launch      */
    uint64_t warps;               /* traced warps in total                      */
};

static int rl_begin(struct trace_kernel *k, uint32_t block, uint32_t warp, struct tr_cursor *c)
{
    const struct relaunch *r = k->impl;
    uint64_t g = ((uint64_t)block * r->new_wpb + warp) % r->warps;
    int rc = r->inner->ops->warp_begin(r->inner, (uint32_t)(g / r->wpb), (uint32_t)(g % r->wpb), c);
    k->error = r->inner->error; /* the reader's message, if it failed */
    return rc;
}

static const struct tr_inst *rl_next(struct trace_kernel *k, struct tr_cursor *c,
                                     struct tr_dyn *dyn)
{
    const struct relaunch *r = k->impl;
    return r->inner->ops->warp_next(r->inner, c, dyn);
}

static void rl_end(struct trace_kernel *k, struct tr_cursor *c)
{
    const struct relaunch *r = k->impl;
    if (r->inner->ops->warp_end)
        r->inner->ops->warp_end(r->inner, c);
}

static uint64_t rl_count(struct trace_kernel *k, uint32_t block, uint32_t warp)
{
    const struct relaunch *r = k->impl;
    uint64_t g = ((uint64_t)block * r->new_wpb + warp) % r->warps;
    return tr_warp_insts(r->inner, (uint32_t)(g / r->wpb), (uint32_t)(g % r->wpb));
}

static void rl_destroy(struct trace_kernel *k)
{
    (void)k; /* the adapter lives on the caller's stack */
}

static uint64_t rl_bound(struct trace_kernel *k)
{
    const struct relaunch *r = k->impl;
    return r->inner->ops->warp_bound(r->inner); /* warp g replays one of the inner's */
}

/* Two tables: the adapter has a bound exactly when the reader has one. */
static const struct trace_ops relaunch_ops = { rl_begin, rl_next, rl_end, rl_destroy, rl_count,
                                               rl_bound };
static const struct trace_ops relaunch_ops_nb = { rl_begin, rl_next, rl_end, rl_destroy,
                                                  rl_count, NULL };

/* The engine's view of kernel k at a point's launch (rl and w on the
 * caller's stack). */
static void relaunch_wrap(struct trace_kernel *k, const struct tr_launch *launch,
                          struct relaunch *rl, struct trace_kernel *w)
{
    *rl = (struct relaunch){ k, tr_warps_per_block(&k->launch), tr_warps_per_block(launch),
                             tr_grid_blocks(&k->launch) * tr_warps_per_block(&k->launch) };
    memset(w, 0, sizeof *w);
    w->ops = k->ops->warp_bound ? &relaunch_ops : &relaunch_ops_nb;
    w->launch = *launch;
    w->impl = rl;
    w->mt_safe = k->mt_safe;
    /* every warp of a kernel with an exact hint runs the same count */
    uint64_t h = k->warp_insts_hint, warps = tr_grid_blocks(launch) * rl->new_wpb;
    if (h && rl->warps) {
        uint64_t per = h == UINT64_MAX ? UINT64_MAX : h / rl->warps;
        if (__builtin_mul_overflow(per, warps, &w->warp_insts_hint))
            w->warp_insts_hint = UINT64_MAX;
    }
}

/* Run one point: 0, or -1 with a message in err. */
static int run_point(const struct study_plan *p, struct trace_kernel *k, long point,
                     struct study_table *t, int *nm_out, const char **names,
                     char err[STUDY_ERR_MAX])
{
    struct study_point pt;
    if (study_point_prepare(p, &k->launch, point, &pt, err))
        return -1;
    struct relaunch rl;
    struct trace_kernel wrapped;
    relaunch_wrap(k, &pt.launch, &rl, &wrapped);
    wrapped.mt_safe = 0; /* one engine thread per point, as before */
    struct engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.seed = p->seed;
    eo.blocks_per_sm_cap = pt.blocks_per_sm_cap;
    eo.carveout_pct = p->carveout_pct;
    eo.max_cycles = p->max_cycles;
    struct stats_kernel st;
    char eerr[512];
    if (engine_run(&pt.a, &wrapped, &eo, &st, eerr)) {
        char label[400];
        study_point_label(p->vars, p->nvars, point, label, sizeof label);
        snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): %s", point, label, eerr);
        return -1;
    }
    struct stats_metric m[STATS_METRICS_MAX];
    int nm = stats_metrics(&st, &pt.a, m, STATS_METRICS_MAX);
    stats_kernel_free(&st);
    if (nm > t->nmetrics)
        nm = t->nmetrics;
    for (int i = 0; i < nm; i++) {
        t->m[point * t->nmetrics + i] = m[i].value;
        names[i] = m[i].name; /* string literals (stats.h) */
    }
    *nm_out = nm;
    return 0;
}

struct shared {
    const struct study_plan *p;   /* the sweep                                   */
    struct trace_file *tf;        /* the trace every worker reads (its kernel is
                                     mt_safe), or NULL: each opens its own       */
    struct study_table *t;        /* results                                     */
    pthread_mutex_t mu;           /* guards everything below                     */
    long next;                    /* next point to take                          */
    long done;                    /* points finished                             */
    long fail;                    /* lowest failing point, or -1                 */
    char err[STUDY_ERR_MAX];      /* its message                                 */
    int progress;                 /* draw the bar                                */
    int nm;                       /* metrics per point                           */
    const char *names[STATS_METRICS_MAX]; /* their names                         */
};

void study_progress(const char *what, long done, long total)
{
    enum { W = 40 };
    char bar[W + 1];
    int fill = total ? (int)(done * W / total) : W;
    for (int i = 0; i < W; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[W] = '\0';
    fprintf(stderr, "\r%s [%s] %ld/%ld", what, bar, done, total);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

static void *worker(void *arg)
{
    struct shared *s = arg;
    char terr[TRACE_ERR_MAX];
    struct trace_file *tf = s->tf ? s->tf : trace_open(s->p->trace, terr);
    for (;;) {
        pthread_mutex_lock(&s->mu);
        long pt = -1;
        if (s->fail < 0 && s->next < s->t->npoints)
            pt = s->next++;
        pthread_mutex_unlock(&s->mu);
        if (pt < 0)
            break;
        char err[STUDY_ERR_MAX];
        const char *names[STATS_METRICS_MAX];
        int nm = 0, rc;
        if (!tf) {
            snprintf(err, STUDY_ERR_MAX, "%s", terr);
            rc = -1;
        } else {
            rc = run_point(s->p, tf->kernels[s->p->kernel], pt, s->t, &nm, names, err);
        }
        pthread_mutex_lock(&s->mu);
        if (rc) {
            if (s->fail < 0 || pt < s->fail) {
                s->fail = pt;
                memcpy(s->err, err, sizeof s->err);
            }
        } else if (!s->nm) {
            s->nm = nm;
            memcpy(s->names, names, sizeof names);
        }
        s->done++;
        if (s->progress && s->fail < 0)
            study_progress("sweep", s->done, s->t->npoints);
        pthread_mutex_unlock(&s->mu);
    }
    if (tf && tf != s->tf)
        trace_close(tf);
    return NULL;
}

int study_run(const struct study_plan *p, int jobs, int progress, struct study_table *t,
              char err[STUDY_ERR_MAX])
{
    memset(t, 0, sizeof *t);
    long np = study_npoints(p->vars, p->nvars);
    if (np < 0) {
        snprintf(err, STUDY_ERR_MAX, "smsim: the sweep has more than %d points",
                 STUDY_MAX_POINTS);
        return -1;
    }
    /* validate every point before simulating any; the trace is read once
     * here (a pipe can be read only once) unless the caller has it open */
    char terr[TRACE_ERR_MAX];
    struct trace_file *tf = p->tf, *own = NULL;
    if (!tf && !(tf = own = trace_open(p->trace, terr))) {
        snprintf(err, STUDY_ERR_MAX, "%s", terr);
        return -1;
    }
    if (p->kernel < 0 || p->kernel >= tf->nkernels) {
        snprintf(err, STUDY_ERR_MAX, "smsim: --kernel %d: the trace has %d kernel%s", p->kernel,
                 tf->nkernels, tf->nkernels == 1 ? "" : "s");
        trace_close(own);
        return -1;
    }
    struct trace_kernel *k = tf->kernels[p->kernel];
    struct tr_launch traced = k->launch;
    struct study_point pt;
    int traced_ok = 0; /* the traced launch passed the instruction limit */
    for (long i = 0; i < np; i++) {
        if (study_point_prepare(p, &traced, i, &pt, err)) {
            trace_close(own);
            return -1;
        }
        if (!p->max_insts || (traced_ok && !memcmp(&pt.launch, &traced, sizeof traced)))
            continue;
        struct relaunch rl;
        struct trace_kernel w;
        relaunch_wrap(k, &pt.launch, &rl, &w);
        char msg[STUDY_ERR_MAX - 400];
        if (study_insts_check(&w, p->max_insts, msg, sizeof msg)) {
            char label[300];
            study_point_label(p->vars, p->nvars, i, label, sizeof label);
            snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): %s", i, label, msg);
            trace_close(own);
            return -1;
        }
        if (!memcmp(&pt.launch, &traced, sizeof traced))
            traced_ok = 1;
    }
    /* workers share the open trace when its reader allows it (both
     * readers do); else each opens its own, which only a file allows */
    struct trace_file *shared = k->mt_safe ? tf : NULL;
    if (!shared) {
        trace_close(own);
        own = NULL;
    }
    if (study_table_init(t, p->nvars, np, STATS_METRICS_MAX))
        goto nomem;
    {
        /* the base configuration names the table */
        struct arch a;
        char aerr[ARCH_ERR_MAX];
        if (!arch_load(p->config, p->base, p->nbase, &a, aerr))
            snprintf(t->config_name, sizeof t->config_name, "%s", a.name);
    }
    snprintf(t->kernel_name, sizeof t->kernel_name, "%s", traced.name);
    for (int i = 0; i < p->nvars; i++)
        if (!(t->keys[i] = strdup(p->vars[i].key)))
            goto nomem;
    for (long i = 0; i < np; i++) {
        int idx[STUDY_MAX_VARS];
        study_point_index(p->vars, p->nvars, i, idx);
        for (int j = 0; j < p->nvars; j++)
            if (!(t->vals[i * p->nvars + j] = strdup(p->vars[j].values[idx[j]])))
                goto nomem;
    }

    struct shared *s = calloc(1, sizeof *s);
    if (!s)
        goto nomem;
    s->p = p;
    s->tf = shared;
    s->t = t;
    s->fail = -1;
    s->progress = progress;
    pthread_mutex_init(&s->mu, NULL);
    if (jobs < 1)
        jobs = 1;
    if (jobs > np)
        jobs = (int)np;
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    int started = 0;
    if (th)
        for (; started < jobs; started++)
            if (pthread_create(&th[started], NULL, worker, s))
                break;
    if (started == 0)
        worker(s); /* no threads available: run here */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&s->mu);
    int rc = 0;
    if (s->fail >= 0) {
        if (progress)
            fputc('\n', stderr);
        memcpy(err, s->err, STUDY_ERR_MAX);
        rc = -1;
    } else {
        /* keep only the metric columns the engine produced */
        long nm = s->nm;
        double *m = malloc(((size_t)(np * nm) + 1) * sizeof *m);
        if (!m) {
            free(s);
            goto nomem;
        }
        for (long i = 0; i < np; i++)
            memcpy(m + i * nm, t->m + i * t->nmetrics, (size_t)nm * sizeof *m);
        free(t->m);
        t->m = m;
        t->nmetrics = (int)nm;
        for (int i = 0; i < nm; i++)
            if (!(t->metrics[i] = strdup(s->names[i]))) {
                free(s);
                goto nomem;
            }
    }
    free(s);
    trace_close(own);
    if (rc)
        study_table_free(t);
    return rc;
nomem:
    trace_close(own);
    study_table_free(t);
    snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
    return -1;
}
