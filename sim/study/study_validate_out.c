/* study_validate_out.c — the reports of `smsim validate`: a text table, JSON,
 * a gnuplot script of small multiples, and the threshold check of the CI
 * accuracy test.  docs/validation.md describes them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/report.h"
#include "study/study_validate.h"

/* --- text ---------------------------------------------------------------- */

/* A value in at most ~9 characters with 3-4 significant digits. */
static void fmt_val(char buf[32], double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, 32, "-");
    else if (a >= 1000)
        snprintf(buf, 32, "%.0f", v);
    else if (a >= 100)
        snprintf(buf, 32, "%.1f", v);
    else if (a >= 1)
        snprintf(buf, 32, "%.3f", v);
    else
        snprintf(buf, 32, "%.4f", v);
}

static void fmt_err(char buf[32], double meas, double pred)
{
    double e = val_err_pct(meas, pred);
    if (!isfinite(e))
        snprintf(buf, 32, "-");
    else
        snprintf(buf, 32, "%+.1f", e);
}

static void fmt_num(char buf[32], double v, const char *fmt)
{
    if (!isfinite(v))
        snprintf(buf, 32, "-");
    else
        snprintf(buf, 32, fmt, v);
}

/* A hit-rate difference smsim - ncu in percentage points, or "-". */
static void fmt_pp(char buf[32], double meas, double pred)
{
    fmt_num(buf, pred - meas, "%+.1f");
}

/* Width of the case column. */
static int case_width(const struct val_manifest *m, const struct val_result *r)
{
    int w = 4;
    for (int i = 0; i < r->npoints; i++) {
        int l = (int)strlen(m->c[r->p[i].mi].name);
        if (l > w)
            w = l;
    }
    return w > 40 ? 40 : w;
}

static void stat_line(FILE *f, const char *name, const struct val_stat *s)
{
    char a[32], b[32], c[32];
    fmt_num(a, s->mape, "%.1f");
    fmt_num(b, s->max_err, "%.1f");
    fmt_num(c, s->pearson, "%.3f");
    fprintf(f, "  %-58s %4d %8s %10s %9s\n", name, s->n, a, b, c);
}

