/* study_validate.c — simulate every measured launch of a manifest and compare
 * with what Nsight Compute measured (docs/validation.md).
 *
 * Every selected row is checked first (its CSV row exists, its trace opens,
 * its launch can run), so a typo fails in a second, not after an hour of
 * simulation.  Points then run on `jobs` threads, largest first (the longest
 * simulations start early, so the pool finishes together); each result lands
 * in its point's slot, so reports do not depend on the number of jobs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_statistics_double.h>
#include "engine/engine.h"
#include "occ/occ.h"
#include "stats/stats.h"
#include "study/study_validate.h"
#include "ncu/ncu_csv.h"
#include "trace/trace.h"

/* The compared metrics (ncu names; docs/metrics.md gives smsim's formulas). */
static const char *const metric_names[VAL_NMETRICS] = {
    "sm__warps_active.avg.pct_of_peak_sustained_active",  /* Achieved Occupancy           */
    "smsp__issue_active.avg.per_cycle_active",            /* Issued Warp Per Scheduler    */
    "smsp__warps_eligible.avg.per_cycle_active",          /* Eligible Warps Per Scheduler */
    "smsp__average_warp_latency_per_inst_issued.ratio",   /* Warp Cycles Per Issued Inst. */
    "sm__cycles_elapsed.avg",                             /* Elapsed Cycles               */
};
static const char *const metric_short[VAL_NMETRICS] = {
    "occupancy %", "issue active", "eligible warps", "warp cyc/inst", "cycles"
};

/* The compared hit rates (docs/metrics.md: sector hits / sectors x 100). */
static const char *const hit_names[VAL_NHIT] = {
    "l1tex__t_sector_hit_rate.pct",                       /* L1/TEX Hit Rate              */
    "lts__t_sector_hit_rate.pct",                         /* L2 Hit Rate                  */
};
static const char *const hit_short[VAL_NHIT] = { "L1 hit %", "L2 hit %" };

/* The saturation curve: issue active (metric 1) against warps per scheduler,
 * threshold 95 % of the plateau (the definition). */
enum { VAL_SAT_METRIC = 1 };
static const double sat_threshold = 0.95;

const char *val_metric_name(int i)
{
    return i >= 0 && i < VAL_NMETRICS ? metric_names[i] : NULL;
}

const char *val_metric_short(int i)
{
    return i >= 0 && i < VAL_NMETRICS ? metric_short[i] : NULL;
}

const char *val_hit_name(int i)
{
    return i >= 0 && i < VAL_NHIT ? hit_names[i] : NULL;
}

const char *val_hit_short(int i)
{
    return i >= 0 && i < VAL_NHIT ? hit_short[i] : NULL;
}

/* --- manifest ------------------------------------------------------------ */

void val_manifest_free(struct val_manifest *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->c[i].name);
        free(m->c[i].trace);
        free(m->c[i].ncu_csv);
        free(m->c[i].ncu_id);
    }
    free(m->c);
    free(m->path);
    memset(m, 0, sizeof *m);
}

/* Split `line` at TABs into at most `max` fields (in place); their count.
 * col[i] is each field's 1-based column. */
static int split_tabs(char *line, char **f, int *col, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n < max) {
            f[n] = p;
            col[n] = (int)(p - line) + 1;
        }
        n++;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

