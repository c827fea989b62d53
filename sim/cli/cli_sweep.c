/* cli_sweep.c — `smsim sweep`: simulate a trace over the grid product of
 * varied configuration and launch keys; print one row per point (CSV or
 * JSON), optionally a gnuplot plot, or emit the points as shell jobs for a
 * cluster (merged back by `smsim merge`).  docs/studies.md.
 *
 * Every point is validated before anything runs, and stdout is written only
 * once every point has been simulated: an error leaves stdout empty.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "report/report.h"
#include "study/study.h"

static const char sweep_help[] =
    "usage: smsim sweep --config CFG.yaml TRACE --vary KEY=SPEC [--vary ...] [options]\n"
    "  simulate TRACE at every point of the grid product of the --vary keys and\n"
    "  print one row per point: the varied values, then every ncu metric\n"
    "\n"
    "  KEY=a:b:step           inclusive numeric range (sm.max_warps=16:64:16)\n"
    "  KEY=v1,v2,...          a list of values (scheduler.policy=gto,lrr)\n"
    "  KEY is any configuration key (see smsim config --schema) or a launch key:\n"
    "    launch.threads       block x of the traced launch (the grid is kept)\n"
    "    launch.regs          registers per thread\n"
    "    launch.smem_dynamic  dynamic shared memory per block, bytes\n"
    "    launch.blocks_per_sm cap on resident blocks per SM (like --blocks-per-sm)\n"
    "\n"
    "options:\n"
    "  --set sec.key=val      base override applied to every point (repeatable)\n"
    "  --format csv|json      output format (default csv)\n"
    "  --plot FILE.svg|.png   also draw metrics against the first varied key (gnuplot)\n"
    "  --plot-metric NAME     metric to plot (repeatable; default issue active % and\n"
    "                         achieved occupancy %)\n"
    "  --jobs N               points simulated at once, one host thread each (default:\n"
    "                         online CPUs; --threads of a run is threads of one simulation)\n"
    "  --progress             progress bar on stderr even when it is not a terminal\n"
    "  --kernel N             kernel of the trace (required when it has several)\n"
    "  --seed N               RNG seed (default 1)\n"
    "  --carveout PCT         preferred shared-memory carveout 0..100\n"
    "  --max-cycles N         stop a point's kernel after N cycles (an error)\n"
    "  --max-insts N          refuse a point of more than N warp-instructions, counted\n"
    "                         before the run (default 10^11 unless --max-cycles is\n"
    "                         given; 0 = no limit)\n"
    "  -o FILE                write the table to FILE instead of stdout\n"
    "  --emit-jobs FILE       do not simulate: write one smsim command per point to\n"
    "                         FILE and DIR/manifest.json (for GNU parallel, xargs -P,\n"
    "                         a Slurm array); join the results with smsim merge\n"
    "  --job-dir DIR          where the jobs write point-K.json (default: sweep-jobs)\n";

struct sweep_args {
    struct cli_common c;             /* --config, TRACE, --format, --plot, --set,
                                        --seed, --kernel (-1 = the only one), -o,
                                        --jobs, --carveout, --max-cycles         */
    const char *ys[8];               /* --plot-metric                           */
    int ny;                          /* their count                             */
    const char *emit;                /* --emit-jobs                             */
    const char *jobdir;              /* --job-dir                               */
    int progress;                    /* --progress                              */
    const char *vary_text[STUDY_MAX_VARS]; /* --vary as typed                   */
    struct study_var vars[STUDY_MAX_VARS]; /* parsed                            */
    int nvars;                       /* their count                             */
};

static void free_args(struct sweep_args *r)
{
    for (int i = 0; i < r->nvars; i++)
        study_var_free(&r->vars[i]);
    free(r->c.ov);
}

