/* cli_saturate.c — `smsim saturate`: how many resident warps hide a
 * kernel's latency.  Sweeps resident blocks per SM from 1 to the occupancy
 * limit (engine_opts.blocks_per_sm_cap), finds where the throughput stops
 * rising, fits two saturating models, flags a decline past the peak, and
 * compares with the Little's-law estimate from a lone warp's stream, and
 * gives one recommended answer with the range of the other estimates.
 * Points whose last wave is partial are flagged.  docs/studies.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "occ/occ.h"
#include "report/report.h"
#include "stats/stats.h"
#include "study/study.h"

enum { SAT_WALK_MAX = 2000000 }; /* lone-warp instructions walked (enough for a steady state) */

static const char sat_help[] =
    "usage: smsim saturate --config CFG.yaml TRACE [options]\n"
    "  sweep resident warps per SM from one block to the occupancy limit and report\n"
    "  where the throughput saturates, the plateau, a decline past the peak, and\n"
    "  the Little's-law estimate of the warps needed to hide the kernel's latency\n"
    "\n"
    "options:\n"
    "  --metric NAME          throughput metric (default sm__inst_executed.avg.per_cycle_active)\n"
    "  --threshold F          saturation = first point >= F x plateau, 0 < F <= 1 (default 0.95)\n"
    "  --tolerance F          decline past the peak counts above F x plateau (default 0.02)\n"
    "  --format text|json|csv report format (default text; csv: the points)\n"
    "  --plot FILE.svg|.png   draw the curve, the fits and the saturation point (gnuplot)\n"
    "  --set sec.key=val      override a configuration key (repeatable)\n"
    "  --jobs N               points simulated at once, one host thread each (default:\n"
    "                         online CPUs; --threads of a run is threads of one simulation)\n"
    "  --progress             progress bar on stderr even when it is not a terminal\n"
    "  --kernel N             kernel of the trace (required when it has several)\n"
    "  --seed N               RNG seed (default 1)\n"
    "  --max-cycles N         stop a point's kernel after N cycles (an error)\n"
    "  --max-insts N          refuse a kernel of more than N warp-instructions, counted\n"
    "                         before the run (default 10^11 unless --max-cycles is\n"
    "                         given; 0 = no limit)\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

static const char default_metric[] = "sm__inst_executed.avg.per_cycle_active";

struct sat_args {
    struct cli_common c;          /* --config, TRACE, --format, --plot, --set,
                                     --seed, --kernel (-1 = the only one), -o,
                                     --jobs */
    const char *metric;           /* --metric                        */
    double threshold;             /* --threshold                     */
    double tolerance;             /* --tolerance                     */
    int progress;                 /* --progress                      */
};

static int parse_frac(const char *opt, const char *s, double lo_excl, double hi, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno || !(x > lo_excl) || x > hi) {
        fprintf(stderr, "smsim: %s '%s': expected a number in (%g, %g]\n", opt, s, lo_excl, hi);
        return -1;
    }
    *v = x;
    return 0;
}

static int parse_args(int argc, char **argv, struct sat_args *r)
{
    static const char *const formats[] = { "text", "json", "csv", NULL };
    memset(r, 0, sizeof *r);
    r->c = (struct cli_common){ .has = CLI_C_CONFIG | CLI_C_SET | CLI_C_SEED | CLI_C_KERNEL |
                                       CLI_C_FORMAT | CLI_C_PLOT | CLI_C_OUT | CLI_C_POS |
                                       CLI_C_JOBS | CLI_C_MAXCYC | CLI_C_MAXINSTS,
                                .usage = sat_help, .formats = formats, .pos_name = "trace",
                                .seed = 1, .kernel = -1, .format = REPORT_TEXT,
                                .jobs = cli_default_jobs() };
    r->metric = default_metric;
    r->threshold = 0.95;
    r->tolerance = 0.02;
    static const char *const known[] = { "--config", "--metric", "--threshold",
                                         "--tolerance", "--format", "--plot", "--set",
                                         "--jobs", "--kernel", "--seed", "-o",
                                         "--max-cycles", "--max-insts", NULL };
    static const char *const flags[] = { "--progress", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim saturate --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (kind == CLI_OPT_FLAG) {
            r->progress = 1;
        } else if (!strcmp(name, "--metric")) {
            r->metric = val;
        } else if (!strcmp(name, "--threshold")) {
            if (parse_frac(name, val, 0, 1, &r->threshold))
                return 1;
        } else if (!strcmp(name, "--tolerance")) {
            if (parse_frac(name, val, 0, 1, &r->tolerance))
                return 1;
        }
    }
    return cli_common_done(&r->c, &st);
}

