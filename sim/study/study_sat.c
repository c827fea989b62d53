/* study_sat.c — latency hiding: where a throughput curve saturates (from the
 * simulated points, cross-checked by two least-squares fits) and the
 * Little's-law estimate of the warps needed, from a lone warp's stream.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include "engine/engine.h"
#include "engine/eng_fetch.h"
#include "engine/eng_pipe.h"
#include "mem/mem.h"
#include "occ/occ.h"
#include "study/study.h"

/* --- fits ----------------------------------------------------------------- */

struct fit_data {
    const double *x;   /* abscissae          */
    const double *y;   /* observations       */
    size_t n;          /* points             */
};

/* roofline y = min(a x, p) */
static int roof_f(const gsl_vector *v, void *d, gsl_vector *f)
{
    const struct fit_data *fd = d;
    double a = gsl_vector_get(v, 0), p = gsl_vector_get(v, 1);
    for (size_t i = 0; i < fd->n; i++)
        gsl_vector_set(f, i, fmin(a * fd->x[i], p) - fd->y[i]);
    return GSL_SUCCESS;
}

static int roof_df(const gsl_vector *v, void *d, gsl_matrix *J)
{
    const struct fit_data *fd = d;
    double a = gsl_vector_get(v, 0), p = gsl_vector_get(v, 1);
    for (size_t i = 0; i < fd->n; i++) {
        int rising = a * fd->x[i] < p;
        gsl_matrix_set(J, i, 0, rising ? fd->x[i] : 0.0);
        gsl_matrix_set(J, i, 1, rising ? 0.0 : 1.0);
    }
    return GSL_SUCCESS;
}

/* saturating y = p x / (x + k) */
static int mm_f(const gsl_vector *v, void *d, gsl_vector *f)
{
    const struct fit_data *fd = d;
    double p = gsl_vector_get(v, 0), k = gsl_vector_get(v, 1);
    for (size_t i = 0; i < fd->n; i++)
        gsl_vector_set(f, i, p * fd->x[i] / (fd->x[i] + k) - fd->y[i]);
    return GSL_SUCCESS;
}

static int mm_df(const gsl_vector *v, void *d, gsl_matrix *J)
{
    const struct fit_data *fd = d;
    double p = gsl_vector_get(v, 0), k = gsl_vector_get(v, 1);
    for (size_t i = 0; i < fd->n; i++) {
        double den = fd->x[i] + k;
        gsl_matrix_set(J, i, 0, fd->x[i] / den);
        gsl_matrix_set(J, i, 1, -p * fd->x[i] / (den * den));
    }
    return GSL_SUCCESS;
}

/* Least squares from (p0, p1); 0 with the parameters and RMS residual. */
static int fit2(int (*f)(const gsl_vector *, void *, gsl_vector *),
                int (*df)(const gsl_vector *, void *, gsl_matrix *), struct fit_data *d,
                double p0, double p1, double *o0, double *o1, double *rms)
{
    if (d->n < 2)
        return -1;
    gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = f;
    fdf.df = df;
    fdf.n = d->n;
    fdf.p = 2;
    fdf.params = d;
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, d->n, 2);
    if (!w)
        return -1;
    double init[2] = { p0, p1 };
    gsl_vector_view iv = gsl_vector_view_array(init, 2);
    int info = 0, rc = -1;
    if (gsl_multifit_nlinear_init(&iv.vector, &fdf, w) == GSL_SUCCESS) {
        int st = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
        const gsl_vector *x = gsl_multifit_nlinear_position(w);
        const gsl_vector *r = gsl_multifit_nlinear_residual(w);
        double ss = 0;
        for (size_t i = 0; i < d->n; i++)
            ss += gsl_vector_get(r, i) * gsl_vector_get(r, i);
        *o0 = gsl_vector_get(x, 0);
        *o1 = gsl_vector_get(x, 1);
        *rms = sqrt(ss / (double)d->n);
        rc = (st == GSL_SUCCESS || st == GSL_EMAXITER) && isfinite(*o0) && isfinite(*o1) ? 0 : -1;
    }
    gsl_multifit_nlinear_free(w);
    return rc;
}

