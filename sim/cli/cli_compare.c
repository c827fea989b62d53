/* cli_compare.c — `smsim compare --ncu report.csv --config X TRACE`: simulate
 * one kernel and put every metric smsim predicts next to what Nsight Compute
 * measured for it (the metrics the CSV has), with the error in percent.
 * docs/validation.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "report/report.h"
#include "stats/stats.h"
#include "study/study_validate.h"
#include "ncu/ncu_csv.h"
#include "trace/trace.h"

static const char cmp_help[] =
    "usage: smsim compare --ncu REPORT.csv --config CFG.yaml TRACE [options]\n"
    "       smsim compare --source SOURCE.csv --config CFG.yaml TRACE [options]\n"
    "  simulate one kernel of TRACE and compare every metric smsim predicts with the\n"
    "  values Nsight Compute measured (ncu --csv --page raw --print-units base, or the\n"
    "  details page); with --source, per instruction: issued counts and stall\n"
    "  samples against ncu's Source page (ncu -i R --page source --csv\n"
    "  --print-source sass), joined by address\n"
    "\n"
    "options:\n"
    "  --ncu FILE             the ncu CSV export (this or --source is required)\n"
    "  --source FILE          ncu's Source page export of the same launch\n"
    "  --config FILE          GPU configuration (YAML), required\n"
    "  --ncu-id ID            the launch to compare with (its \"ID\"); when the CSV holds\n"
    "                         several launches, this or --ncu-kernel must pick one\n"
    "  --ncu-kernel REGEX     the launch whose \"Kernel Name\" matches REGEX (POSIX\n"
    "                         extended; with --ncu-id: both must hold)\n"
    "  --kernel N             kernel of the trace (required when it has several)\n"
    "  --format text|json|csv report format (default text)\n"
    "  --blocks-per-sm N      cap resident blocks per SM (as smsim --blocks-per-sm)\n"
    "  --carveout PCT         preferred shared-memory carveout, 0..100 (default none)\n"
    "  --set sec.key=val      override a configuration key (repeatable)\n"
    "  --seed N               RNG seed (default 1)\n"
    "  --threads N            simulate the SMs on N threads (default 1; same result)\n"
    "  --max-cycles N         stop the kernel after N cycles (an error)\n"
    "  --max-insts N          refuse a kernel of more than N warp-instructions, counted\n"
    "                         before the run (default 10^11 unless --max-cycles is\n"
    "                         given; 0 = no limit)\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

struct cmp_args {
    struct cli_common c;          /* --config, TRACE, --format, --set, --seed,
                                     --kernel (-1 = the only one), -o,
                                     --blocks-per-sm, --carveout, --threads */
    const char *ncu;              /* --ncu                            */
    const char *id;               /* --ncu-id, or NULL                */
    const char *ncu_kernel;       /* --ncu-kernel REGEX, or NULL      */
    const char *source;           /* --source, or NULL                */
};

static int parse_args(int argc, char **argv, struct cmp_args *r)
{
    static const char *const formats[] = { "text", "json", "csv", NULL };
    memset(r, 0, sizeof *r);
    r->c = (struct cli_common){ .has = CLI_C_CONFIG | CLI_C_SET | CLI_C_SEED | CLI_C_KERNEL |
                                       CLI_C_FORMAT | CLI_C_OUT | CLI_C_POS | CLI_C_CAP |
                                       CLI_C_CARVEOUT | CLI_C_THREADS | CLI_C_MAXCYC |
                                       CLI_C_MAXINSTS,
                                .usage = cmp_help, .formats = formats, .pos_name = "trace",
                                .seed = 1, .kernel = -1, .format = REPORT_TEXT,
                                .carveout = -1, .threads = 1 };
    static const char *const known[] = {
        "--ncu", "--source", "--config", "--ncu-id", "--kernel", "--format", "--blocks-per-sm",
        "--carveout", "--set", "--seed", "--threads", "-o", "--max-cycles", "--max-insts",
        "--ncu-kernel", NULL
    };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim compare --help", .known = known };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (!strcmp(name, "--ncu")) {
            r->ncu = val;
        } else if (!strcmp(name, "--ncu-id")) {
            r->id = val;
        } else if (!strcmp(name, "--ncu-kernel")) {
            r->ncu_kernel = val;
        } else if (!strcmp(name, "--source")) {
            r->source = val;
        }
    }
    if (r->ncu && r->source) {
        fputs("smsim: compare: --ncu and --source are two comparisons (give one)\n", stderr);
        return 1;
    }
    if (!r->ncu && !r->source) {
        fputs("smsim: missing --ncu REPORT.csv (or --source SOURCE.csv; see smsim compare "
              "--help)\n", stderr);
        return 1;
    }
    return cli_common_done(&r->c, &st);
}