int val_manifest_load(const char *path, struct val_manifest *m, char err[STUDY_ERR_MAX])
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, STUDY_ERR_MAX, "%s: cannot open the manifest: %s", path, strerror(errno));
        return -1;
    }
    m->path = strdup(path);
    static const char *const want[5] = { "case", "blocks_per_sm", "trace", "ncu_csv", "ncu_id" };
    int at[5] = { -1, -1, -1, -1, -1 };
    int have_header = 0, lineno = 0, cap = 0, rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    if (!m->path)
        goto nomem;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        enum { MAXF = 32 };
        char *fld[MAXF];
        int col[MAXF];
        int nf = split_tabs(line, fld, col, MAXF);
        if (nf > MAXF)
            nf = MAXF;
        if (!have_header) {
            for (int i = 0; i < nf; i++)
                for (int k = 0; k < 5; k++)
                    if (!strcmp(fld[i], want[k]) && at[k] < 0)
                        at[k] = i;
            for (int k = 0; k < 5; k++)
                if (at[k] < 0) {
                    snprintf(err, STUDY_ERR_MAX,
                             "%s:%d:1: header has no column '%s' (expected TAB-separated "
                             "case, blocks_per_sm, trace, ncu_csv, ncu_id)",
                             path, lineno, want[k]);
                    goto done;
                }
            have_header = 1;
            continue;
        }
        for (int k = 0; k < 5; k++)
            if (at[k] >= nf || fld[at[k]][0] == '\0') {
                int c = at[k] < nf ? col[at[k]] : (int)len + 1;
                snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: missing %s (%d field%s, need %d)",
                         path, lineno, c, want[k], nf, nf == 1 ? "" : "s", at[k] + 1);
                goto done;
            }
        const char *bs = fld[at[1]];
        char *end;
        errno = 0;
        long b = (bs[0] >= '0' && bs[0] <= '9') ? strtol(bs, &end, 10) : -1;
        if (b < 1 || b > 1024 || *end || errno) {
            snprintf(err, STUDY_ERR_MAX,
                     "%s:%d:%d: blocks_per_sm '%s': expected an integer in 1..1024", path,
                     lineno, col[at[1]], bs);
            goto done;
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            struct val_case *g = realloc(m->c, (size_t)cap * sizeof *g);
            if (!g)
                goto nomem;
            m->c = g;
        }
        struct val_case *c = &m->c[m->n];
        memset(c, 0, sizeof *c);
        m->n++;
        c->blocks_per_sm = (int)b;
        c->line = lineno;
        c->col_trace = col[at[2]];
        c->col_csv = col[at[3]];
        c->col_id = col[at[4]];
        c->name = strdup(fld[at[0]]);
        c->trace = strdup(fld[at[2]]);
        c->ncu_csv = strdup(fld[at[3]]);
        c->ncu_id = strdup(fld[at[4]]);
        if (!c->name || !c->trace || !c->ncu_csv || !c->ncu_id)
            goto nomem;
    }
    if (!have_header) {
        snprintf(err, STUDY_ERR_MAX,
                 "%s:%d:1: empty manifest: expected a header row (case, blocks_per_sm, trace, "
                 "ncu_csv, ncu_id)",
                 path, lineno + 1);
        goto done;
    }
    if (m->n == 0) {
        snprintf(err, STUDY_ERR_MAX, "%s:%d:1: the manifest lists no launch", path, lineno + 1);
        goto done;
    }
    rc = 0;
    goto done;
nomem:
    snprintf(err, STUDY_ERR_MAX, "%s: out of memory", path);
done:
    free(line);
    fclose(f);
    if (rc)
        val_manifest_free(m);
    return rc;
}

/* --- statistics ---------------------------------------------------------- */

double val_err_pct(double meas, double pred)
{
    if (meas == 0)
        return pred == 0 ? 0.0 : NAN;
    return 100.0 * (pred - meas) / fabs(meas);
}

void val_stats(const double *meas, const double *pred, int n, struct val_stat *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0, mx = 0;
    for (int i = 0; i < n; i++) {
        double e = val_err_pct(meas[i], pred[i]);
        if (isnan(e)) {
            s->nzero++;
            continue;
        }
        s->n++;
        sum += fabs(e);
        if (fabs(e) > mx)
            mx = fabs(e);
    }
    s->mape = s->n ? sum / s->n : NAN;
    s->max_err = s->n ? mx : NAN;
    s->pearson = NAN;
    if (n >= 2) {
        double vm = gsl_stats_variance(meas, 1, (size_t)n);
        double vp = gsl_stats_variance(pred, 1, (size_t)n);
        if (vm > 0 && vp > 0)
            s->pearson = gsl_stats_correlation(meas, 1, pred, 1, (size_t)n);
    }
}

void val_hit_stats(const double *meas, const double *pred, int n, struct val_hit_stat *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0, mx = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(meas[i])) {
            s->nmissing++;
            continue;
        }
        if (isnan(pred[i]))
            continue;
        double d = fabs(pred[i] - meas[i]);
        s->n++;
        sum += d;
        if (d > mx)
            mx = d;
        if (d <= VAL_HIT_WITHIN_PP)
            s->within++;
    }
    s->mean_abs_pp = s->n ? sum / s->n : NAN;
    s->max_abs_pp = s->n ? mx : NAN;
}