/* 0 ok, 1 error (printed), 3 help printed. */
static int parse_args(int argc, char **argv, struct sweep_args *r)
{
    static const char *const formats[] = { "csv", "json", NULL };
    memset(r, 0, sizeof *r);
    r->c = (struct cli_common){ .has = CLI_C_CONFIG | CLI_C_SET | CLI_C_SEED | CLI_C_KERNEL |
                                       CLI_C_FORMAT | CLI_C_PLOT | CLI_C_OUT | CLI_C_POS |
                                       CLI_C_JOBS | CLI_C_CARVEOUT | CLI_C_MAXCYC |
                                       CLI_C_MAXINSTS,
                                .usage = sweep_help, .formats = formats, .pos_name = "trace",
                                .seed = 1, .kernel = -1, .format = REPORT_CSV,
                                .carveout = -1, .jobs = cli_default_jobs() };
    r->jobdir = "sweep-jobs";
    static const char *const known[] = {
        "--config", "--format", "--set", "--vary", "--plot", "--plot-metric", "--jobs",
        "--kernel", "--seed", "--carveout", "--max-cycles", "-o", "--emit-jobs",
        "--job-dir", "--max-insts", NULL
    };
    static const char *const flags[] = { "--progress", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim sweep --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (kind == CLI_OPT_FLAG) {
            r->progress = 1;
        } else if (!strcmp(name, "--vary")) {
            if (r->nvars >= STUDY_MAX_VARS) {
                fprintf(stderr, "smsim: at most %d --vary options\n", STUDY_MAX_VARS);
                return 1;
            }
            char err[STUDY_ERR_MAX];
            if (study_parse_vary(val, &r->vars[r->nvars], err)) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            for (int j = 0; j < r->nvars; j++)
                if (!strcmp(r->vars[j].key, r->vars[r->nvars].key)) {
                    fprintf(stderr, "smsim: --vary '%s': key '%s' is already varied\n", val,
                            r->vars[j].key);
                    study_var_free(&r->vars[r->nvars]);
                    return 1;
                }
            r->vary_text[r->nvars++] = val;
        } else if (!strcmp(name, "--plot-metric")) {
            if (r->ny >= 8) {
                fputs("smsim: at most 8 --plot-metric options\n", stderr);
                return 1;
            }
            r->ys[r->ny++] = val;
        } else if (!strcmp(name, "--emit-jobs")) {
            r->emit = val;
        } else if (!strcmp(name, "--job-dir")) {
            r->jobdir = val;
        }
    }
    if (cli_common_done(&r->c, &st))
        return 1;
    if (!r->nvars) {
        fputs("smsim: missing --vary KEY=SPEC (see smsim sweep --help)\n", stderr);
        return 1;
    }
    if (r->emit && (r->c.plot || r->c.out)) {
        fputs("smsim: --emit-jobs writes jobs, not a table: use --plot/-o with smsim merge\n",
              stderr);
        return 1;
    }
    if (!r->ny) {
        r->ys[r->ny++] = "smsp__issue_active.avg.pct_of_peak_sustained_active";
        r->ys[r->ny++] = "sm__warps_active.avg.pct_of_peak_sustained_active";
    }
    return 0;
}

/* The plot of a table (cli_plot's render). */
struct table_plot {
    const struct study_table *t;  /* the table                  */
    const struct cli_prov *prov;  /* its provenance (the title) */
    const char *const *ys;        /* metrics drawn              */
    int ny;                       /* their count                */
};

static int render_table_plot(FILE *f, const char *out, void *ud)
{
    const struct table_plot *tp = ud;
    char title[700], sets[300];
    cli_prov_title(tp->prov, sets, sizeof sets);
    snprintf(title, sizeof title, "%s on %s%s", tp->t->kernel_name, tp->t->config_name, sets);
    return study_write_gnuplot(f, tp->t, out, title, tp->ys, tp->ny);
}

int cli_study_output(const struct study_table *t, const struct cli_prov *prov, int json,
                     const char *out, const char *plot, const char *const *ys, int ny)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = 2;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        goto nomem;
    int werr = json ? study_write_json(f, t) : study_write_csv(f, t);
    if (fclose(f) || werr || cli_prov_apply(prov, json ? REPORT_JSON : REPORT_CSV, &buf, &len))
        goto nomem;
    if (plot)
        for (int i = 0; i < ny; i++)
            if (study_table_metric(t, ys[i]) < 0) {
                fprintf(stderr, "smsim: --plot-metric '%s': no such metric in the table\n",
                        ys[i]);
                rc = 1;
                goto done;
            }
    /* with -o the table first: a plot that fails (gnuplot's message is
     * shown) leaves the table written, not lost with it; on stdout the
     * plot first, so that an error leaves stdout empty */
    struct table_plot tp = { t, prov, ys, ny };
    if (plot && !out && (rc = cli_plot(plot, render_table_plot, &tp)))
        goto done;
    rc = cli_write_out(out, buf, len, "table");
    if (!rc && plot && out)
        rc = cli_plot(plot, render_table_plot, &tp);
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
done:
    free(buf);
    return rc;
}

