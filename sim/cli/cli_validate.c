/* cli_validate.c — `smsim validate DIR`: simulate every measured launch of the
 * validation manifest and compare with the ncu measurements under DIR
 * (docs/validation.md).
 *
 * The whole report is rendered into memory before anything is printed, so an
 * error leaves stdout empty and prints one line on stderr.  With
 * --thresholds the report is printed and every accuracy figure worse than
 * its limit adds one line on stderr; the exit status is then 3.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "report/report.h"
#include "study/study_validate.h"

static const char val_help[] =
    "usage: smsim validate DIR [options]\n"
    "  simulate every launch of the validation manifest whose ncu CSV lies under DIR\n"
    "  and compare with what Nsight Compute measured (docs/validation.md)\n"
    "\n"
    "options:\n"
    "  --config FILE          GPU configuration (default configs/h200.yaml)\n"
    "  --manifest FILE        launches to validate (default validate/traces/manifest.tsv;\n"
    "                         its paths are relative to the current directory)\n"
    "  --format text|json     report format (default text)\n"
    "  --plot FILE.svg|.png   measured vs predicted curves per case (gnuplot)\n"
    "  --plot-metric NAME     metric of the plot (default smsp__issue_active.avg.per_cycle_active)\n"
    "  --jobs N               launches simulated at once, one host thread each (default:\n"
    "                         online CPUs; --threads of a run is threads of one simulation)\n"
    "  --case REGEX           only cases whose name matches (POSIX extended regex)\n"
    "  --max-insts N          skip (and report as skipped) launches of more than N\n"
    "                         warp-instructions (default 10^11, as every subcommand\n"
    "                         that simulates; 0 = none)\n"
    "  --thresholds FILE      check accuracy limits (validate/thresholds.tsv); exit 3 and\n"
    "                         one line per failed limit on stderr when one is not met\n"
    "  --carveout PCT         preferred shared-memory carveout (default 100, as the\n"
    "                         measurement kit launches; -1 = none)\n"
    "  --set sec.key=val      override a configuration key (repeatable)\n"
    "  --seed N               RNG seed (default 1)\n"
    "  --progress             progress bar on stderr\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

struct val_args {
    struct cli_common c;          /* --config, DIR, --format, --plot, --set,
                                     --seed, -o                       */
    const char *manifest;         /* --manifest                       */
    const char *thresholds;       /* --thresholds                     */
    int plot_metric;              /* --plot-metric (index)            */
    struct val_opts o;            /* what val_run needs               */
};

/* 0, 1 after a message, 3 when help was printed. */
static int parse_args(int argc, char **argv, struct val_args *r)
{
    static const char *const formats[] = { "text", "json", NULL };
    memset(r, 0, sizeof *r);
    r->c = (struct cli_common){ .has = CLI_C_CONFIG | CLI_C_SET | CLI_C_SEED | CLI_C_FORMAT |
                                       CLI_C_PLOT | CLI_C_OUT | CLI_C_POS,
                                .usage = val_help, .formats = formats, .pos_name = "DIR",
                                .config = "configs/h200.yaml", .seed = 1,
                                .format = REPORT_TEXT };
    r->manifest = "validate/traces/manifest.tsv";
    r->plot_metric = 1;
    r->o.carveout_pct = 100;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    r->o.jobs = ncpu > 0 ? (int)(ncpu > 256 ? 256 : ncpu) : 1;
    r->o.max_insts = study_insts_limit(0, 0, 0);
    static const char *const known[] = {
        "--config", "--manifest", "--format", "--plot", "--plot-metric", "--jobs",
        "--case", "--max-insts", "--thresholds", "--carveout", "--set", "--seed", "-o", NULL
    };
    static const char *const flags[] = { "--progress", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim validate --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (kind == CLI_OPT_FLAG) {
            r->o.progress = 1;
        } else if (!strcmp(name, "--manifest")) {
            r->manifest = val;
        } else if (!strcmp(name, "--plot-metric")) {
            int m = -1;
            for (int q = 0; q < VAL_NMETRICS; q++)
                if (!strcmp(val, val_metric_name(q)))
                    m = q;
            if (m < 0) {
                fprintf(stderr, "smsim: --plot-metric '%s': not a compared metric (one of "
                        "%s, %s, %s, %s, %s)\n", val, val_metric_name(0), val_metric_name(1),
                        val_metric_name(2), val_metric_name(3), val_metric_name(4));
                return 1;
            }
            r->plot_metric = m;
        } else if (!strcmp(name, "--jobs")) {
            if (cli_parse_int(name, val, 1, 1024, &r->o.jobs))
                return 1;
        } else if (!strcmp(name, "--case")) {
            r->o.case_re = val;
        } else if (!strcmp(name, "--max-insts")) {
            if (cli_parse_u64(name, val, 0, UINT64_MAX, &r->o.max_insts))
                return 1;
        } else if (!strcmp(name, "--thresholds")) {
            r->thresholds = val;
        } else if (!strcmp(name, "--carveout")) {
            if (cli_parse_int(name, val, -1, 100, &r->o.carveout_pct))
                return 1;
        }
    }
    if (!r->c.pos) {
        fputs("smsim: missing DIR, the measurements to validate against, e.g. "
              "validate/data/h200 (see smsim validate --help)\n", stderr);
        return 1;
    }
    struct stat sb;
    if (stat(r->c.pos, &sb) || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "smsim: %s: not a directory\n", r->c.pos);
        return 1;
    }
    r->o.config = r->c.config;
    r->o.dir = r->c.pos;
    r->o.seed = r->c.seed;
    r->o.ov = r->c.ov;
    r->o.nov = r->c.nov;
    return 0;
}