double val_sat_point(const double *x, const double *y, int n, double threshold)
{
    struct study_sat s;
    if (n < 1 || study_saturation(x, y, n, threshold, 0.02, &s) || !(s.plateau > 0))
        return NAN;
    return x[s.sat];
}

/* --- preparing the points ------------------------------------------------ */

/* A loaded CSV, shared by the rows that name it. */
struct csv_entry {
    const char *path;          /* as the manifest names it (borrowed)   */
    struct ncu_table t;        /* the table                             */
};

/* Everything a worker needs for one point. */
struct job {
    const char *trace;         /* path (borrowed from the manifest)     */
    int cap;                   /* engine cap                            */
    int nstall;                /* reasons to predict                    */
    char reason[VAL_TOP][48];  /* their names                           */
};

/* Is `path` inside directory `dir` (lexically, after "./" prefixes)? */
static int under_dir(const char *path, const char *dir)
{
    while (!strncmp(path, "./", 2))
        path += 2;
    while (!strncmp(dir, "./", 2))
        dir += 2;
    size_t n = strlen(dir);
    while (n > 0 && dir[n - 1] == '/')
        n--;
    if (n == 0 || (n == 1 && dir[0] == '.'))
        return 1;
    return !strncmp(path, dir, n) && path[n] == '/';
}

/* The measured top stall reasons of a row (largest first, ties by name;
 * "selected" is not a stall and is left out; zeros are not listed). */
static int measured_top(const struct ncu_table *t, int row, struct val_point *p,
                        char err[STUDY_ERR_MAX])
{
    size_t lp = strlen(VAL_STALL_PREFIX), ls = strlen(VAL_STALL_SUFFIX);
    p->nstall = 0;
    for (int c = 0; c < t->ncols; c++) {
        const char *nm = t->names[c];
        size_t ln = strlen(nm);
        if (ln <= lp + ls || strncmp(nm, VAL_STALL_PREFIX, lp) ||
            strcmp(nm + ln - ls, VAL_STALL_SUFFIX))
            continue;
        size_t rl = ln - lp - ls;
        if (rl >= sizeof p->stall[0].reason)
            continue;
        char reason[48];
        memcpy(reason, nm + lp, rl);
        reason[rl] = '\0';
        if (!strcmp(reason, "selected"))
            continue;
        double v;
        char e[NCU_ERR_MAX];
        int rc = ncu_value(t, row, c, &v, e);
        if (rc < 0) {
            snprintf(err, STUDY_ERR_MAX, "%s", e);
            return -1;
        }
        if (rc > 0 || !(v > 0))
            continue;
        /* insert into the sorted top list */
        int at = p->nstall;
        while (at > 0 && (v > p->stall[at - 1].meas ||
                          (v == p->stall[at - 1].meas && strcmp(reason, p->stall[at - 1].reason) < 0)))
            at--;
        if (at >= VAL_TOP)
            continue;
        int last = p->nstall < VAL_TOP ? p->nstall : VAL_TOP - 1;
        for (int k = last; k > at; k--)
            p->stall[k] = p->stall[k - 1];
        snprintf(p->stall[at].reason, sizeof p->stall[at].reason, "%s", reason);
        p->stall[at].meas = v;
        p->stall[at].pred = NAN;
        if (p->nstall < VAL_TOP)
            p->nstall++;
    }
    return 0;
}

static void note_add(struct val_point *p, const char *text)
{
    size_t n = strlen(p->note);
    snprintf(p->note + n, sizeof p->note - n, "%s%s", n ? "; " : "", text);
}

/* Check row `i` of the manifest and fill its point and job.  0 or -1. */
static int prepare(const struct val_manifest *m, int mi, const struct val_opts *o,
                   const struct arch *a, struct csv_entry *csvs, int *ncsv, struct val_point *p,
                   struct job *j, char err[STUDY_ERR_MAX])
{
    const struct val_case *c = &m->c[mi];
    memset(p, 0, sizeof *p);
    memset(j, 0, sizeof *j);
    p->mi = mi;
    for (int k = 0; k < VAL_NMETRICS; k++)
        p->meas[k] = p->pred[k] = NAN;
    for (int k = 0; k < VAL_NHIT; k++)
        p->hit_meas[k] = p->hit_pred[k] = NAN;
    j->trace = c->trace;

