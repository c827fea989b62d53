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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
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
    "  --jobs N               launches simulated in parallel (default: online CPUs)\n"
    "  --case REGEX           only cases whose name matches (POSIX extended regex)\n"
    "  --max-insts N          skip (and report as skipped) launches of more than N\n"
    "                         warp-instructions (default 0 = none)\n"
    "  --thresholds FILE      check accuracy limits (validate/thresholds.tsv); exit 3 and\n"
    "                         one line per failed limit on stderr when one is not met\n"
    "  --carveout PCT         preferred shared-memory carveout (default 100, as the\n"
    "                         measurement kit launches; -1 = none)\n"
    "  --set sec.key=val      override a configuration key (repeatable)\n"
    "  --seed N               RNG seed (default 1)\n"
    "  --progress             progress bar on stderr\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

struct val_args {
    const char *dir;              /* DIR                              */
    const char *config;           /* --config                         */
    const char *manifest;         /* --manifest                       */
    const char *plot;             /* --plot                           */
    const char *thresholds;       /* --thresholds                     */
    const char *out;              /* -o                               */
    int json;                     /* --format json                    */
    int plot_metric;              /* --plot-metric (index)            */
    struct val_opts o;            /* what val_run needs               */
    struct arch_override *ov;     /* --set                            */
    int nov;                      /* their count                      */
};

static int parse_u64(const char *opt, const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = 0;
    int ok = s[0] >= '0' && s[0] <= '9';
    if (ok) {
        x = strtoull(s, &end, 10);
        ok = !*end && !errno;
    }
    if (!ok) {
        fprintf(stderr, "smsim: %s '%s': expected a non-negative integer\n", opt, s);
        return -1;
    }
    *v = x;
    return 0;
}

/* 0, 1 after a message, 3 when help was printed. */
static int parse_args(int argc, char **argv, struct val_args *r)
{
    memset(r, 0, sizeof *r);
    r->config = "configs/h200.yaml";
    r->manifest = "validate/traces/manifest.tsv";
    r->plot_metric = 1;
    r->o.carveout_pct = 100;
    r->o.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    r->o.jobs = ncpu > 0 ? (int)(ncpu > 256 ? 256 : ncpu) : 1;
    static const char *const known[] = {
        "--config", "--manifest", "--format", "--plot", "--plot-metric", "--jobs",
        "--case", "--max-insts", "--thresholds", "--carveout", "--set", "--seed", "-o", NULL
    };
    static const char *const flags[] = { "--progress", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim validate --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_opt_next(&st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP) {
            fputs(val_help, stdout);
            return 3;
        }
        if (kind == CLI_OPT_ARG) {
            if (r->dir) {
                fprintf(stderr, "smsim: more than one DIR given ('%s' and '%s')\n", r->dir, val);
                return 1;
            }
            r->dir = val;
            continue;
        }
        if (kind == CLI_OPT_FLAG) {
            r->o.progress = 1;
            continue;
        }
        if (!strcmp(name, "--config")) {
            r->config = val;
        } else if (!strcmp(name, "--manifest")) {
            r->manifest = val;
        } else if (!strcmp(name, "--format")) {
            if (!strcmp(val, "text") || !strcmp(val, "json")) {
                r->json = !strcmp(val, "json");
            } else {
                fprintf(stderr, "smsim: --format '%s': expected text or json\n", val);
                return 1;
            }
        } else if (!strcmp(name, "--plot")) {
            size_t n = strlen(val);
            if (n < 5 || (strcmp(val + n - 4, ".svg") && strcmp(val + n - 4, ".png"))) {
                fprintf(stderr, "smsim: --plot '%s': expected a .svg or .png file name\n", val);
                return 1;
            }
            r->plot = val;
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
            if (parse_u64(name, val, &r->o.max_insts))
                return 1;
        } else if (!strcmp(name, "--thresholds")) {
            r->thresholds = val;
        } else if (!strcmp(name, "--carveout")) {
            if (cli_parse_int(name, val, -1, 100, &r->o.carveout_pct))
                return 1;
        } else if (!strcmp(name, "--set")) {
            if (cli_add_override(&r->ov, &r->nov, val))
                return 1;
        } else if (!strcmp(name, "--seed")) {
            if (parse_u64(name, val, &r->o.seed))
                return 1;
        } else if (!strcmp(name, "-o")) {
            r->out = val;
        }
    }
    if (!r->dir) {
        fputs("smsim: missing DIR, the measurements to validate against, e.g. "
              "validate/data/h200 (see smsim validate --help)\n", stderr);
        return 1;
    }
    struct stat sb;
    if (stat(r->dir, &sb) || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "smsim: %s: not a directory\n", r->dir);
        return 1;
    }
    r->o.config = r->config;
    r->o.dir = r->dir;
    return 0;
}

int cli_validate(int argc, char **argv)
{
    struct val_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.ov);
        return rc == 3 ? 0 : rc;
    }
    a.o.ov = a.ov;
    a.o.nov = a.nov;
    struct val_manifest m;
    struct val_result r;
    char err[STUDY_ERR_MAX];
    char *rep = NULL, *gp = NULL;
    size_t replen = 0, gplen = 0;
    int have_m = 0, have_r = 0;
    rc = 1;
    if (val_manifest_load(a.manifest, &m, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    have_m = 1;
    if (val_run(&m, &a.o, &r, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    have_r = 1;
    rc = 2;
    FILE *f = open_memstream(&rep, &replen);
    if (!f)
        goto nomem;
    int werr = a.json ? val_write_json(f, &m, &r) : val_write_text(f, &m, &r);
    if (fclose(f) || werr)
        goto nomem;
    if (a.plot) {
        FILE *g = open_memstream(&gp, &gplen);
        if (!g)
            goto nomem;
        int e = val_write_gnuplot(g, &m, &r, a.plot_metric, a.plot);
        if (fclose(g) || e)
            goto nomem;
    }
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
            fprintf(stderr, "%s\n", err);
            rc = 1;
            goto done;
        }
    }
    if (gp && study_run_gnuplot(gp, gplen, err)) {
        free(fails);
        fprintf(stderr, "%s\n", err);
        rc = 1;
        goto done;
    }
    if (a.out) {
        rc = cli_write_file(a.out, rep, replen);
    } else {
        rc = 0;
        if (fwrite(rep, 1, replen, stdout) != replen || fflush(stdout)) {
            fputs("smsim: cannot write the report to stdout\n", stderr);
            rc = 1;
        }
    }
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
    free(gp);
    if (have_r)
        val_result_free(&r);
    if (have_m)
        val_manifest_free(&m);
    free(a.ov);
    return rc;
}