/* The plot of a validation (cli_plot's render). */
struct val_plot {
    const struct cli_prov *prov;   /* the overrides, for the title */
    const struct val_manifest *m;  /* the launches     */
    const struct val_result *r;    /* their results    */
    int metric;                    /* --plot-metric    */
};

static int render_val_plot(FILE *f, const char *out, void *ud)
{
    const struct val_plot *vp = ud;
    char sets[300];
    cli_prov_title(vp->prov, sets, sizeof sets);
    return val_write_gnuplot(f, vp->m, vp->r, vp->metric, out, sets);
}

int cli_validate(int argc, char **argv)
{
    struct val_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.c.ov);
        return rc == 3 ? 0 : rc;
    }
    struct val_manifest m;
    struct val_result r;
    char err[STUDY_ERR_MAX];
    char *rep = NULL;
    size_t replen = 0;
    int have_m = 0, have_r = 0;
    rc = 1;
    const char *const outs[][2] = { { "-o", a.c.out }, { "--plot", a.c.plot } };
    const char *const ins[][2] = { { "manifest", a.manifest }, { "thresholds", a.thresholds } };
    if (cli_check_outputs(outs, 2, ins, 2))
        goto done;
    if (a.c.plot && study_run_gnuplot("", 0, err)) {
        /* fail before simulating when the plot cannot be drawn */
        cli_error("%s\n", err);
        goto done;
    }
    if (val_manifest_load(a.manifest, &m, err)) {
        cli_error("%s\n", err);
        goto done;
    }
    have_m = 1;
    if (val_run(&m, &a.o, &r, err)) {
        cli_error("%s\n", err);
        goto done;
    }
    have_r = 1;
    rc = 2;
    FILE *f = open_memstream(&rep, &replen);
    if (!f)
        goto nomem;
    int werr = a.c.format == REPORT_JSON ? val_write_json(f, &m, &r) : val_write_text(f, &m, &r);
    if (fclose(f) || werr)
        goto nomem;
    struct arch arch;
    struct cli_prov prov;
    if (cli_load_arch(a.c.config, a.c.ov, a.c.nov, &arch)) {
        rc = 1;
        goto done;
    }
    if (cli_prov_init(&prov, "validate", &a.c, &arch))
        goto nomem;
    cli_prov_add(&prov, "data_dir", a.c.pos);
    cli_prov_add(&prov, "manifest", a.manifest);
    if (cli_prov_apply(&prov, a.c.format, &rep, &replen))
        goto nomem;
    /* the threshold check, before printing: its own file errors come first */
    char *fails = NULL;
    size_t failslen = 0;
    int nfail = 0;
    if (a.thresholds) {
        FILE *t = open_memstream(&fails, &failslen);
        if (!t)
            goto nomem;
        nfail = val_check_thresholds(a.thresholds, &r, t, err);
        fclose(t);
        if (nfail < 0) {
            free(fails);
            cli_error("%s\n", err);
            rc = 1;
            goto done;
        }
    }
    /* with -o the report first: a failed plot keeps it (cli_study_output) */
    struct val_plot vp = { &prov, &m, &r, a.plot_metric };
    if (a.c.plot && !a.c.out && (rc = cli_plot(a.c.plot, render_val_plot, &vp))) {
        free(fails);
        goto done;
    }
    rc = cli_write_out(a.c.out, rep, replen, "report");
    if (!rc && a.c.plot && a.c.out)
        rc = cli_plot(a.c.plot, render_val_plot, &vp);
    if (nfail > 0) {
        fwrite(fails, 1, failslen, stderr);
        if (rc == 0)
            rc = 3;
    }
    free(fails);
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    free(rep);
    if (have_r)
        val_result_free(&r);
    if (have_m)
        val_manifest_free(&m);
    free(a.c.ov);
    return rc;
}