    /* the measurement */
    struct csv_entry *ce = NULL;
    for (int k = 0; k < *ncsv; k++)
        if (!strcmp(csvs[k].path, c->ncu_csv))
            ce = &csvs[k];
    if (!ce) {
        char e[NCU_ERR_MAX];
        ce = &csvs[*ncsv];
        ce->path = c->ncu_csv;
        FILE *probe = fopen(c->ncu_csv, "rb");
        if (!probe) {
            snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: ncu_csv '%.400s': %s", m->path, c->line,
                     c->col_csv, c->ncu_csv, strerror(errno));
            return -1;
        }
        fclose(probe);
        if (ncu_csv_load(c->ncu_csv, &ce->t, e)) {
            snprintf(err, STUDY_ERR_MAX, "%.1000s", e);
            return -1;
        }
        (*ncsv)++;
    }
    int row = ncu_row_by_id(&ce->t, c->ncu_id);
    if (row < 0) {
        snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: ncu_id '%.100s': %.400s has no row with that ID "
                 "(%d row%s)", m->path, c->line, c->col_id, c->ncu_id, c->ncu_csv, ce->t.nrows,
                 ce->t.nrows == 1 ? "" : "s");
        return -1;
    }
    char e[NCU_ERR_MAX];
    for (int k = 0; k < VAL_NMETRICS; k++) {
        double v;
        int rc = ncu_metric(&ce->t, row, metric_names[k], &v, e);
        if (rc < 0) {
            snprintf(err, STUDY_ERR_MAX, "%s", e);
            return -1;
        }
        if (rc == 0)
            p->meas[k] = v;
    }
    for (int k = 0; k < VAL_NHIT; k++) {
        double v;
        int rc = ncu_metric(&ce->t, row, hit_names[k], &v, e);
        if (rc < 0) {
            snprintf(err, STUDY_ERR_MAX, "%s", e);
            return -1;
        }
        if (rc == 0)
            p->hit_meas[k] = v;
    }
    if (measured_top(&ce->t, row, p, err))
        return -1;
    j->nstall = p->nstall;
    for (int k = 0; k < p->nstall; k++)
        snprintf(j->reason[k], sizeof j->reason[k], "%s", p->stall[k].reason);

    /* the trace */
    char terr[TRACE_ERR_MAX];
    FILE *probe = fopen(c->trace, "rb");
    if (!probe) {
        snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: trace '%.400s': %s", m->path, c->line,
                 c->col_trace, c->trace, strerror(errno));
        return -1;
    }
    fclose(probe);
    struct trace_file *tf = trace_open(c->trace, terr);
    if (!tf) {
        snprintf(err, STUDY_ERR_MAX, "%s", terr);
        return -1;
    }
    if (tf->nkernels < 1) {
        snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: trace '%.400s': no kernel in the trace",
                 m->path, c->line, c->col_trace, c->trace);
        trace_close(tf);
        return -1;
    }
    struct trace_kernel *k = tf->kernels[0];
    /* exact up to the limit (the report lists it); above it, counting
     * stops as the sum passes the limit */
    struct tr_total tt;
    int above = tr_kernel_insts_total(k, o->max_insts, 1, &tt);
    p->insts = tt.n;
    p->insts_exact = tt.kind == TR_TOTAL_EXACT;
    const struct tr_launch *l = &k->launch;
    struct occ_launch ol;
    engine_occ_launch(l, o->carveout_pct, &ol);
    struct occ_result occ;
    if (occ_compute(a, &ol, &occ) || occ.blocks_per_sm < 1) {
        snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: trace '%.400s': kernel '%s' cannot run on %s: %s",
                 m->path, c->line, c->col_trace, c->trace, l->name, a->name,
                 occ.detail[0] ? occ.detail : occ.error ? occ.error : "no block fits");
        trace_close(tf);
        return -1;
    }
    p->occ_blocks = occ.blocks_per_sm;
    p->x = (double)c->blocks_per_sm * occ.warps_per_block / a->subpartitions;
    char msg[VAL_NOTE_MAX];
    if (occ.blocks_per_sm > c->blocks_per_sm) {
        p->cap = c->blocks_per_sm;
        snprintf(msg, sizeof msg, "the trace's launch fits %d blocks/SM: capped at %d",
                 occ.blocks_per_sm, c->blocks_per_sm);
        note_add(p, msg);
    } else if (occ.blocks_per_sm < c->blocks_per_sm) {
        snprintf(msg, sizeof msg, "the trace's launch fits only %d blocks/SM, measured at %d",
                 occ.blocks_per_sm, c->blocks_per_sm);
        note_add(p, msg);
    }
    double lim;
    int rc = ncu_metric(&ce->t, row, "launch__occupancy_limit_shared_mem", &lim, e);
    if (rc < 0) {
        snprintf(err, STUDY_ERR_MAX, "%s", e);
        trace_close(tf);
        return -1;
    }
    if (rc == 0 && occ.limit_shared_mem != INT_MAX && lim != occ.limit_shared_mem) {
        snprintf(msg, sizeof msg, "launch__occupancy_limit_shared_mem: ncu %.0f, smsim %d", lim,
                 occ.limit_shared_mem);
        note_add(p, msg);
    }
    trace_close(tf);
    if (above)
        p->skipped = 1;
    return 0;
}

