/* cli_merge.c — `smsim merge --sweep-manifest DIR/manifest.json FILES...`:
 * join the outputs of the jobs `smsim sweep --emit-jobs` wrote into the same
 * table (CSV, JSON, plot) a local sweep prints.  docs/studies.md.
 *
 * Each job output is matched to its point by file name (the manifest lists
 * point-K.json per point); every point must be present exactly once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "report/report.h"
#include "study/study.h"

static const char merge_help[] =
    "usage: smsim merge --sweep-manifest DIR/manifest.json FILE.json ... [options]\n"
    "  join the job outputs of smsim sweep --emit-jobs into the sweep's table\n"
    "  (the manifest itself may appear among the files: it is skipped)\n"
    "\n"
    "options:\n"
    "  --format csv|json      output format (default csv)\n"
    "  --plot FILE.svg|.png   also draw metrics against the first varied key (gnuplot)\n"
    "  --plot-metric NAME     metric to plot (repeatable)\n"
    "  -o FILE                write the table to FILE instead of stdout\n";

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The metrics object of a job output: a run report (kernels[0]) or a
 * one-point sweep (points[0]). */
static const struct study_json *job_metrics(const struct study_json *j)
{
    const struct study_json *a = study_json_get(j, "kernels");
    if (!a)
        a = study_json_get(j, "points");
    if (!a || a->type != SJ_ARRAY || a->n != 1)
        return NULL;
    const struct study_json *m = study_json_get(&a->kids[0], "metrics");
    return m && m->type == SJ_OBJECT ? m : NULL;
}

int cli_merge(int argc, char **argv)
{
    static const char *const formats[] = { "csv", "json", NULL };
    struct cli_common c = { .has = CLI_C_FORMAT | CLI_C_PLOT | CLI_C_OUT, .usage = merge_help,
                            .formats = formats, .format = REPORT_CSV };
    const char *manifest = NULL;
    const char *ys[8];
    int ny = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    if (!files) {
        fputs("smsim: out of memory\n", stderr);
        return 2;
    }
    int rc = 1;
    static const char *const known[] = { "--sweep-manifest", "--format", "--plot",
                                         "--plot-metric", "-o", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim merge --help", .known = known };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            goto done;
        if (kind == CLI_OPT_HELP) {
            rc = 0;
            goto done;
        }
        if (kind == CLI_OPT_ARG) {
            files[nfiles++] = val;
        } else if (!strcmp(name, "--sweep-manifest")) {
            manifest = val;
        } else if (!strcmp(name, "--plot-metric")) {
            if (ny >= 8) {
                fputs("smsim: at most 8 --plot-metric options\n", stderr);
                goto done;
            }
            ys[ny++] = val;
        }
    }
    if (!manifest) {
        fputs("smsim: missing --sweep-manifest DIR/manifest.json (see smsim merge --help)\n",
              stderr);
        goto done;
    }
    if (!ny) {
        ys[ny++] = "smsp__issue_active.avg.pct_of_peak_sustained_active";
        ys[ny++] = "sm__warps_active.avg.pct_of_peak_sustained_active";
    }
    {
        /* the outputs are checked before the inputs are read, and none may
         * be the manifest or a job output it would overwrite */
        const char *(*ins)[2] = calloc((size_t)nfiles + 1, sizeof *ins);
        if (!ins) {
            fputs("smsim: out of memory\n", stderr);
            rc = 2;
            goto done;
        }
        ins[0][0] = "sweep manifest";
        ins[0][1] = manifest;
        for (int i = 0; i < nfiles; i++) {
            ins[i + 1][0] = "job output";
            ins[i + 1][1] = files[i];
        }
        const char *const outs[][2] = { { "-o", c.out }, { "--plot", c.plot } };
        int bad = cli_check_outputs(outs, 2, (const char *const(*)[2])ins, nfiles + 1);
        free(ins);
        if (bad)
            goto done;
    }
    rc = cli_merge_files(manifest, files, nfiles, c.format == REPORT_JSON, c.out, c.plot, ys,
                         ny);
done:
    free(files);
    return rc;
}