int val_write_text(FILE *f, const struct val_manifest *m, const struct val_result *r)
{
    int cw = case_width(m, r);
    fprintf(f, "smsim validate: %d launch%s of %s on %s", r->npoints,
            r->npoints == 1 ? "" : "es", m->path, r->config_name);
    if (r->nskipped)
        fprintf(f, " (%d skipped: above --max-insts)", r->nskipped);
    fputs("\n\nPer launch (b = resident blocks per SM, warps = warps per scheduler; "
          "err % = (smsim - ncu) / ncu; hit rates: diff pp = smsim - ncu in percentage "
          "points):\n", f);
    fprintf(f, "%-*s %3s %6s", cw, "case", "b", "warps");
    for (int k = 0; k < VAL_NMETRICS; k++)
        fprintf(f, " | %-26s", val_metric_short(k));
    for (int k = 0; k < VAL_NHIT; k++)
        fprintf(f, " | %-24s", val_hit_short(k));
    fprintf(f, "\n%-*s %3s %6s", cw, "", "", "");
    for (int k = 0; k < VAL_NMETRICS; k++)
        fprintf(f, " | %8s %9s %7s", "ncu", "smsim", "err %");
    for (int k = 0; k < VAL_NHIT; k++)
        fprintf(f, " | %7s %7s %8s", "ncu", "smsim", "diff pp");
    fputc('\n', f);
    for (int i = 0; i < r->npoints; i++) {
        const struct val_point *p = &r->p[i];
        const struct val_case *c = &m->c[p->mi];
        fprintf(f, "%-*.*s %3d %6.2f", cw, cw, c->name, c->blocks_per_sm, p->x);
        for (int k = 0; k < VAL_NMETRICS; k++) {
            char a[32], b[32], e[32];
            fmt_val(a, p->meas[k]);
            fmt_val(b, p->pred[k]);
            fmt_err(e, p->meas[k], p->pred[k]);
            if (p->skipped)
                snprintf(b, sizeof b, "skipped");
            fprintf(f, " | %8s %9s %7s", a, b, e);
        }
        for (int k = 0; k < VAL_NHIT; k++) {
            char a[32], b[32], e[32];
            fmt_num(a, p->hit_meas[k], "%.1f");
            fmt_num(b, p->hit_pred[k], "%.1f");
            fmt_pp(e, p->hit_meas[k], p->hit_pred[k]);
            if (p->skipped)
                snprintf(b, sizeof b, "skipped");
            fprintf(f, " | %7s %7s %8s", a, b, e);
        }
        fputc('\n', f);
    }

    fputs("\nTop stall reasons (ncu's three largest stall ratios per issue active, "
          "'selected' left out):\n", f);
    fprintf(f, "%-*s %3s  %-20s %8s %8s %8s   %s\n", cw, "case", "b", "reason", "ncu", "smsim",
            "err %", "smsim's top 3");
    for (int i = 0; i < r->npoints; i++) {
        const struct val_point *p = &r->p[i];
        if (p->skipped)
            continue;
        const struct val_case *c = &m->c[p->mi];
        for (int k = 0; k < p->nstall; k++) {
            char a[32], b[32], e[32];
            fmt_val(a, p->stall[k].meas);
            fmt_val(b, p->stall[k].pred);
            fmt_err(e, p->stall[k].meas, p->stall[k].pred);
            fprintf(f, "%-*.*s %3d  %-20s %8s %8s %8s", cw, cw, k ? "" : c->name,
                    c->blocks_per_sm, p->stall[k].reason, a, b, e);
            if (k == 0) {
                fputs("   ", f);
                for (int q = 0; q < VAL_TOP && p->pred_top[q][0]; q++)
                    fprintf(f, "%s%s", q ? ", " : "", p->pred_top[q]);
            }
            fputc('\n', f);
        }
    }

    fputs("\nSaturation (smallest residency reaching 95 % of the case's plateau of issue "
          "active), warps per scheduler:\n", f);
    fprintf(f, "%-*s %6s %9s %9s %9s\n", cw, "case", "points", "ncu", "smsim", "|error|");
    for (int q = 0; q < r->ncases; q++) {
        const struct val_sat *s = &r->sat[q];
        char a[32], b[32], e[32];
        fmt_num(a, s->meas, "%.2f");
        fmt_num(b, s->pred, "%.2f");
        fmt_num(e, fabs(s->pred - s->meas), "%.2f");
        fprintf(f, "%-*.*s %6d %9s %9s %9s%s\n", cw, cw, m->c[r->p[s->first].mi].name,
                s->npoints, a, b, e, s->partial ? "  (partial sweep)" : "");
    }

    fputs("\nSummary (MAPE = mean |err %|; Pearson r of ncu vs smsim over all launches):\n", f);
    fprintf(f, "  %-58s %4s %8s %10s %9s\n", "metric", "n", "MAPE %", "max err %", "Pearson r");
    for (int k = 0; k < VAL_NMETRICS; k++)
        stat_line(f, val_metric_name(k), &r->metric[k]);
    stat_line(f, "stall reasons, measured top 3 (all pairs)", &r->stalls);
    for (int q = 0; q < r->nreasons; q++) {
        char name[80];
        snprintf(name, sizeof name, "  %s (where in the top 3)", r->reason[q]);
        stat_line(f, name, &r->reason_stat[q]);
    }
    fprintf(f, "  top stall reason agrees: %d of %d launches\n", r->top1_agree, r->top1_n);
    char e[32];
    fmt_num(e, r->sat_max_abs_err, "%.2f");
    int full = 0;
    for (int q = 0; q < r->ncases; q++)
        full += !r->sat[q].partial && isfinite(r->sat[q].meas);
    fprintf(f, "  saturation point: max |error| %s warps per scheduler over %d complete "
            "sweep%s\n", e, full, full == 1 ? "" : "s");

    fprintf(f, "\nHit rates (|diff| = |smsim - ncu| in percentage points; within: |diff| <= "
            "%.0f pp):\n", VAL_HIT_WITHIN_PP);
    fprintf(f, "  %-40s %4s %11s %10s %7s\n", "metric", "n", "mean |diff|", "max |diff|",
            "within");
    for (int k = 0; k < VAL_NHIT; k++) {
        const struct val_hit_stat *h = &r->hit[k];
        char a[32], b[32];
        fmt_num(a, h->mean_abs_pp, "%.1f");
        fmt_num(b, h->max_abs_pp, "%.1f");
        fprintf(f, "  %-40s %4d %11s %10s %3d/%-3d", val_hit_name(k), h->n, a, b, h->within,
                h->n);
        if (h->nmissing)
            fprintf(f, "  (%d launch%s skipped: not in the ncu CSV)", h->nmissing,
                    h->nmissing == 1 ? "" : "es");
        fputc('\n', f);
    }

    int notes = 0;
    for (int i = 0; i < r->npoints; i++)
        if (r->p[i].note[0]) {
            if (!notes++)
                fputs("\nNotes:\n", f);
            fprintf(f, "  %s b=%d: %s\n", m->c[r->p[i].mi].name, m->c[r->p[i].mi].blocks_per_sm,
                    r->p[i].note);
        }
    if (r->nskipped) {
        fputs("\nSkipped (more warp-instructions than --max-insts):\n", f);
        for (int i = 0; i < r->npoints; i++)
            if (r->p[i].skipped)
                fprintf(f, "  %s b=%d: %s%llu warp-instructions\n", m->c[r->p[i].mi].name,
                        m->c[r->p[i].mi].blocks_per_sm, r->p[i].insts_exact ? "" : "at least ",
                        (unsigned long long)r->p[i].insts);
    }
    return ferror(f) ? -1 : 0;
}