/* --- running ------------------------------------------------------------- */

struct pool {
    const struct arch *a;        /* configuration                             */
    const struct val_opts *o;    /* options                                   */
    struct val_point *p;         /* points                                    */
    const struct job *j;         /* their jobs                                */
    const int *order;            /* run order (indices into p)                */
    int n;                       /* entries in order                          */
    int threads;                 /* engine threads per point                  */
    pthread_mutex_t mu;          /* guards the fields below                   */
    int next;                    /* next entry of order                       */
    int done;                    /* finished                                  */
    int fail;                    /* lowest failing point index, or -1         */
    char err[STUDY_ERR_MAX];     /* its message                               */
};

/* Simulate point i.  0, or -1 with a message. */
static int run_one(struct pool *s, int i, char err[STUDY_ERR_MAX])
{
    struct val_point *p = &s->p[i];
    const struct job *j = &s->j[i];
    char terr[TRACE_ERR_MAX];
    struct trace_file *tf = trace_open(j->trace, terr);
    if (!tf) {
        snprintf(err, STUDY_ERR_MAX, "%s", terr);
        return -1;
    }
    struct engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.seed = s->o->seed;
    eo.blocks_per_sm_cap = p->cap;
    eo.carveout_pct = s->o->carveout_pct;
    eo.threads = s->threads;
    struct stats_kernel st;
    char eerr[512];
    if (engine_run(s->a, tf->kernels[0], &eo, &st, eerr)) {
        snprintf(err, STUDY_ERR_MAX, "smsim: %s: kernel 0: %s", j->trace, eerr);
        trace_close(tf);
        return -1;
    }
    struct stats_metric m[STATS_METRICS_MAX];
    int nm = stats_metrics(&st, s->a, m, STATS_METRICS_MAX);
    if (nm > STATS_METRICS_MAX)
        nm = STATS_METRICS_MAX;
    stats_kernel_free(&st);
    trace_close(tf);
    for (int k = 0; k < VAL_NMETRICS; k++) {
        const struct stats_metric *f = stats_find(m, nm, metric_names[k]);
        p->pred[k] = f ? f->value : NAN;
    }
    for (int k = 0; k < VAL_NHIT; k++) {
        const struct stats_metric *f = stats_find(m, nm, hit_names[k]);
        p->hit_pred[k] = f ? f->value : NAN;
    }
    for (int k = 0; k < j->nstall; k++) {
        char name[160];
        snprintf(name, sizeof name, VAL_STALL_PREFIX "%s" VAL_STALL_SUFFIX, j->reason[k]);
        const struct stats_metric *f = stats_find(m, nm, name);
        p->stall[k].pred = f ? f->value : 0.0; /* not modelled: smsim predicts none */
    }
    /* the predicted top reasons, same rules as the measured ones */
    double best[VAL_TOP];
    int nb = 0;
    for (int ws = 0; ws < WS_COUNT; ws++) {
        if (ws == WS_SELECTED)
            continue;
        char name[160];
        snprintf(name, sizeof name, VAL_STALL_PREFIX "%s" VAL_STALL_SUFFIX,
                 stats_state_name(ws));
        const struct stats_metric *f = stats_find(m, nm, name);
        if (!f || !(f->value > 0))
            continue;
        const char *rn = stats_state_name(ws);
        int at = nb;
        while (at > 0 && (f->value > best[at - 1] ||
                          (f->value == best[at - 1] && strcmp(rn, p->pred_top[at - 1]) < 0)))
            at--;
        if (at >= VAL_TOP)
            continue;
        int last = nb < VAL_TOP ? nb : VAL_TOP - 1;
        for (int k = last; k > at; k--) {
            best[k] = best[k - 1];
            memcpy(p->pred_top[k], p->pred_top[k - 1], sizeof p->pred_top[k]);
        }
        best[at] = f->value;
        snprintf(p->pred_top[at], sizeof p->pred_top[at], "%s", rn);
        if (nb < VAL_TOP)
            nb++;
    }
    return 0;
}