int study_saturation(const double *x, const double *y, int n, double threshold, double tol,
                     struct study_sat *o)
{
    memset(o, 0, sizeof *o);
    if (n < 1)
        return -1;
    gsl_set_error_handler_off(); /* errors come back as status codes */
    o->peak = 0;
    for (int i = 1; i < n; i++)
        if (y[i] > y[o->peak])
            o->peak = i;
    o->plateau = y[o->peak];
    o->sat = o->peak;
    for (int i = 0; i < n; i++)
        if (y[i] >= threshold * o->plateau) {
            o->sat = i;
            break;
        }
    o->drop = o->plateau > 0 ? (o->plateau - y[n - 1]) / o->plateau : 0;
    o->decline = o->peak < n - 1 && o->drop > tol;

    /* Fit up to the peak: past it the curve is no longer saturating. */
    struct fit_data d = { x, y, (size_t)(o->decline ? o->peak + 1 : n) };
    double a0 = 0;
    for (size_t i = 0; i < d.n; i++)
        if (x[i] > 0 && y[i] / x[i] > a0)
            a0 = y[i] / x[i];
    if (fit2(roof_f, roof_df, &d, a0, o->plateau, &o->roof_a, &o->roof_p, &o->roof_rms) == 0 &&
        o->roof_a > 0) {
        o->roof_ok = 1;
        o->roof_knee = o->roof_p / o->roof_a;
    }
    double k0 = x[0] > 0 ? x[0] : 1;
    if (fit2(mm_f, mm_df, &d, o->plateau, k0, &o->mm_p, &o->mm_k, &o->mm_rms) == 0 &&
        o->mm_k > -x[0]) {
        o->mm_ok = 1;
        o->mm_x_at = threshold < 1 ? o->mm_k * threshold / (1 - threshold) : INFINITY;
    }
    return 0;
}

/* --- Little's law ---------------------------------------------------------- */

const char *study_lat_class_name(int c)
{
    static const char *const names[SL_COUNT] = {
        "FMA pipe", "ALU pipe", "FP64 pipe", "MUFU pipe", "tensor pipe", "LSU pipe",
        "CBU pipe", "shared memory", "constant cache", "L1 hit", "L2 hit", "DRAM",
        "branch"
    };
    return c >= 0 && c < SL_COUNT ? names[c] : "?";
}

/* Expected unloaded latency of a global/local load (dynamic data d) and
 * its dominant level, by the engine's rules: each sector hits with the
 * probabilities the engine draws with (mem_level_p), the access is ready
 * when its slowest sector is (all n sectors in L1; else none beyond L2;
 * else DRAM), and a divergent access pays the per-line charges of the level
 * that serves it for the lines beyond what its sectors need (mem_shape). */
static double load_latency(const struct mem_cfg *mc, const struct tr_inst *in,
                           const struct tr_dyn *d, int *cls)
{
    const struct arch *a = mc->a;
    double p1, p2;
    mem_level_p(mc, in, &p1, &p2);
    int excess = 0;
    int n = mem_shape(a, in, d, mc->per_line ? &excess : NULL);
    if (n == 0) { /* no active lane: ready the next cycle */
        *cls = SL_L1;
        return 1;
    }
    double all_l1 = pow(p1, n), no_dram = pow(p1 + (1 - p1) * p2, n);
    double w1 = all_l1, w2 = no_dram - all_l1, w3 = 1 - no_dram;
    *cls = w1 >= w2 && w1 >= w3 ? SL_L1 : w2 >= w3 ? SL_L2 : SL_DRAM;
    return w1 * (a->l1_latency + excess * a->l1_cycles_per_line) +
           w2 * (a->l2_latency + excess * a->l2_cycles_per_line) +
           w3 * (a->dram_latency + excess * a->dram_cycles_per_line);
}

/* The memory system of the lone warp: the engine's own rooms (sim/mem),
 * so an access with addresses meets the same tags, merges and DRAM draws
 * as in a run; nothing else is in flight, so each request is answered at
 * once. */