/* --- JSON ---------------------------------------------------------------- */

static void json_stat(FILE *f, const struct val_stat *s)
{
    fputs("{\"mape_pct\": ", f);
    report_json_number(f, s->mape);
    fputs(", \"max_err_pct\": ", f);
    report_json_number(f, s->max_err);
    fputs(", \"pearson_r\": ", f);
    report_json_number(f, s->pearson);
    fprintf(f, ", \"n\": %d, \"n_measured_zero\": %d}", s->n, s->nzero);
}

int val_write_json(FILE *f, const struct val_manifest *m, const struct val_result *r)
{
    fputs("{\n  \"metrics\": {", f);
    for (int k = 0; k < VAL_NMETRICS; k++) {
        fputs(k ? ",\n    " : "\n    ", f);
        report_json_string(f, val_metric_name(k));
        fputs(": ", f);
        json_stat(f, &r->metric[k]);
    }
    for (int q = 0; q < r->nreasons; q++) {
        char name[160];
        snprintf(name, sizeof name, VAL_STALL_PREFIX "%s" VAL_STALL_SUFFIX, r->reason[q]);
        fputs(",\n    ", f);
        report_json_string(f, name);
        fputs(": ", f);
        json_stat(f, &r->reason_stat[q]);
    }
    fputs("\n  },\n  \"saturation\": {\"max_abs_err_warps_per_scheduler\": ", f);
    report_json_number(f, r->sat_max_abs_err);
    fputs(", \"threshold\": 0.95, \"metric\": \"smsp__issue_active.avg.per_cycle_active\", "
          "\"cases\": [", f);
    for (int q = 0; q < r->ncases; q++) {
        const struct val_sat *s = &r->sat[q];
        fputs(q ? ",\n    " : "\n    ", f);
        fputs("{\"case\": ", f);
        report_json_string(f, m->c[r->p[s->first].mi].name);
        fprintf(f, ", \"points\": %d, \"partial\": %s, \"measured\": ", s->npoints,
                s->partial ? "true" : "false");
        report_json_number(f, s->meas);
        fputs(", \"predicted\": ", f);
        report_json_number(f, s->pred);
        fputs(", \"abs_err\": ", f);
        report_json_number(f, fabs(s->pred - s->meas));
        fputc('}', f);
    }
    fputs(r->ncases ? "\n  ]},\n" : "]},\n", f);
    fputs("  \"stalls_top3\": ", f);
    json_stat(f, &r->stalls);
    fprintf(f, ",\n  \"top_stall_agree\": {\"agree\": %d, \"of\": %d},\n", r->top1_agree,
            r->top1_n);
    fputs("  \"hit_rates\": {", f);
    for (int k = 0; k < VAL_NHIT; k++) {
        const struct val_hit_stat *h = &r->hit[k];
        fputs(k ? ",\n    " : "\n    ", f);
        report_json_string(f, val_hit_name(k));
        fputs(": {\"mean_abs_diff_pp\": ", f);
        report_json_number(f, h->mean_abs_pp);
        fputs(", \"max_abs_diff_pp\": ", f);
        report_json_number(f, h->max_abs_pp);
        fputs(", \"within_pp\": ", f);
        report_json_number(f, VAL_HIT_WITHIN_PP);
        fprintf(f, ", \"within\": %d, \"n\": %d, \"n_missing\": %d}", h->within, h->n,
                h->nmissing);
    }
    fputs("\n  },\n", f);
    fputs("  \"config\": ", f);
    report_json_string(f, r->config_name);
    fputs(",\n  \"manifest\": ", f);
    report_json_string(f, m->path);
    fprintf(f, ",\n  \"points\": %d,\n  \"skipped\": %d,\n  \"cases\": [", r->npoints,
            r->nskipped);
    for (int i = 0; i < r->npoints; i++) {
        const struct val_point *p = &r->p[i];
        const struct val_case *c = &m->c[p->mi];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"case\": ", f);
        report_json_string(f, c->name);
        fprintf(f, ", \"blocks_per_sm\": %d, \"warps_per_scheduler\": ", c->blocks_per_sm);
        report_json_number(f, p->x);
        fputs(", \"ncu_id\": ", f);
        report_json_string(f, c->ncu_id);
        fputs(", \"trace\": ", f);
        report_json_string(f, c->trace);
        fprintf(f, ", \"warp_insts\": %llu, \"skipped\": %s, \"blocks_per_sm_cap\": %d",
                (unsigned long long)p->insts, p->skipped ? "true" : "false", p->cap);
        const char *what[3] = { "measured", "predicted", "err_pct" };
        for (int w = 0; w < 3; w++) {
            fprintf(f, ",\n     \"%s\": {", what[w]);
            for (int k = 0; k < VAL_NMETRICS; k++) {
                fputs(k ? ", " : "", f);
                report_json_string(f, val_metric_name(k));
                fputs(": ", f);
                double v = w == 0 ? p->meas[k] : w == 1 ? p->pred[k]
                                                        : val_err_pct(p->meas[k], p->pred[k]);
                report_json_number(f, p->skipped && w ? NAN : v);
            }
            for (int k = 0; k < VAL_NHIT && w < 2; k++) {
                fputs(", ", f);
                report_json_string(f, val_hit_name(k));
                fputs(": ", f);
                double v = w == 0 ? p->hit_meas[k] : p->hit_pred[k];
                report_json_number(f, p->skipped && w ? NAN : v);
            }
            fputc('}', f);
        }
        fputs(",\n     \"diff_pp\": {", f);
        for (int k = 0; k < VAL_NHIT; k++) {
            fputs(k ? ", " : "", f);
            report_json_string(f, val_hit_name(k));
            fputs(": ", f);
            report_json_number(f, p->skipped ? NAN : p->hit_pred[k] - p->hit_meas[k]);
        }
        fputc('}', f);
        fputs(",\n     \"stalls_top3\": [", f);
        for (int k = 0; k < p->nstall; k++) {
            fputs(k ? ", {\"reason\": " : "{\"reason\": ", f);
            report_json_string(f, p->stall[k].reason);
            fputs(", \"measured\": ", f);
            report_json_number(f, p->stall[k].meas);
            fputs(", \"predicted\": ", f);
            report_json_number(f, p->skipped ? NAN : p->stall[k].pred);
            fputc('}', f);
        }
        fputs("], \"predicted_top3\": [", f);
        for (int k = 0; k < VAL_TOP && p->pred_top[k][0]; k++) {
            fputs(k ? ", " : "", f);
            report_json_string(f, p->pred_top[k]);
        }
        fputs("], \"note\": ", f);
        report_json_string(f, p->note);
        fputc('}', f);
    }
    fputs(r->npoints ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* --- gnuplot --------------------------------------------------------------- */

/* How many launches of case `name` were simulated (not skipped). */
static int case_simulated(const struct val_manifest *m, const struct val_result *r,
                          const char *name)
{
    int n = 0;
    for (int i = 0; i < r->npoints; i++)
        n += !r->p[i].skipped && !strcmp(m->c[r->p[i].mi].name, name);
    return n;
}

int val_write_gnuplot(FILE *f, const struct val_manifest *m, const struct val_result *r,
                      int metric, const char *out, const char *note)
{
    if (metric < 0 || metric >= VAL_NMETRICS || r->ncases < 1)
        return -1;
    int cols = (int)ceil(sqrt((double)r->ncases));
    int rows = (r->ncases + cols - 1) / cols;
    size_t n = strlen(out);
    int svg = n > 4 && !strcmp(out + n - 4, ".svg");
    int png = n > 4 && !strcmp(out + n - 4, ".png");
    if (!svg && !png)
        return -1;
    fputs("# gnuplot script written by smsim validate\n", f);
    if (svg)
        fprintf(f, "set terminal svg size %d,%d dynamic font 'sans,10' background rgb 'white'\n",
                360 * cols, 280 * rows + 40);
    else
        fprintf(f, "set terminal pngcairo size %d,%d font 'sans,9'\n", 360 * cols,
                280 * rows + 40);
    fputs("set output ", f);
    study_gp_string(f, out);
    fputs("\nset grid\nset yrange [0:*]\nset key bottom right noenhanced\n"
          "set xlabel 'warps per scheduler'\nset ylabel ", f);
    study_gp_string(f, val_metric_short(metric));
    fputs("\nset datafile missing 'NaN'\n", f);
    for (int q = 0; q < r->ncases; q++) {
        fprintf(f, "$d%d << EOD\n", q);
        const char *name = m->c[r->p[r->sat[q].first].mi].name;
        /* the case's simulated points by residency */
        int last = -1;
        for (;;) {
            int best = -1;
            for (int i = 0; i < r->npoints; i++) {
                const struct val_point *p = &r->p[i];
                if (p->skipped || strcmp(m->c[p->mi].name, name))
                    continue;
                int b = m->c[p->mi].blocks_per_sm;
                if (b > last && (best < 0 || b < m->c[r->p[best].mi].blocks_per_sm))
                    best = i;
            }
            if (best < 0)
                break;
            const struct val_point *p = &r->p[best];
            char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX], c[REPORT_NUM_MAX];
            report_format_number(a, p->x);
            report_format_number(b, p->meas[metric]);
            report_format_number(c, p->pred[metric]);
            fprintf(f, "%s %s %s\n", a, isfinite(p->meas[metric]) ? b : "NaN",
                    isfinite(p->pred[metric]) ? c : "NaN");
            last = m->c[p->mi].blocks_per_sm;
        }
        fputs("EOD\n", f);
    }
    fputs("set multiplot layout ", f);
    fprintf(f, "%d,%d title ", rows, cols);
    char title[800];
    snprintf(title, sizeof title, "%s: ncu (measured) vs smsim (%s)%s",
             val_metric_name(metric), r->config_name, note);
    study_gp_string(f, title);
    fputs(" noenhanced\n", f);
    for (int q = 0; q < r->ncases; q++) {
        const char *name = m->c[r->p[r->sat[q].first].mi].name;
        fputs("set title ", f);
        study_gp_string(f, name);
        fputs(" noenhanced\n", f);
        if (!case_simulated(m, r, name)) {
            /* every launch skipped (--max-insts): an empty panel that says
             * so; an empty data block has no x range and stops gnuplot */
            fputs("set label 1 'no launch simulated' at graph 0.5,0.5 center\n"
                  "plot [0:1][0:1] NaN notitle\nunset label 1\n", f);
            continue;
        }
        fprintf(f, "plot $d%d using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'ncu', \\\n"
                   "     $d%d using 1:3 with linespoints pt 6 ps 0.5 lw 2 dt 2 title 'smsim'\n",
                q, q);
    }
    fputs("unset multiplot\n", f);
    return ferror(f) ? -1 : 0;
}