/* Is `name` a metric stats_metrics() derives?  Names do not depend on the
 * counters, so a zero run lists them. */
static int metric_known(const struct arch *a, const char *name, const char **unit)
{
    struct stats_kernel s;
    if (stats_kernel_init(&s, 1, a->subpartitions))
        return 0;
    struct stats_metric m[STATS_METRICS_MAX];
    int n = stats_metrics(&s, a, m, STATS_METRICS_MAX);
    stats_kernel_free(&s);
    const struct stats_metric *f = stats_find(m, n, name);
    if (f)
        *unit = f->unit;
    return f != NULL;
}

static void num(FILE *f, double v)
{
    report_json_number(f, v);
}

/* The other estimates of the saturation point, in warps per SM: those
 * within the SM's warps span [*lo, *hi]; the rest are past it.  The
 * recommended answer is the simulated point (study_sat.sat): a measured
 * throughput, where each fit is a model of the curve and Little's law a
 * model of the latency. */
struct sat_estimate {
    const char *name;   /* what it is, for the report */
    const char *key;    /* its JSON key               */
    double warps;       /* warps per SM               */
};
static int sat_estimates(const struct study_sat *s, double ll_sm, struct sat_estimate *e)
{
    int n = 0;
    e[n++] = (struct sat_estimate){ "Little's law", "littles_law", ll_sm };
    if (s->roof_ok)
        e[n++] = (struct sat_estimate){ "knee of min(a x, p)", "roofline_knee", s->roof_knee };
    if (s->mm_ok)
        e[n++] = (struct sat_estimate){ "p x/(x+k) at the threshold", "saturating_fit",
                                        s->mm_x_at };
    return n;
}

/* The plot of a saturate run (cli_plot's render). */
struct sat_plot {
    const struct sat_args *r;     /* options                      */
    const struct study_table *t;  /* the sweep                    */
    const struct arch *a;         /* configuration                */
    const double *x, *y;          /* warps per SM, metric         */
    int n;                        /* points                       */
    const struct study_sat *s;    /* the fits                     */
    double sat_w;                 /* saturation, warps per SM     */
};