struct walk_mem {
    struct mem_sm sm;          /* the SM's L1, miss table, lines           */
    struct mem_gpu g;          /* L2 and DRAM                              */
    struct mem_counters cnt;   /* SM-local counters (unused but required)  */
    int ok;                    /* both initialised                         */
};

/* Latency and serving level of a global/local access with addresses (or a
 * store, which only changes the caches): the engine's rule, exactly. */
static double tag_latency(const struct mem_cfg *mc, struct walk_mem *wm,
                          const struct tr_inst *in, const struct tr_dyn *d, uint64_t seq,
                          uint64_t t, int *cls)
{
    struct mem_local_res res;
    struct mem_req q;
    uint64_t dram0 = wm->g.cnt.dram_bytes;
    *cls = SL_L1;
    if (mem_local(mc, &wm->sm, &wm->cnt, in, d, 0, seq, t, 0, &res, &q) != 0)
        return 1;
    uint64_t ready = res.ready;
    if (res.global) {
        ready = mem_global(mc, &wm->g, &q, wm->sm.lines.v);
        mem_sm_answer(&wm->sm, &q, 0, ready);
        *cls = wm->g.cnt.dram_bytes > dram0 ? SL_DRAM : SL_L2;
    }
    mem_sm_epoch_end(&wm->sm);
    return ready > t ? (double)(ready - t) : 1;
}

int study_little_walk(const struct arch *a, struct trace_kernel *k, uint64_t max_insts,
                      struct study_little *o, char err[STUDY_ERR_MAX])
{
    memset(o, 0, sizeof *o);
    /* the memory system as the engine configures it for this launch (the L1
     * capacity is what the carveout occupancy chose leaves) */
    const struct tr_launch *l = &k->launch;
    struct occ_launch ol;
    engine_occ_launch(l, -1, &ol);
    struct occ_result occ;
    occ_compute(a, &ol, &occ);
    struct mem_cfg mc;
    mem_cfg_init(&mc, a, occ.smem_config_bytes, 0);
    struct walk_mem wm;
    memset(&wm, 0, sizeof wm);
    if (mem_sm_init(&mc, &wm.sm) != 0 || mem_gpu_init(&mc, &wm.g) != 0) {
        mem_sm_free(&wm.sm);
        mem_gpu_free(&wm.g);
        snprintf(err, STUDY_ERR_MAX, "out of memory");
        return -1;
    }