/* --- thresholds ------------------------------------------------------------ */

/* The index of a compared hit rate named `metric`, or -1. */
static int hit_index(const char *metric)
{
    for (int k = 0; k < VAL_NHIT; k++)
        if (!strcmp(metric, val_hit_name(k)))
            return k;
    return -1;
}

int val_check_thresholds(const char *path, const struct val_result *r, FILE *out,
                         char err[STUDY_ERR_MAX])
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, STUDY_ERR_MAX, "%s: cannot open the thresholds: %s", path,
                 strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, failed = 0, rc = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        char *metric = line, *stat = strchr(line, '\t'), *lim = NULL;
        if (stat) {
            *stat++ = '\0';
            lim = strchr(stat, '\t');
            if (lim)
                *lim++ = '\0';
        }
        if (!stat || !lim) {
            snprintf(err, STUDY_ERR_MAX,
                     "%s:%d:1: expected METRIC<TAB>STAT<TAB>LIMIT", path, lineno);
            rc = -1;
            break;
        }
        int lim_col = (int)(lim - line) + 1, stat_col = (int)(stat - line) + 1;
        if (!strcmp(metric, "ci") || !strcmp(metric, "metric"))
            continue; /* settings of the test script; the header row */
        char *end;
        errno = 0;
        double limit = strtod(lim, &end);
        if (end == lim || *end || errno || !isfinite(limit)) {
            snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: limit '%s' is not a number", path, lineno,
                     lim_col, lim);
            rc = -1;
            break;
        }
        const struct val_stat *s = NULL;
        double v;
        int upper = 1;
        if (!strcmp(metric, "saturation")) {
            if (strcmp(stat, "max_abs_err_warps_per_scheduler")) {
                snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: saturation: unknown statistic '%s' "
                         "(expected max_abs_err_warps_per_scheduler)", path, lineno, stat_col,
                         stat);
                rc = -1;
                break;
            }
            v = r->sat_max_abs_err;
        } else if (hit_index(metric) >= 0) {
            const struct val_hit_stat *h = &r->hit[hit_index(metric)];
            if (!strcmp(stat, "max_abs_diff_pp")) {
                v = h->max_abs_pp;
            } else if (!strcmp(stat, "mean_abs_diff_pp")) {
                v = h->mean_abs_pp;
            } else {
                snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: %s: unknown statistic '%s' (expected "
                         "max_abs_diff_pp or mean_abs_diff_pp)", path, lineno, stat_col, metric,
                         stat);
                rc = -1;
                break;
            }
        } else {
            if (!strcmp(metric, "stalls_top3"))
                s = &r->stalls;
            for (int k = 0; k < VAL_NMETRICS && !s; k++)
                if (!strcmp(metric, val_metric_name(k)))
                    s = &r->metric[k];
            if (!s) {
                snprintf(err, STUDY_ERR_MAX, "%s:%d:1: unknown metric '%s' (expected one of "
                         "the compared ncu metrics or hit rates, stalls_top3 or saturation)",
                         path, lineno,
                         metric);
                rc = -1;
                break;
            }
            if (!strcmp(stat, "mape_pct")) {
                v = s->mape;
            } else if (!strcmp(stat, "max_err_pct")) {
                v = s->max_err;
            } else if (!strcmp(stat, "pearson_r")) {
                v = s->pearson;
                upper = 0;
            } else {
                snprintf(err, STUDY_ERR_MAX, "%s:%d:%d: unknown statistic '%s' (expected "
                         "mape_pct, max_err_pct or pearson_r)", path, lineno, stat_col, stat);
                rc = -1;
                break;
            }
        }
        int ok = isfinite(v) && (upper ? v <= limit : v >= limit);
        if (!ok) {
            failed++;
            char vb[32];
            fmt_num(vb, v, "%.4g");
            fprintf(out, "%s:%d: accuracy below threshold: %s %s = %s, %s %s\n", path, lineno,
                    metric, stat, isfinite(v) ? vb : "undefined (no points)",
                    upper ? "limit <=" : "limit >=", lim);
        }
    }
    free(line);
    fclose(f);
    return rc < 0 ? -1 : failed;
}