static void *worker(void *arg)
{
    struct pool *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        int i = -1;
        if (s->fail < 0 && s->next < s->n)
            i = s->order[s->next++];
        pthread_mutex_unlock(&s->mu);
        if (i < 0)
            break;
        char err[STUDY_ERR_MAX];
        int rc = run_one(s, i, err);
        pthread_mutex_lock(&s->mu);
        if (rc && (s->fail < 0 || i < s->fail)) {
            s->fail = i;
            snprintf(s->err, sizeof s->err, "%s", err);
        }
        s->done++;
        if (s->o->progress)
            study_progress("validate", s->done, s->n);
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

/* qsort context-free: sort indices by insts descending, then index. */
struct order_key {
    uint64_t insts;   /* the point's warp-instructions */
    int i;            /* its index                     */
};

static int order_cmp(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->insts != y->insts)
        return x->insts > y->insts ? -1 : 1;
    return x->i - y->i;
}

static int run_pool(const struct arch *a, const struct val_opts *o, struct val_point *p,
                    const struct job *j, int n, char err[STUDY_ERR_MAX])
{
    struct order_key *key = malloc(((size_t)n + 1) * sizeof *key);
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!key || !order) {
        free(key);
        free(order);
        snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
        return -1;
    }
    int nrun = 0;
    for (int i = 0; i < n; i++)
        if (!p[i].skipped)
            key[nrun++] = (struct order_key){ p[i].insts, i };
    qsort(key, (size_t)nrun, sizeof *key, order_cmp);
    for (int i = 0; i < nrun; i++)
        order[i] = key[i].i;
    free(key);
    struct pool s;
    memset(&s, 0, sizeof s);
    s.a = a;
    s.o = o;
    s.p = p;
    s.j = j;
    s.order = order;
    s.n = nrun;
    s.fail = -1;
    int jobs = o->jobs < 1 ? 1 : o->jobs;
    if (jobs > nrun)
        jobs = nrun > 0 ? nrun : 1;
    /* spare cores go to the engine's own SM threads (same results) */
    s.threads = nrun > 0 && o->jobs > nrun ? o->jobs / nrun : 1;
    pthread_mutex_init(&s.mu, NULL);
    if (o->progress && nrun)
        study_progress("validate", 0, nrun);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    int started = 0;
    if (th)
        for (; started < jobs - 1; started++)
            if (pthread_create(&th[started], NULL, worker, &s))
                break;
    worker(&s); /* this thread works too */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&s.mu);
    free(order);
    if (s.fail >= 0) {
        snprintf(err, STUDY_ERR_MAX, "%s", s.err);
        return -1;
    }
    return 0;
}

/* --- summary ------------------------------------------------------------- */