/* Shell word: single-quoted unless made of safe characters only. */
static void sh_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") ==
                  strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* --emit-jobs: FILE gets one command per point, DIR/manifest.json (mpath)
 * the table's shape (docs/studies.md); both appear, or neither. */
static int emit_jobs(const struct sweep_args *r, const struct study_plan *p, const char *mpath)
{
    long np = study_npoints(p->vars, p->nvars);
    int launch_shape = 0; /* a launch key smsim's run command cannot express */
    for (int i = 0; i < p->nvars; i++)
        if (p->vars[i].kind == SK_THREADS || p->vars[i].kind == SK_REGS ||
            p->vars[i].kind == SK_SMEM_DYNAMIC)
            launch_shape = 1;
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        snprintf(self, sizeof self, "smsim");
    else
        self[sl] = '\0';
    char *jb = NULL, *mb = NULL;
    size_t jl = 0, ml = 0;
    FILE *j = open_memstream(&jb, &jl);
    FILE *m = open_memstream(&mb, &ml);
    if (!j || !m) {
        fputs("smsim: out of memory\n", stderr);
        return 2;
    }
    struct arch a;
    char aerr[ARCH_ERR_MAX];
    const char *cname = arch_load(p->config, p->base, p->nbase, &a, aerr) ? "" : a.name;
    fputs("{\n  \"smsim_sweep_manifest\": 1,\n  \"config\": ", m);
    report_json_string(m, p->config);
    fputs(",\n  \"config_name\": ", m);
    report_json_string(m, cname);
    fputs(",\n  \"trace\": ", m);
    report_json_string(m, p->trace);
    fprintf(m, ",\n  \"kernel\": %d,\n  \"vary\": [", p->kernel);
    for (int i = 0; i < p->nvars; i++) {
        fputs(i ? ", " : "", m);
        report_json_string(m, p->vars[i].key);
    }
    fputs("],\n  \"points\": [", m);
    for (long pt = 0; pt < np; pt++) {
        int idx[STUDY_MAX_VARS];
        study_point_index(p->vars, p->nvars, pt, idx);
        char file[64], outp[4200];
        snprintf(file, sizeof file, "point-%ld.json", pt);
        snprintf(outp, sizeof outp, "%s/%s", r->jobdir, file);
        sh_word(j, self);
        if (launch_shape)
            fputs(" sweep", j);
        fputs(" --config ", j);
        sh_word(j, p->config);
        fputc(' ', j);
        sh_word(j, p->trace);
        fprintf(j, " --kernel %d --seed %llu", p->kernel, (unsigned long long)p->seed);
        if (p->carveout_pct >= 0)
            fprintf(j, " --carveout %d", p->carveout_pct);
        if (p->max_cycles)
            fprintf(j, " --max-cycles %llu", (unsigned long long)p->max_cycles);
        if (r->c.max_insts_given)
            fprintf(j, " --max-insts %llu", (unsigned long long)r->c.max_insts);
        for (int i = 0; i < p->nbase; i++) {
            fputs(" --set ", j);
            sh_word(j, p->base[i].text);
        }
        fprintf(m, "%s\n    {\"point\": %ld, \"file\": ", pt ? "," : "", pt);
        report_json_string(m, file);
        fputs(", \"vary\": {", m);
        for (int i = 0; i < p->nvars; i++) {
            const struct study_var *v = &p->vars[i];
            char kv[600];
            snprintf(kv, sizeof kv, "%s=%s", v->key, v->values[idx[i]]);
            if (launch_shape)
                fputs(" --vary ", j);
            else if (v->kind == SK_BLOCKS_PER_SM)
                fprintf(j, " --blocks-per-sm %s", v->values[idx[i]]);
            else
                fputs(" --set ", j);
            if (launch_shape || v->kind != SK_BLOCKS_PER_SM)
                sh_word(j, kv);
            fputs(i ? ", " : "", m);
            report_json_string(m, v->key);
            fputs(": ", m);
            report_json_string(m, v->values[idx[i]]);
        }
        fputs("}}", m);
        fputs(launch_shape ? " --jobs 1 --format json -o " : " --format json -o ", j);
        sh_word(j, outp);
        fputc('\n', j);
    }
    fputs("\n  ]\n}\n", m);
    int bad = fclose(j) | fclose(m);
    int rc = 2;
    /* the sweep's provenance, which merge carries into the table */
    struct cli_prov prov;
    if (!bad && (cli_prov_init(&prov, "sweep", &r->c, cname[0] ? &a : NULL) ||
                 cli_prov_apply(&prov, REPORT_JSON, &mb, &ml)))
        bad = 1;
    if (bad) {
        fputs("smsim: out of memory\n", stderr);
    } else {
        struct cli_out mo, jo;
        rc = 1;
        if (!cli_out_begin(&mo, mpath, mb, ml)) {
            if (cli_out_begin(&jo, r->emit, jb, jl)) {
                cli_out_abort(&mo);
            } else if (cli_out_commit(&mo)) {
                cli_out_abort(&jo);
            } else {
                rc = cli_out_commit(&jo);
            }
        }
    }
    free(jb);
    free(mb);
    return rc;
}