/* One compared metric. */
struct row {
    const char *name;     /* ncu name (string literal from stats_metrics) */
    const char *unit;     /* smsim's unit                                */
    double pred;          /* predicted                                   */
    double meas;          /* measured                                    */
};

/* A value for the text table: full integers, else 4 significant digits. */
static void fmt_text(char buf[48], double v)
{
    if (!isfinite(v))
        snprintf(buf, 48, isinf(v) ? "unlimited" : "-");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, 48, "%.0f", v);
    else if (fabs(v) >= 1000)
        snprintf(buf, 48, "%.2f", v);
    else
        snprintf(buf, 48, "%.4g", v);
}

static void write_text(FILE *f, const struct row *rows, int n, const char *head)
{
    fprintf(f, "%s\n", head);
    int w = 11;
    for (int i = 0; i < n; i++)
        if ((int)strlen(rows[i].name) > w)
            w = (int)strlen(rows[i].name);
    fprintf(f, "  %-*s %-16s %16s %16s %9s\n", w, "Metric Name", "Metric Unit", "smsim", "ncu",
            "Error %");
    for (int i = 0; i < n; i++) {
        char p[48], m[48], e[48];
        fmt_text(p, rows[i].pred);
        fmt_text(m, rows[i].meas);
        double err = val_err_pct(rows[i].meas, rows[i].pred);
        if (isfinite(err))
            snprintf(e, sizeof e, "%+.1f", err);
        else
            snprintf(e, sizeof e, "-");
        fprintf(f, "  %-*s %-16s %16s %16s %9s\n", w, rows[i].name, rows[i].unit, p, m, e);
    }
}

static void csv_number(FILE *f, double v)
{
    char buf[REPORT_NUM_MAX];
    report_format_number(buf, v);
    fputc('"', f);
    if (isfinite(v))
        fputs(buf, f);
    fputc('"', f);
}