static int render_sat_plot(FILE *g, const char *out, void *ud)
{
    const struct sat_plot *sp = ud;
    const struct study_sat *s = sp->s;
    size_t pn = strlen(sp->r->c.plot);
    fputs(!strcmp(sp->r->c.plot + pn - 4, ".svg")
              ? "set terminal svg size 800,500 dynamic font 'sans,12' background rgb 'white'\n"
              : "set terminal pngcairo size 1000,625 font 'sans,11'\n", g);
    /* names from the input are quoted as gnuplot strings: a quote in a
     * kernel name must not end the string (and run what follows) */
    fputs("set output ", g);
    study_gp_string(g, out);
    char title[700], sets[300];
    struct cli_prov pv;
    cli_prov_init(&pv, "saturate", &sp->r->c, NULL); /* no configuration: cannot fail */
    cli_prov_title(&pv, sets, sizeof sets);
    snprintf(title, sizeof title, "saturate: %s on %s%s", sp->t->kernel_name, sp->a->name, sets);
    fputs("\nset title ", g);
    study_gp_string(g, title);
    fputs(" noenhanced\nset xlabel 'resident warps per SM'\nset ylabel ", g);
    study_gp_string(g, sp->r->metric);
    fputs(" noenhanced\n", g);
    fputs("set grid\nset key outside bottom center horizontal noenhanced\n"
          "set yrange [0:*]\nset xrange [0:*]\n", g);
    fprintf(g, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 lc rgb 'gray40'\n",
            sp->sat_w, sp->sat_w);
    fputs("$d << EOD\n", g);
    for (int i = 0; i < sp->n; i++) {
        char bx[REPORT_NUM_MAX], byy[REPORT_NUM_MAX];
        report_format_number(bx, sp->x[i]);
        report_format_number(byy, sp->y[i]);
        fprintf(g, "%s %s\n", bx, byy);
    }
    fputs("EOD\n", g);
    fprintf(g, "plot $d using 1:2 with linespoints pt 7 title 'simulated'");
    if (s->roof_ok)
        fprintf(g, ", \\\n  (x < %.17g ? %.17g * x : %.17g) with lines dt 2 title "
                   "'min(a x, p) fit'", s->roof_knee, s->roof_a, s->roof_p);
    if (s->mm_ok)
        fprintf(g, ", \\\n  %.17g * x / (x + %.17g) with lines dt 3 title 'p x/(x+k) fit'",
                s->mm_p, s->mm_k);
    fprintf(g, ", \\\n  NaN with lines dt 2 lc rgb 'gray40' title 'saturation (%g warps)'\n",
            sp->sat_w);
    return ferror(g) ? -1 : 0;
}