static int add_reason(struct val_result *r, const char *name)
{
    for (int k = 0; k < r->nreasons; k++)
        if (!strcmp(r->reason[k], name))
            return k;
    if (r->nreasons >= VAL_MAX_REASONS)
        return -1;
    snprintf(r->reason[r->nreasons], sizeof r->reason[0], "%s", name);
    return r->nreasons++;
}

static int summarize(const struct val_manifest *m, struct val_result *r)
{
    int n = r->npoints;
    double *xm = malloc(((size_t)n * VAL_TOP + 1) * sizeof *xm);
    double *xp = malloc(((size_t)n * VAL_TOP + 1) * sizeof *xp);
    if (!xm || !xp)
        goto nomem;
    for (int k = 0; k < VAL_NMETRICS; k++) {
        int c = 0;
        for (int i = 0; i < n; i++) {
            const struct val_point *p = &r->p[i];
            if (!p->skipped && isfinite(p->meas[k]) && isfinite(p->pred[k])) {
                xm[c] = p->meas[k];
                xp[c] = p->pred[k];
                c++;
            }
        }
        val_stats(xm, xp, c, &r->metric[k]);
    }
    for (int k = 0; k < VAL_NHIT; k++) {
        int c = 0;
        for (int i = 0; i < n; i++) {
            const struct val_point *p = &r->p[i];
            if (!p->skipped) {
                xm[c] = p->hit_meas[k];
                xp[c] = p->hit_pred[k];
                c++;
            }
        }
        val_hit_stats(xm, xp, c, &r->hit[k]);
    }
    /* stall reasons: per reason over the points where it is a measured top
     * reason, and all such pairs together */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r->p[i].nstall; k++)
            if (!r->p[i].skipped)
                add_reason(r, r->p[i].stall[k].reason);
    for (int q = 0; q < r->nreasons; q++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < r->p[i].nstall; k++)
                if (!r->p[i].skipped && !strcmp(r->p[i].stall[k].reason, r->reason[q])) {
                    xm[c] = r->p[i].stall[k].meas;
                    xp[c] = r->p[i].stall[k].pred;
                    c++;
                }
        val_stats(xm, xp, c, &r->reason_stat[q]);
    }
    int c = 0;
    for (int i = 0; i < n; i++) {
        const struct val_point *p = &r->p[i];
        if (p->skipped)
            continue;
        for (int k = 0; k < p->nstall; k++) {
            xm[c] = p->stall[k].meas;
            xp[c] = p->stall[k].pred;
            c++;
        }
        if (p->nstall) {
            r->top1_n++;
            if (!strcmp(p->stall[0].reason, p->pred_top[0]))
                r->top1_agree++;
        }
    }
    val_stats(xm, xp, c, &r->stalls);
    free(xm);
    free(xp);

    /* saturation per case */
    r->sat = calloc((size_t)n + 1, sizeof *r->sat);
    int *idx = malloc(((size_t)n + 1) * sizeof *idx);
    double *x = malloc(((size_t)n + 1) * sizeof *x);
    double *ym = malloc(((size_t)n + 1) * sizeof *ym);
    double *yp = malloc(((size_t)n + 1) * sizeof *yp);
    if (!r->sat || !idx || !x || !ym || !yp) {
        free(idx);
        free(x);
        free(ym);
        free(yp);
        return -1;
    }
    r->sat_max_abs_err = NAN;
    for (int i = 0; i < n; i++) {
        const char *name = m->c[r->p[i].mi].name;
        int seen = 0;
        for (int q = 0; q < r->ncases && !seen; q++)
            seen = !strcmp(m->c[r->p[r->sat[q].first].mi].name, name);
        if (seen)
            continue;
        struct val_sat *s = &r->sat[r->ncases++];
        s->first = i;
        s->meas = s->pred = NAN;
        int np = 0;
        for (int k = i; k < n; k++) {
            const struct val_point *p = &r->p[k];
            if (strcmp(m->c[p->mi].name, name))
                continue;
            if (p->skipped) {
                s->partial = 1;
                continue;
            }
            /* insertion by blocks_per_sm (stable) */
            int at = np;
            while (at > 0 && m->c[r->p[idx[at - 1]].mi].blocks_per_sm > m->c[p->mi].blocks_per_sm)
                at--;
            memmove(idx + at + 1, idx + at, (size_t)(np - at) * sizeof *idx);
            idx[at] = k;
            np++;
        }
        s->npoints = np;
        int ok = 1;
        for (int q = 0; q < np; q++) {
            const struct val_point *p = &r->p[idx[q]];
            x[q] = p->x;
            ym[q] = p->meas[VAL_SAT_METRIC];
            yp[q] = p->pred[VAL_SAT_METRIC];
            ok = ok && isfinite(ym[q]) && isfinite(yp[q]);
        }
        if (np >= 2 && ok) {
            s->meas = val_sat_point(x, ym, np, sat_threshold);
            s->pred = val_sat_point(x, yp, np, sat_threshold);
            /* a partial sweep's plateau is unknown: shown, not counted */
            double e = fabs(s->pred - s->meas);
            if (!s->partial && isfinite(e) &&
                (isnan(r->sat_max_abs_err) || e > r->sat_max_abs_err))
                r->sat_max_abs_err = e;
        }
    }
    free(idx);
    free(x);
    free(ym);
    free(yp);
    return 0;