int cli_merge_files(const char *manifest, const char *const *files, int nfiles, int json,
                    const char *out, const char *plot, const char *const *ys, int ny)
{
    char err[STUDY_ERR_MAX];
    struct study_json man, job;
    struct study_table t;
    memset(&t, 0, sizeof t);
    memset(&job, 0, sizeof job);
    if (study_json_load(manifest, &man, err)) {
        cli_error("%s\n", err);
        return 1;
    }
    int rc = 1;
    long *seen = NULL;
    const struct study_json *mark = study_json_get(&man, "smsim_sweep_manifest");
    const struct study_json *vary = study_json_get(&man, "vary");
    const struct study_json *points = study_json_get(&man, "points");
    const struct study_json *cname = study_json_get(&man, "config_name");
    if (!mark || !vary || vary->type != SJ_ARRAY || !points || points->type != SJ_ARRAY ||
        !cname || cname->type != SJ_STRING) {
        cli_error("%s: not a sweep manifest (written by smsim sweep --emit-jobs)\n",
                manifest);
        goto done;
    }
    long np = points->n;
    int nv = vary->n;
    seen = calloc((size_t)np + 1, sizeof *seen);
    if (!seen || study_table_init(&t, nv, np, 0))
        goto nomem;
    snprintf(t.config_name, sizeof t.config_name, "%s", cname->str);
    for (int i = 0; i < nv; i++)
        if (vary->kids[i].type != SJ_STRING || !(t.keys[i] = strdup(vary->kids[i].str))) {
            cli_error("%s: bad \"vary\" list\n", manifest);
            goto done;
        }
    for (long p = 0; p < np; p++) {
        const struct study_json *pv = study_json_get(&points->kids[p], "vary");
        const struct study_json *pf = study_json_get(&points->kids[p], "file");
        if (!pv || pv->type != SJ_OBJECT || pv->n != nv || !pf || pf->type != SJ_STRING) {
            cli_error("%s: point %ld: expected \"file\" and \"vary\"\n", manifest, p);
            goto done;
        }
        for (int i = 0; i < nv; i++)
            if (pv->kids[i].type != SJ_STRING || !(t.vals[p * nv + i] = strdup(pv->kids[i].str)))
                goto nomem;
    }

    struct stat ms;
    int have_ms = stat(manifest, &ms) == 0;
    int got = 0;
    for (int f = 0; f < nfiles; f++) {
        struct stat fs;
        if (have_ms && stat(files[f], &fs) == 0 && fs.st_dev == ms.st_dev &&
            fs.st_ino == ms.st_ino)
            continue; /* a DIR glob includes the manifest itself */
        long p;
        for (p = 0; p < np; p++)
            if (!strcmp(study_json_get(&points->kids[p], "file")->str, base_name(files[f])))
                break;
        if (p == np) {
            cli_error("%s: not a point of the sweep in %s\n", files[f], manifest);
            goto done;
        }
        if (seen[p]) {
            cli_error("%s: point %ld given twice\n", files[f], p);
            goto done;
        }
        seen[p] = 1;
        if (study_json_load(files[f], &job, err)) {
            cli_error("%s\n", err);
            goto done;
        }
        const struct study_json *m = job_metrics(&job);
        const struct study_json *jc = study_json_get(&job, "config");
        if (!m || !jc || jc->type != SJ_STRING) {
            cli_error("%s: not the JSON output of one smsim kernel or sweep point\n",
                    files[f]);
            goto done;
        }
        if (strcmp(jc->str, t.config_name)) {
            cli_error("%s: config '%s' is not the manifest's '%s'\n", files[f], jc->str,
                    t.config_name);
            goto done;
        }
        if (!got) {
            /* the first file fixes the metric columns */
            double *mm = malloc(((size_t)(np * m->n) + 1) * sizeof *mm);
            char **names = calloc((size_t)m->n + 1, sizeof *names);
            if (!mm || !names) {
                free(mm);
                free(names);
                goto nomem;
            }
            for (long i = 0; i < np * m->n; i++)
                mm[i] = NAN;
            free(t.m);
            free(t.metrics);
            t.m = mm;
            t.metrics = names;
            t.nmetrics = m->n;
            for (int i = 0; i < m->n; i++)
                if (!(names[i] = strdup(m->keys[i])))
                    goto nomem;
            const struct study_json *ks = study_json_get(&job, "kernels");
            const struct study_json *kn = ks ? study_json_get(&ks->kids[0], "name")
                                             : study_json_get(&job, "kernel");
            if (kn && kn->type == SJ_STRING)
                snprintf(t.kernel_name, sizeof t.kernel_name, "%s", kn->str);
        }
        if (m->n != t.nmetrics) {
            cli_error("%s: %d metrics, the other files have %d\n", files[f], m->n,
                    t.nmetrics);
            goto done;
        }
        for (int i = 0; i < m->n; i++) {
            if (strcmp(m->keys[i], t.metrics[i])) {
                cli_error("%s: metric %d is '%s', the other files have '%s'\n", files[f],
                        i, m->keys[i], t.metrics[i]);
                goto done;
            }
            const struct study_json *v = &m->kids[i];
            t.m[p * t.nmetrics + i] = v->type == SJ_NUMBER ? v->num : NAN;
        }
        study_json_free(&job);
        got++;
    }
    for (long p = 0; p < np; p++)
        if (!seen[p]) {
            cli_error("%s: point %ld (%s) has no output among the files given\n", manifest,
                    p, study_json_get(&points->kids[p], "file")->str);
            goto done;
        }
    {
        /* the sweep's provenance, from its manifest, as merge's */
        struct cli_prov prov;
        struct arch_override ov[64];
        cli_prov_init(&prov, "merge", NULL, NULL);
        const struct study_json *pv = study_json_get(&man, "provenance");
        const struct study_json *e;
        if (pv && pv->type == SJ_OBJECT) {
            if ((e = study_json_get(pv, "config_path")) && e->type == SJ_STRING)
                prov.config = e->str;
            if ((e = study_json_get(pv, "config_hash")) && e->type == SJ_STRING)
                snprintf(prov.config_hash, sizeof prov.config_hash, "%s", e->str);
            if ((e = study_json_get(pv, "overrides")) && e->type == SJ_ARRAY)
                for (int i = 0; i < e->n && prov.nov < 64; i++)
                    if (e->kids[i].type == SJ_STRING)
                        ov[prov.nov++].text = e->kids[i].str;
            prov.ov = ov;
            if ((e = study_json_get(pv, "seed")) && e->type == SJ_NUMBER && e->str &&
                e->str[0] >= '0' && e->str[0] <= '9') {
                prov.has_seed = 1;
                prov.seed = strtoull(e->str, NULL, 10); /* exact: no double */
            }
            if ((e = study_json_get(pv, "trace")) && e->type == SJ_STRING)
                prov.trace = e->str;
        }
        cli_prov_add(&prov, "manifest", manifest);
        rc = cli_study_output(&t, &prov, json, out, plot, ys, ny);
    }
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    study_json_free(&job);
    study_json_free(&man);
    study_table_free(&t);
    free(seen);
    return rc;
}