int cli_saturate(int argc, char **argv)
{
    struct sat_args r;
    int rc = parse_args(argc, argv, &r);
    if (rc) {
        free(r.c.ov);
        return rc == 3 ? 0 : rc;
    }
    rc = 1;
    struct study_var var;
    memset(&var, 0, sizeof var);
    struct study_table t;
    memset(&t, 0, sizeof t);
    struct trace_file *tf = NULL;
    double *x = NULL, *y = NULL;
    struct study_waves *wv = NULL;
    char *rep = NULL;
    size_t replen = 0;
    char err[STUDY_ERR_MAX];

    const char *const outs[][2] = { { "-o", r.c.out }, { "--plot", r.c.plot } };
    const char *const ins[][2] = { { "input trace", r.c.pos }, { "configuration", r.c.config } };
    if (cli_check_outputs(outs, 2, ins, 2))
        goto done;
    struct arch a;
    if (cli_load_arch(r.c.config, r.c.ov, r.c.nov, &a))
        goto done;
    const char *unit = "";
    if (!metric_known(&a, r.metric, &unit)) {
        fprintf(stderr, "smsim: --metric '%s': not a metric smsim reports (see docs/metrics.md)\n",
                r.metric);
        goto done;
    }
    char terr[TRACE_ERR_MAX];
    tf = trace_open(r.c.pos, terr);
    if (!tf) {
        fprintf(stderr, "%s\n", terr);
        goto done;
    }
    if (cli_pick_kernel(r.c.pos, tf->nkernels, &r.c.kernel))
        goto done;
    struct trace_kernel *k = tf->kernels[r.c.kernel];
    uint64_t limit = cli_insts_limit(&r.c);
    if (cli_check_insts(r.c.pos, r.c.kernel, k, limit))
        goto done;
    const struct tr_launch *l = &k->launch;
    struct occ_launch ol;
    engine_occ_launch(l, -1, &ol);
    struct occ_result occ;
    if (occ_compute(&a, &ol, &occ) || occ.blocks_per_sm < 1) {
        fprintf(stderr, "smsim: %s: kernel '%s' cannot run: %s\n", r.c.pos, l->name,
                occ.detail[0] ? occ.detail : occ.error ? occ.error : "no block fits");
        goto done;
    }
    /* more blocks per SM than the grid gives each SM change nothing */
    uint64_t grid = tr_grid_blocks(l);
    int bmax = occ.blocks_per_sm;
    uint64_t per_sm = (grid + (uint64_t)a.sm_count - 1) / (uint64_t)a.sm_count;
    int grid_limited = per_sm < (uint64_t)bmax;
    if (grid_limited)
        bmax = (int)per_sm;
    int wpb = occ.warps_per_block;

    /* the lone-warp walk (Little's law) */
    struct study_little lw;
    if (study_little_walk(&a, k, SAT_WALK_MAX, &lw, err)) {
        fprintf(stderr, "smsim: %s: %s\n", r.c.pos, err);
        goto done;
    }

    if (r.c.plot && study_run_gnuplot("", 0, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    var.key = strdup("launch.blocks_per_sm");
    var.kind = SK_BLOCKS_PER_SM;
    var.values = calloc((size_t)bmax, sizeof *var.values);
    if (!var.key || !var.values)
        goto nomem;
    for (int b = 1; b <= bmax; b++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%d", b);
        if (!(var.values[var.nvalues++] = strdup(buf)))
            goto nomem;
    }
    /* every point has the traced launch: checked above (max_insts 0 here) */
    struct study_plan p = { r.c.config, r.c.pos, r.c.kernel, r.c.ov, r.c.nov, &var, 1,
                            r.c.seed, -1, r.c.max_cycles, 0, tf };
    if (study_run(&p, r.c.jobs, r.progress || isatty(2), &t, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    int col = study_table_metric(&t, r.metric);
    int ipc = study_table_metric(&t, default_metric);
    int ach = study_table_metric(&t, "sm__warps_active.avg.per_cycle_active");
    if (col < 0 || ipc < 0 || ach < 0) {
        fprintf(stderr, "smsim: internal: metric missing from the sweep\n");
        rc = 2;
        goto done;
    }
    x = malloc((size_t)bmax * sizeof *x);
    y = malloc((size_t)bmax * sizeof *y);
    if (!x || !y)
        goto nomem;
    double ipc_peak = 0;
    for (int i = 0; i < bmax; i++) {
        x[i] = (double)(i + 1) * wpb;
        y[i] = t.m[i * t.nmetrics + col];
        if (!isfinite(y[i]))
            y[i] = 0;
        double v = t.m[i * t.nmetrics + ipc];
        if (isfinite(v) && v > ipc_peak)
            ipc_peak = v;
    }
    /* the last wave of each point: grid / (b x SMs) blocks per slot */
    wv = calloc((size_t)bmax, sizeof *wv);
    if (!wv)
        goto nomem;
    int npartial = 0;
    for (int i = 0; i < bmax; i++) {
        study_waves(grid, i + 1, a.sm_count, &wv[i]);
        npartial += wv[i].partial;
    }
    struct study_sat s;
    study_saturation(x, y, bmax, r.threshold, r.tolerance, &s);
    int nsp = a.subpartitions;
    double maxw = occ.max_warps_per_sm > 0 ? occ.max_warps_per_sm : a.max_warps_per_sm;
    double sat_w = x[s.sat];
    double rate = ipc_peak / nsp; /* issue rate per scheduler at the plateau */
    double ll_sched = study_little_warps(&lw, rate);
    double ll_sm = ll_sched * nsp;
    const char *by = ll_sched <= 1.05 ? "ILP" : lw.indep > 1.05 ? "TLP and ILP" : "TLP";
    struct sat_estimate est[3];
    int nest = sat_estimates(&s, ll_sm, est);
    double elo = INFINITY, ehi = -INFINITY;
    int nin = 0;
    for (int i = 0; i < nest; i++)
        if (isfinite(est[i].warps) && est[i].warps <= maxw) {
            elo = fmin(elo, est[i].warps);
            ehi = fmax(ehi, est[i].warps);
            nin++;
        }

    FILE *f = open_memstream(&rep, &replen);
    if (!f)
        goto nomem;
    if (r.c.format == REPORT_JSON) {
        fputs("{\n  \"config\": ", f);
        report_json_string(f, a.name);
        fputs(",\n  \"kernel\": ", f);
        report_json_string(f, t.kernel_name);
        fputs(",\n  \"metric\": ", f);
        report_json_string(f, r.metric);
        fputs(",\n  \"threshold\": ", f);
        num(f, r.threshold);
        fprintf(f, ",\n  \"warps_per_block\": %d,\n  \"schedulers_per_sm\": %d,\n"
                   "  \"max_warps_per_sm\": ", wpb, nsp);
        num(f, maxw);
        fprintf(f, ",\n  \"grid_limited\": %s", grid_limited ? "true" : "false");
        fprintf(f, ",\n  \"grid_blocks\": %llu,\n  \"sm_count\": %d", (unsigned long long)grid,
                a.sm_count);
        fputs(",\n  \"recommended\": {\"warps_per_sm\": ", f);
        num(f, sat_w);
        fprintf(f, ", \"blocks_per_sm\": %d, \"warps_per_scheduler\": ", s.sat + 1);
        num(f, sat_w / nsp);
        fputs(", \"occupancy_pct\": ", f);
        num(f, sat_w / maxw * 100);
        fprintf(f, ", \"last_wave_partial\": %s, \"estimates_warps_per_sm\": {",
                wv[s.sat].partial ? "true" : "false");
        for (int i = 0; i < nest; i++) {
            fprintf(f, "%s\"%s\": ", i ? ", " : "", est[i].key);
            num(f, est[i].warps);
        }
        fputs("}, \"estimates_range_warps_per_sm\": ", f);
        if (nin) {
            fputs("[", f);
            num(f, elo);
            fputs(", ", f);
            num(f, ehi);
            fputs("]", f);
        } else {
            fputs("null", f);
        }
        fputs("}", f);
        fputs(",\n  \"saturation_warps_per_sm\": ", f);
        num(f, sat_w);
        fputs(",\n  \"saturation_warps_per_scheduler\": ", f);
        num(f, sat_w / nsp);
        fputs(",\n  \"saturation_occupancy_pct\": ", f);
        num(f, sat_w / maxw * 100);
        fputs(",\n  \"plateau\": ", f);
        num(f, s.plateau);
        fputs(",\n  \"peak_warps_per_sm\": ", f);
        num(f, x[s.peak]);
        fprintf(f, ",\n  \"peak_then_decline\": %s,\n  \"decline_pct\": ",
                s.decline ? "true" : "false");
        num(f, s.drop * 100);
        fputs(",\n  \"littles_law_warps_per_sm\": ", f);
        num(f, ll_sm);
        fputs(",\n  \"littles_law_warps_per_scheduler\": ", f);
        num(f, ll_sched);
        fputs(",\n  \"littles_law\": {\"hidden_latency\": ", f);
        report_json_string(f, study_lat_class_name(lw.dominant));
        fputs(", \"latency_cycles\": ", f);
        num(f, lw.latency);
        fputs(", \"independent_insts\": ", f);
        num(f, lw.indep);
        fputs(", \"issue_rate_per_scheduler\": ", f);
        num(f, rate);
        fprintf(f, ", \"lone_warp_insts\": %llu, \"lone_warp_cycles\": %llu, \"hidden_by\": ",
                (unsigned long long)lw.insts, (unsigned long long)lw.cycles);
        report_json_string(f, by);
        fputs("},\n  \"fit\": {\n    \"roofline\": ", f);
        if (s.roof_ok) {
            fputs("{\"a\": ", f);
            num(f, s.roof_a);
            fputs(", \"p\": ", f);
            num(f, s.roof_p);
            fputs(", \"knee_warps_per_sm\": ", f);
            num(f, s.roof_knee);
            fputs(", \"rms\": ", f);
            num(f, s.roof_rms);
            fputs("}", f);
        } else {
            fputs("null", f);
        }
        fputs(",\n    \"saturating\": ", f);
        if (s.mm_ok) {
            fputs("{\"p\": ", f);
            num(f, s.mm_p);
            fputs(", \"k\": ", f);
            num(f, s.mm_k);
            fputs(", \"threshold_warps_per_sm\": ", f);
            num(f, s.mm_x_at);
            fputs(", \"rms\": ", f);
            num(f, s.mm_rms);
            fputs("}", f);
        } else {
            fputs("null", f);
        }
        fputs("\n  },\n  \"points\": [", f);
        for (int i = 0; i < bmax; i++) {
            fprintf(f, "%s\n    {\"blocks_per_sm\": %d, \"warps_per_sm\": ", i ? "," : "", i + 1);
            num(f, x[i]);
            fputs(", \"occupancy_pct\": ", f);
            num(f, x[i] / maxw * 100);
            fputs(", \"achieved_warps_per_sm\": ", f);
            num(f, t.m[i * t.nmetrics + ach]);
            fputs(", \"value\": ", f);
            num(f, t.m[i * t.nmetrics + col]);
            fputs(", \"waves_per_multiprocessor\": ", f);
            num(f, wv[i].waves);
            fprintf(f, ", \"last_wave_partial\": %s, \"last_wave_fill_pct\": ",
                    wv[i].partial ? "true" : "false");
            num(f, wv[i].last_fill * 100);
            fputs("}", f);
        }
        fputs("\n  ]\n}\n", f);
    } else if (r.c.format == REPORT_CSV) {
        fputs("blocks_per_sm,warps_per_sm,warps_per_scheduler,occupancy_pct,"
              "achieved_warps_per_sm,", f);
        report_csv_string(f, r.metric, 0);
        fputs(",waves_per_multiprocessor,last_wave_partial,last_wave_fill_pct,recommended\n", f);
        for (int i = 0; i < bmax; i++) {
            fprintf(f, "%d,", i + 1);
            num(f, x[i]);
            fputc(',', f);
            num(f, x[i] / nsp);
            fputc(',', f);
            num(f, x[i] / maxw * 100);
            fputc(',', f);
            num(f, t.m[i * t.nmetrics + ach]);
            fputc(',', f);
            num(f, t.m[i * t.nmetrics + col]);
            fputc(',', f);
            num(f, wv[i].waves);
            fprintf(f, ",%d,", wv[i].partial);
            num(f, wv[i].last_fill * 100);
            fprintf(f, ",%d\n", i == s.sat);
        }
    } else {
        fprintf(f, "saturate: %s on %s: %d warp%s per block, %d schedulers per SM, "
                   "1..%d blocks (%g warps) per SM%s\n",
                t.kernel_name, a.name, wpb, wpb == 1 ? "" : "s", nsp, bmax, x[bmax - 1],
                grid_limited ? " (the grid gives no SM more)" : " (occupancy limit)");
        fprintf(f, "metric: %s (%s)\n\n", r.metric, unit);
        fprintf(f, "%9s %9s %11s %11s %13s %14s %8s %10s\n", "blocks/SM", "warps/SM",
                "warps/sched", "occupancy%", "achieved w/SM", "metric", "waves", "last wave");
        for (int i = 0; i < bmax; i++) {
            char lw_s[24];
            if (wv[i].partial)
                snprintf(lw_s, sizeof lw_s, "%.0f%% *", wv[i].last_fill * 100);
            else
                snprintf(lw_s, sizeof lw_s, "full");
            fprintf(f, "%9d %9g %11.2f %11.2f %13.2f %14.6g %8.2f %10s\n", i + 1, x[i],
                    x[i] / nsp, x[i] / maxw * 100, t.m[i * t.nmetrics + ach],
                    t.m[i * t.nmetrics + col], wv[i].waves, lw_s);
        }
        if (npartial)
            fprintf(f, "* partial last wave at %d of %d points: the grid's %llu blocks are not a "
                       "whole number of waves of blocks/SM x %d SMs, so the last wave "
                       "under-fills the GPU and its tail is in the metric\n",
                    npartial, bmax, (unsigned long long)grid, a.sm_count);
        fprintf(f, "\nplateau: %.6g %s (highest point, at %g warps per SM)\n", s.plateau, unit,
                x[s.peak]);
        fprintf(f, "saturation: %g warps per SM (%.2f per scheduler, %.2f %% occupancy) is the "
                   "first point >= %g x plateau\n",
                sat_w, sat_w / nsp, sat_w / maxw * 100, r.threshold);
        if (s.roof_ok)
            fprintf(f, "fit y = min(a x, p): a = %.4g, p = %.4g, knee at %.3g warps per SM, "
                       "rms residual %.3g\n", s.roof_a, s.roof_p, s.roof_knee, s.roof_rms);
        else
            fputs("fit y = min(a x, p): did not converge (too few points)\n", f);
        if (s.mm_ok)
            fprintf(f, "fit y = p x / (x + k): p = %.4g, k = %.4g, %g x p at %.3g warps per SM, "
                       "rms residual %.3g\n", s.mm_p, s.mm_k, r.threshold, s.mm_x_at, s.mm_rms);
        else
            fputs("fit y = p x / (x + k): did not converge (too few points)\n", f);
        if (s.decline)
            fprintf(f, "over-subscription: yes: peak at %g warps per SM, then %.1f %% lower at "
                       "%g (tolerance %g %%)\n", x[s.peak], s.drop * 100, x[bmax - 1],
                    r.tolerance * 100);
        else
            fprintf(f, "over-subscription: no (no decline past the peak beyond %g %%)\n",
                    r.tolerance * 100);
        fprintf(f, "Little's law: a lone warp issues %llu instructions in %llu cycles; waits "
                   "mostly on %s (%.4g cycles), %.3g independent instructions per latency; at "
                   "%.3g inst/cycle per scheduler: %.4g x %.3g / %.3g = %.3g warps per "
                   "scheduler (%.3g per SM)\n",
                (unsigned long long)lw.insts, (unsigned long long)lw.cycles,
                study_lat_class_name(lw.dominant), lw.latency, lw.indep, rate, lw.latency, rate,
                lw.indep, ll_sched, ll_sm);
        fprintf(f, "hiding: %s latency (%.4g cycles) is hidden by %s\n",
                study_lat_class_name(lw.dominant), lw.latency, by);
        fprintf(f, "recommended: %g warps per SM (%d blocks, %.2f per scheduler, %.2f %% "
                   "occupancy), the first simulated point >= %g x plateau%s",
                sat_w, s.sat + 1, sat_w / nsp, sat_w / maxw * 100, r.threshold,
                wv[s.sat].partial ? " (its last wave is partial)" : "");
        if (nin)
            fprintf(f, "; the other estimates span %.3g .. %.3g warps per SM (", elo, ehi);
        int first = 1;
        for (int i = 0; i < nest; i++)
            if (isfinite(est[i].warps) && est[i].warps <= maxw) {
                fprintf(f, "%s%s %.3g", first ? "" : ", ", est[i].name, est[i].warps);
                first = 0;
            }
        if (nin)
            fputc(')', f);
        for (int i = 0; i < nest; i++)
            if (!(isfinite(est[i].warps) && est[i].warps <= maxw))
                fprintf(f, "; %s: %.3g, past the SM's %g warps", est[i].name, est[i].warps,
                        maxw);
        fputc('\n', f);
    }
    if (fclose(f))
        goto nomem;
    struct cli_prov prov;
    if (cli_prov_init(&prov, "saturate", &r.c, &a) || cli_prov_apply(&prov, r.c.format, &rep, &replen))
        goto nomem;

    /* with -o the report first: a failed plot keeps it (cli_study_output) */
    struct sat_plot sp = { &r, &t, &a, x, y, bmax, &s, sat_w };
    if (r.c.plot && !r.c.out && (rc = cli_plot(r.c.plot, render_sat_plot, &sp)))
        goto done;
    rc = cli_write_out(r.c.out, rep, replen, "report");
    if (!rc && r.c.plot && r.c.out)
        rc = cli_plot(r.c.plot, render_sat_plot, &sp);
    if (!rc) /* after the answer: a caution on it */
        cli_weak_caution((const char *const[]){ l->name }, 1);
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    if (tf)
        trace_close(tf);
    study_var_free(&var);
    study_table_free(&t);
    free(x);
    free(y);
    free(wv);
    free(rep);
    free(r.c.ov);
    return rc;
}