int cli_compare(int argc, char **argv)
{
    struct cmp_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.c.ov);
        return rc == 3 ? 0 : rc;
    }
    if (a.source) {
        rc = cli_compare_source(&a.c, a.source);
        free(a.c.ov);
        return rc;
    }
    struct arch arch;
    struct ncu_table t;
    struct trace_file *tf = NULL;
    struct stats_kernel st;
    int have_t = 0, have_st = 0;
    char *rep = NULL;
    size_t replen = 0;
    rc = 1;
    const char *const outs[][2] = { { "-o", a.c.out } };
    const char *const ins[][2] = { { "input trace", a.c.pos }, { "configuration", a.c.config },
                                   { "ncu CSV", a.ncu } };
    if (cli_check_outputs(outs, 1, ins, 3))
        goto done;
    if (cli_load_arch(a.c.config, a.c.ov, a.c.nov, &arch))
        goto done;
    char err[NCU_ERR_MAX];
    if (ncu_csv_load(a.ncu, &t, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    have_t = 1;
    int row;
    if (cli_ncu_pick(&t, a.id, a.ncu_kernel, "--ncu-id", "--ncu-kernel", &row))
        goto done;
    char terr[TRACE_ERR_MAX];
    tf = trace_open(a.c.pos, terr);
    if (!tf) {
        fprintf(stderr, "%s\n", terr);
        goto done;
    }
    int kernel = a.c.kernel;
    if (cli_pick_kernel(a.c.pos, tf->nkernels, &kernel))
        goto done;
    struct trace_kernel *k = tf->kernels[kernel];
    if (cli_check_insts(a.c.pos, kernel, k, cli_insts_limit(&a.c)))
        goto done;
    struct engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.seed = a.c.seed;
    eo.blocks_per_sm_cap = a.c.cap;
    eo.carveout_pct = a.c.carveout;
    eo.threads = a.c.threads;
    eo.max_cycles = a.c.max_cycles;
    char eerr[512];
    if (engine_run(&arch, k, &eo, &st, eerr)) {
        stats_kernel_free(&st);
        fprintf(stderr, "smsim: %s: kernel %d: %s\n", a.c.pos, kernel, eerr);
        goto done;
    }
    have_st = 1;
    struct stats_metric m[STATS_METRICS_MAX];
    int nm = stats_metrics(&st, &arch, m, STATS_METRICS_MAX);
    if (nm > STATS_METRICS_MAX)
        nm = STATS_METRICS_MAX;
    struct row rows[STATS_METRICS_MAX];
    int n = 0;
    for (int i = 0; i < nm; i++) {
        double v;
        int r = ncu_metric(&t, row, m[i].name, &v, err);
        if (r < 0) {
            fprintf(stderr, "%s\n", err);
            goto done;
        }
        if (r > 0)
            continue; /* not measured (or n/a) */
        rows[n++] = (struct row){ m[i].name, m[i].unit, m[i].value, v };
    }
    if (n == 0) {
        fprintf(stderr, "smsim: %s: row ID %s has none of the metrics smsim reports (export "
                "with ncu --csv --page raw)\n", a.ncu, ncu_cell(&t, row, ncu_col(&t, "ID")));
        goto done;
    }

    rc = 2;
    FILE *f = open_memstream(&rep, &replen);
    if (!f)
        goto nomem;
    const char *kname = ncu_cell(&t, row, ncu_col(&t, "Kernel Name"));
    const char *id = ncu_cell(&t, row, ncu_col(&t, "ID"));
    if (a.c.format == REPORT_TEXT) {
        char head[1024];
        snprintf(head, sizeof head,
                 "%s: kernel %d '%s' (smsim, Config %s) vs ncu ID %s '%s' (%s)", a.c.pos,
                 kernel, k->launch.name, arch.name, id ? id : "?", kname ? kname : "?", a.ncu);
        write_text(f, rows, n, head);
    } else if (a.c.format == REPORT_JSON) {
        fputs("{\n  \"config\": ", f);
        report_json_string(f, arch.name);
        fputs(",\n  \"trace\": ", f);
        report_json_string(f, a.c.pos);
        fprintf(f, ",\n  \"kernel\": %d,\n  \"name\": ", kernel);
        report_json_string(f, k->launch.name);
        fputs(",\n  \"ncu_csv\": ", f);
        report_json_string(f, a.ncu);
        fputs(",\n  \"ncu_id\": ", f);
        report_json_string(f, id ? id : "");
        fputs(",\n  \"ncu_kernel\": ", f);
        report_json_string(f, kname ? kname : "");
        fputs(",\n  \"metrics\": [", f);
        for (int i = 0; i < n; i++) {
            fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
            report_json_string(f, rows[i].name);
            fputs(", \"unit\": ", f);
            report_json_string(f, rows[i].unit);
            fputs(", \"predicted\": ", f);
            report_json_number(f, rows[i].pred);
            fputs(", \"measured\": ", f);
            report_json_number(f, rows[i].meas);
            fputs(", \"err_pct\": ", f);
            report_json_number(f, val_err_pct(rows[i].meas, rows[i].pred));
            fputc('}', f);
        }
        fputs("\n  ]\n}\n", f);
    } else {
        fputs("\"Metric Name\",\"Metric Unit\",\"Predicted\",\"Measured\",\"Error %\"\n", f);
        for (int i = 0; i < n; i++) {
            report_csv_string(f, rows[i].name, 1);
            fputc(',', f);
            report_csv_string(f, rows[i].unit, 1);
            fputc(',', f);
            csv_number(f, rows[i].pred);
            fputc(',', f);
            csv_number(f, rows[i].meas);
            fputc(',', f);
            csv_number(f, val_err_pct(rows[i].meas, rows[i].pred));
            fputc('\n', f);
        }
    }
    if (fclose(f))
        goto nomem;
    struct cli_prov prov;
    if (cli_prov_init(&prov, "compare", &a.c, &arch))
        goto nomem;
    cli_prov_add(&prov, "ncu_csv", a.ncu);
    if (cli_prov_apply(&prov, a.c.format, &rep, &replen))
        goto nomem;
    rc = cli_write_out(a.c.out, rep, replen, "report");
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    free(rep);
    if (have_st)
        stats_kernel_free(&st);
    if (tf)
        trace_close(tf);
    if (have_t)
        ncu_table_free(&t);
    free(a.c.ov);
    return rc;
}