int cli_sweep(int argc, char **argv)
{
    struct sweep_args r;
    int rc = parse_args(argc, argv, &r);
    if (rc) {
        free_args(&r);
        return rc == 3 ? 0 : rc;
    }
    rc = 1;
    struct trace_file *tf = NULL;
    char err[STUDY_ERR_MAX];
    if (study_npoints(r.vars, r.nvars) < 0) {
        fprintf(stderr, "smsim: the sweep has more than %d points\n", STUDY_MAX_POINTS);
        goto done;
    }
    /* the trace is read once (a pipe or "-" can be read only once) */
    char terr[TRACE_ERR_MAX];
    tf = trace_open(r.c.pos, terr);
    if (!tf) {
        fprintf(stderr, "%s\n", terr);
        goto done;
    }
    if (cli_pick_kernel(r.c.pos, tf->nkernels, &r.c.kernel))
        goto done;
    struct study_plan p = { r.c.config, r.c.pos, r.c.kernel, r.c.ov, r.c.nov, r.vars, r.nvars,
                            r.c.seed, r.c.carveout, r.c.max_cycles, cli_insts_limit(&r.c), tf };
    const char *const ins[][2] = { { "input trace", r.c.pos }, { "configuration", r.c.config } };
    if (r.emit) {
        /* validate every point before writing a job */
        struct study_point pt;
        for (long i = 0; i < study_npoints(r.vars, r.nvars); i++)
            if (study_point_prepare(&p, &tf->kernels[r.c.kernel]->launch, i, &pt, err)) {
                fprintf(stderr, "%s\n", err);
                goto done;
            }
        const char *const jobs[][2] = { { "--emit-jobs", r.emit } };
        if (cli_check_outputs(jobs, 1, ins, 2))
            goto done;
        if (mkdir(r.jobdir, 0777) && errno != EEXIST) {
            fprintf(stderr, "smsim: cannot create --job-dir '%s': %s\n", r.jobdir,
                    strerror(errno));
            goto done;
        }
        char mpath[4200];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", r.jobdir);
        const char *const outs[][2] = { { "--emit-jobs", r.emit },
                                        { "--job-dir's manifest", mpath } };
        if (cli_check_outputs(outs, 2, ins, 2))
            goto done;
        rc = emit_jobs(&r, &p, mpath);
        goto done;
    }
    /* every output is checked before a run that may take hours */
    const char *const outs[][2] = { { "-o", r.c.out }, { "--plot", r.c.plot } };
    if (cli_check_outputs(outs, 2, ins, 2))
        goto done;
    if (r.c.plot && study_run_gnuplot("", 0, err)) {
        /* fail before simulating when the plot cannot be drawn */
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    struct study_table t;
    int progress = r.progress || isatty(2);
    if (study_run(&p, r.c.jobs, progress, &t, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    struct arch a;
    struct cli_prov prov;
    if (cli_load_arch(r.c.config, r.c.ov, r.c.nov, &a)) {
        study_table_free(&t);
        goto done;
    }
    if (cli_prov_init(&prov, "sweep", &r.c, &a)) {
        fputs("smsim: out of memory\n", stderr);
        rc = 2;
    } else {
        rc = cli_study_output(&t, &prov, r.c.format == REPORT_JSON, r.c.out, r.c.plot, r.ys,
                              r.ny);
    }
    if (!rc) /* after the answer: a caution on it */
        cli_weak_caution((const char *const[]){ tf->kernels[r.c.kernel]->launch.name }, 1);
    study_table_free(&t);
done:
    if (tf)
        trace_close(tf);
    free_args(&r);
    return rc;
}