nomem:
    free(xm);
    free(xp);
    return -1;
}

void val_result_free(struct val_result *r)
{
    free(r->p);
    free(r->sat);
    memset(r, 0, sizeof *r);
}

int val_run(const struct val_manifest *m, const struct val_opts *o, struct val_result *r,
            char err[STUDY_ERR_MAX])
{
    memset(r, 0, sizeof *r);
    struct arch a;
    char aerr[ARCH_ERR_MAX];
    if (arch_load(o->config, o->ov, o->nov, &a, aerr)) {
        snprintf(err, STUDY_ERR_MAX, "%s", aerr);
        return -1;
    }
    snprintf(r->config_name, sizeof r->config_name, "%s", a.name);

    regex_t re;
    if (o->case_re) {
        int rc = regcomp(&re, o->case_re, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char why[256];
            regerror(rc, &re, why, sizeof why);
            snprintf(err, STUDY_ERR_MAX, "smsim: --case '%s': bad regular expression: %s",
                     o->case_re, why);
            return -1;
        }
    }
    int n = 0, ndir = 0;
    int *sel = malloc(((size_t)m->n + 1) * sizeof *sel);
    if (!sel) {
        if (o->case_re)
            regfree(&re);
        snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
        return -1;
    }
    for (int i = 0; i < m->n; i++) {
        if (o->dir && !under_dir(m->c[i].ncu_csv, o->dir))
            continue;
        ndir++;
        if (o->case_re && regexec(&re, m->c[i].name, 0, NULL, 0))
            continue;
        sel[n++] = i;
    }
    if (o->case_re)
        regfree(&re);
    if (n == 0) {
        if (ndir == 0)
            snprintf(err, STUDY_ERR_MAX, "smsim: %s: no launch of the manifest is measured "
                     "under %s (its ncu_csv paths)", m->path, o->dir ? o->dir : ".");
        else
            snprintf(err, STUDY_ERR_MAX, "smsim: --case '%s' matches no case of %s",
                     o->case_re ? o->case_re : "", m->path);
        free(sel);
        return -1;
    }

    r->npoints = n;
    r->p = calloc((size_t)n, sizeof *r->p);
    struct job *jobs = calloc((size_t)n, sizeof *jobs);
    struct csv_entry *csvs = calloc((size_t)n, sizeof *csvs);
    int ncsv = 0, rc = -1;
    if (!r->p || !jobs || !csvs) {
        snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (prepare(m, sel[i], o, &a, csvs, &ncsv, &r->p[i], &jobs[i], err))
            goto done;
    for (int k = 0; k < ncsv; k++)
        ncu_table_free(&csvs[k].t);
    ncsv = 0;
    for (int i = 0; i < n; i++)
        r->nskipped += r->p[i].skipped;
    if (run_pool(&a, o, r->p, jobs, n, err))
        goto done;
    if (summarize(m, r)) {
        snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
        goto done;
    }
    rc = 0;
done:
    for (int k = 0; k < ncsv; k++)
        ncu_table_free(&csvs[k].t);
    free(csvs);
    free(jobs);
    free(sel);
    if (rc)
        val_result_free(r);
    return rc;
}