    uint64_t ready[TR_NREGS];
    unsigned char cls[TR_NREGS];
    double lat_of[TR_NREGS];
    for (int i = 0; i < TR_NREGS; i++) {
        ready[i] = 0;
        cls[i] = 0;
        lat_of[i] = 0;
    }
    struct eng_pipes pipes;
    memset(&pipes, 0, sizeof pipes);
    int split = eng_pipe_fma_split(a);
    uint64_t tnext = 0, mem_done = 0, last = 0;
    struct tr_cursor c;
    memset(&c, 0, sizeof c);
    if (k->ops->warp_begin(k, 0, 0, &c)) {
        /* the reader's "file:line:col: message" (trace.h) says where and why */
        if (k->error)
            snprintf(err, STUDY_ERR_MAX, "kernel '%s': %s", l->name, k->error);
        else
            snprintf(err, STUDY_ERR_MAX, "kernel '%s': cannot read warp 0 of block 0", l->name);
        mem_sm_free(&wm.sm);
        mem_gpu_free(&wm.g);
        return -1;
    }
    struct tr_dyn dyn;
    const struct tr_inst *in;
    while (o->insts < max_insts && (in = k->ops->warp_next(k, &c, &dyn)) != NULL) {
        /* earliest issue: in order, pipe free, operands ready (RAW and WAW);
         * the pipes are the engine's own (eng_pipe.h) */
        int p = eng_pipe_of(in);
        uint64_t pf = eng_pipe_ready(&pipes, split, p, in->fma_path);
        uint64_t t0 = tnext > pf ? tnext : pf;
        uint64_t t = t0;
        int why = -1;
        for (int i = 0; i < in->nsrc + in->ndst; i++) {
            unsigned r = i < in->nsrc ? in->src[i] : in->dst[i - in->nsrc];
            if (!tr_reg_real((uint16_t)r))
                continue;
            if (i < in->nsrc && lat_of[r] > 0) {
                o->edges[cls[r]]++;
                o->latsum[cls[r]] += lat_of[r];
            }
            if (ready[r] > t) {
                t = ready[r];
                why = cls[r];
            }
        }
        if (in->kind == TR_K_MEMBAR && mem_done > t)
            t = mem_done;
        if (why >= 0 && t > t0)
            o->stall[why] += t - t0;
        const struct arch_pipe_cfg *pc = eng_pipe_issue(a, &pipes, split, p, in->fma_path, t);
        tnext = eng_fetch_after(a, t, 0);
        last = t;
        o->insts++;

        double lat = -1;
        int c2 = p;
        switch (in->kind) {
        case TR_K_ALU:
            lat = eng_pipe_latency(in, pc);
            c2 = SL_FMA + p;
            break;
        case TR_K_LOAD:
        case TR_K_ATOMIC:
            if (in->space == TR_SP_SHARED) {
                lat = a->smem_latency;
                c2 = SL_SHARED;
            } else if (in->space == TR_SP_CONST) {
                lat = a->l1_latency;
                c2 = SL_CONST;
            } else if (mc.tags && dyn.naddr > 0) {
                lat = tag_latency(&mc, &wm, in, &dyn, c.seq, t, &c2);
            } else {
                lat = load_latency(&mc, in, &dyn, &c2);
            }
            if (t + (uint64_t)lat > mem_done)
                mem_done = t + (uint64_t)lat;
            break;
        case TR_K_STORE:
            /* no result, but it changes what later loads find in L2 */
            if (in->space != TR_SP_SHARED && mc.tags && dyn.naddr > 0) {
                int dummy;
                tag_latency(&mc, &wm, in, &dyn, c.seq, t, &dummy);
            }
            break;
        case TR_K_BRANCH:
            tnext = eng_fetch_after(a, t, 1);
            if (a->branch_latency > 0) {
                o->stall[SL_BRANCH] += (uint64_t)a->branch_latency;
                o->edges[SL_BRANCH]++;
                o->latsum[SL_BRANCH] += 1 + a->branch_latency;
            }
            break;
        default:
            break;
        }
        if (lat >= 0)
            for (int i = 0; i < in->ndst; i++)
                if (tr_reg_real(in->dst[i])) {
                    ready[in->dst[i]] = t + (uint64_t)(lat > 0 ? lat + 0.5 : 0);
                    cls[in->dst[i]] = (unsigned char)c2;
                    lat_of[in->dst[i]] = lat;
                }
        if (in->kind == TR_K_EXIT)
            break;
    }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    mem_sm_free(&wm.sm);
    mem_gpu_free(&wm.g);
    o->cycles = o->insts ? last + 1 : 0;
    /* dominant: most cycles waited; when nothing waited, most latency depended on */
    int best = -1;
    for (int i = 0; i < SL_COUNT; i++)
        if (o->stall[i] > 0 && (best < 0 || o->stall[i] > o->stall[best]))
            best = i;
    if (best < 0)
        for (int i = 0; i < SL_COUNT; i++)
            if (o->edges[i] && (best < 0 || o->latsum[i] > o->latsum[best]))
                best = i;
    if (best < 0) {
        o->dominant = SL_FMA;
        o->latency = 1;
    } else {
        o->dominant = best;
        o->latency = o->edges[best] ? o->latsum[best] / (double)o->edges[best] : 1;
    }
    o->indep = o->cycles ? (double)o->insts * o->latency / (double)o->cycles : 0;
    return 0;
}

double study_little_warps(const struct study_little *l, double rate)
{
    return l->insts ? (double)l->cycles * rate / (double)l->insts : 0;
}
