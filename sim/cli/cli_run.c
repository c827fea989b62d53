/* cli_run.c — `smsim --config CFG.yaml TRACE [options]`: simulate the kernels
 * of a trace and print what Nsight Compute would report.
 *
 * Everything is computed and rendered into memory first; stdout (or -o FILE)
 * is written only after every kernel ran, so an error leaves stdout empty and
 * prints exactly one line on stderr.  Each kernel's report is rendered as
 * soon as it has run and its counters are freed, so memory does not grow
 * with the number of kernels beyond the report's text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "report/report.h"
#include "stats/stats.h"
#include "trace/trace.h"

/* Defaults, documented in the help text and docs/pictures.md. */
enum {
    RUN_GRID_MAX = 100000,            /* --grid ceiling: 100k columns per row  */
    RUN_TL_CYCLES = 100000,           /* --timeline-cycles default             */
    RUN_TL_SMS = 4,                   /* --timeline-sms default: SMs 0..3      */
    RUN_TL_SM_MAX = 100000,           /* highest SM index --timeline-sms takes */
    RUN_TL_EVENTS = 1000000,          /* events kept in a timeline (~150 MB)   */
    RUN_SEED = 1                      /* --seed default                        */
};

static const char run_help[] =
    "usage: smsim --config CFG.yaml TRACE [options]\n"
    "  simulate every kernel of TRACE and report what Nsight Compute would measure\n"
    "\n"
    "options (before or after TRACE; --opt VALUE or --opt=VALUE):\n"
    "  --config FILE          GPU configuration (YAML), required\n"
    "  --format text|json|csv report format (default text)\n"
    "  --set sec.key=val      override one configuration key (repeatable)\n"
    "  --seed N               seed of the deterministic RNG (default 1)\n"
    "  --kernel N             simulate only kernel N of the trace (0-based)\n"
    "  --blocks-per-sm N      cap resident blocks per SM below the occupancy limit\n"
    "  --carveout PCT         preferred shared-memory carveout, 0..100 (default none)\n"
    "  --max-cycles N         stop a kernel after N cycles (default 0 = no limit)\n"
    "  --max-insts N          refuse a kernel of more than N warp-instructions, counted\n"
    "                         before the run (default 10^11 unless --max-cycles is\n"
    "                         given; 0 = no limit)\n"
    "  --threads N            simulate the SMs on N threads (default 1; the report is\n"
    "                         identical for every N; --grid/--timeline run on one)\n"
    "  --grid N               text format only: warp-state grid of SM 0, first N cycles\n"
    "  --timeline FILE.json   write warp states and block lifetimes as Chrome\n"
    "                         trace-event JSON, time in SM cycles (open in\n"
    "                         ui.perfetto.dev); FILE.json.gz: gzip-compressed\n"
    "  --timeline-from C      timeline starts at cycle C of the run (default 0)\n"
    "  --timeline-to C        ... and ends before cycle C (default from + 100000)\n"
    "  --timeline-cycles N    ... or records N cycles from there (default 100000)\n"
    "  --timeline-sms LIST    SMs recorded: N = SMs 0..N-1 (default 4), or a list\n"
    "                         of SMs and ranges, e.g. 0-3,7 (one SM: 5-5)\n"
    "  --stall-profile BIN    warp states per bin of BIN cycles, all SMs summed,\n"
    "                         written by --stall-csv and/or --stall-svg\n"
    "  --stall-csv FILE.csv   the stall profile as CSV (one row per bin)\n"
    "  --stall-svg FILE.svg   the stall profile as a stacked-area picture\n"
    "  --source-csv FILE.csv  per-instruction issue counts and stall reasons in the\n"
    "                         shape of ncu's Source page export (smsim compare --source)\n"
    "  --metrics REGEX        report only the metrics whose name matches (POSIX\n"
    "                         extended regex, e.g. 'stall|issue_active')\n"
    "  --csv-units row|none   CSV: the units row under the header (default row), or\n"
    "                         none: every metric column is numbers only\n"
    "  --quiet                no progress line on a terminal (shown after 2 s)\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

struct run_args {
    struct cli_common c;          /* --config, TRACE, --format, --set, --seed,
                                     --kernel (-1 = all), -o, --blocks-per-sm,
                                     --carveout, --max-cycles, --threads         */
    const char *timeline;         /* --timeline, or NULL                        */
    uint64_t grid;                /* --grid, 0 = none                           */
    uint64_t tl_from;             /* --timeline-from                            */
    uint64_t tl_to;               /* --timeline-to, 0 = from + --timeline-cycles */
    uint64_t tl_cycles;           /* --timeline-cycles                          */
    int tl_cycles_given;          /* --timeline-cycles was given                */
    int *tl_sms;                  /* --timeline-sms: the SMs (malloc'd), or NULL
                                     for the first tl_nsms                     */
    int tl_nsms;                  /* their count                                */
    int tl_sms_list;              /* 1: a list (SMs beyond the GPU: an error)   */
    uint64_t stall_bin;           /* --stall-profile, 0 = none                  */
    const char *stall_csv;        /* --stall-csv, or NULL                       */
    const char *stall_svg;        /* --stall-svg, or NULL                       */
    const char *source_csv;       /* --source-csv, or NULL                      */
    int quiet;                    /* --quiet                                    */
    const char *metrics;          /* --metrics REGEX, or NULL                   */
    int no_units;                 /* --csv-units none                           */
};

/* Pictures observer: forwards the engine's callbacks to the grid, the
 * timeline, the stall profile and the per-instruction counters. */
struct pics {
    struct report_grid *grid;      /* --grid, or NULL          */
    struct report_timeline *tl;    /* --timeline, or NULL      */
    struct report_stallprof *sp;   /* --stall-profile, or NULL */
    struct report_source *src;     /* --source-csv, or NULL    */
};

static void pics_warp_state(void *ud, int sm, int smsp, int slot, uint32_t block,
                            uint32_t warp, uint64_t from, uint64_t to, int state)
{
    struct pics *p = ud;
    if (p->grid)
        report_grid_warp_state(p->grid, sm, smsp, slot, block, warp, from, to, state);
    if (p->tl)
        report_timeline_warp_state(p->tl, sm, smsp, slot, block, warp, from, to, state);
    if (p->sp)
        report_stallprof_warp_state(p->sp, from, to, state);
}

static void pics_inst_issue(void *ud, const struct tr_inst *in, uint32_t mask)
{
    report_source_issue(((struct pics *)ud)->src, in, mask);
}

static void pics_inst_state(void *ud, const struct tr_inst *in, int state, uint64_t cycles)
{
    report_source_state(((struct pics *)ud)->src, in, state, cycles);
}

/* --timeline-sms: "N" (SMs 0..N-1) or a list of SMs and ranges "0-3,7".
 * 0, or -1 after "smsim: --timeline-sms 'X': expected N (the first N SMs) or
 * a list of SMs and ranges such as 0-3,7". */
static int parse_sms(const char *val, struct run_args *r)
{
    const char *p = val;
    int list = strchr(val, ',') || strchr(val, '-');
    int *v = NULL, n = 0, cap = 0, ok = *p != '\0';
    while (ok && *p) {
        char *end;
        ok = 0; /* until this item is read whole */
        if (*p < '0' || *p > '9')
            break;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            if (p[1] < '0' || p[1] > '9')
                break;
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        if (a > RUN_TL_SM_MAX || b > RUN_TL_SM_MAX || b < a || (!list && a < 1))
            break;
        if (!list) {
            r->tl_nsms = (int)a;
            free(r->tl_sms);
            r->tl_sms = NULL;
            r->tl_sms_list = 0;
            return 0;
        }
        for (long x = a; x <= b; x++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                int *q = realloc(v, (size_t)cap * sizeof *q);
                if (!q) {
                    free(v);
                    fputs("smsim: out of memory\n", stderr);
                    return -1;
                }
                v = q;
            }
            v[n++] = (int)x;
        }
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            break;
        ok = 1;
    }
    if (!ok || *p) {
        free(v);
        fprintf(stderr, "smsim: --timeline-sms '%s': expected N (the first N SMs) or a list of "
                "SMs and ranges such as 0-3,7\n", val);
        return -1;
    }
    /* ascending, distinct */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    free(r->tl_sms);
    r->tl_sms = v;
    r->tl_nsms = m;
    r->tl_sms_list = 1;
    return 0;
}

static void pics_block_life(void *ud, int sm, uint32_t block, uint64_t from, uint64_t to)
{
    struct pics *p = ud;
    if (p->tl)
        report_timeline_block_life(p->tl, sm, block, from, to);
}

/* Parse argv into *r.  0, or 1 after a one-line message; 3 = help printed. */
static int parse_args(int argc, char **argv, struct run_args *r)
{
    static const char *const formats[] = { "text", "json", "csv", NULL };
    memset(r, 0, sizeof *r);
    r->c = (struct cli_common){ .has = CLI_C_CONFIG | CLI_C_SET | CLI_C_SEED | CLI_C_KERNEL |
                                       CLI_C_FORMAT | CLI_C_OUT | CLI_C_POS | CLI_C_CAP |
                                       CLI_C_CARVEOUT | CLI_C_MAXCYC | CLI_C_THREADS |
                                       CLI_C_MAXINSTS,
                                .usage = run_help, .formats = formats, .pos_name = "trace",
                                .seed = RUN_SEED, .kernel = -1, .format = REPORT_TEXT,
                                .carveout = -1, .threads = 1 };
    r->tl_cycles = RUN_TL_CYCLES;
    r->tl_nsms = RUN_TL_SMS;
    static const char *const known[] = {
        "--config", "--format", "--set", "--seed", "--kernel", "--blocks-per-sm",
        "--carveout", "--max-cycles", "--grid", "--timeline", "--timeline-cycles",
        "--timeline-sms", "--timeline-from", "--timeline-to", "--stall-profile",
        "--stall-csv", "--stall-svg", "--source-csv", "-o", "--threads", "--max-insts",
        "--metrics", "--csv-units", NULL
    };
    static const char *const flags[] = { "--quiet", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (kind == CLI_OPT_FLAG) {
            r->quiet = 1; /* --quiet */
            continue;
        }
        if (!strcmp(name, "--grid")) {
            if (cli_parse_u64(name, val, 1, RUN_GRID_MAX, &r->grid))
                return 1;
        } else if (!strcmp(name, "--timeline")) {
            r->timeline = val;
        } else if (!strcmp(name, "--timeline-cycles")) {
            if (cli_parse_u64(name, val, 1, UINT64_MAX / 2, &r->tl_cycles))
                return 1;
            r->tl_cycles_given = 1;
        } else if (!strcmp(name, "--timeline-from")) {
            if (cli_parse_u64(name, val, 0, UINT64_MAX / 2, &r->tl_from))
                return 1;
        } else if (!strcmp(name, "--timeline-to")) {
            if (cli_parse_u64(name, val, 1, UINT64_MAX / 2, &r->tl_to))
                return 1;
        } else if (!strcmp(name, "--timeline-sms")) {
            if (parse_sms(val, r))
                return 1;
        } else if (!strcmp(name, "--stall-profile")) {
            if (cli_parse_u64(name, val, 1, UINT64_C(1) << 40, &r->stall_bin))
                return 1;
        } else if (!strcmp(name, "--stall-csv")) {
            r->stall_csv = val;
        } else if (!strcmp(name, "--stall-svg")) {
            r->stall_svg = val;
        } else if (!strcmp(name, "--source-csv")) {
            r->source_csv = val;
        } else if (!strcmp(name, "--metrics")) {
            r->metrics = val;
        } else if (!strcmp(name, "--csv-units")) {
            if (strcmp(val, "row") && strcmp(val, "none")) {
                fprintf(stderr, "smsim: --csv-units '%s': expected row or none\n", val);
                return 1;
            }
            r->no_units = !strcmp(val, "none");
        }
    }
    if (cli_common_done(&r->c, &st))
        return 1;
    if (r->grid && r->c.format != REPORT_TEXT) {
        fputs("smsim: --grid needs --format text (the grid is a text picture)\n", stderr);
        return 1;
    }
    if (r->tl_to && r->tl_cycles_given) {
        fputs("smsim: --timeline-to and --timeline-cycles both give the window's end "
              "(give one)\n", stderr);
        return 1;
    }
    if (!r->tl_to)
        r->tl_to = r->tl_from + r->tl_cycles;
    if (r->tl_to <= r->tl_from) {
        fprintf(stderr, "smsim: --timeline-to %llu is not after --timeline-from %llu\n",
                (unsigned long long)r->tl_to, (unsigned long long)r->tl_from);
        return 1;
    }
    if (r->stall_bin && !r->stall_csv && !r->stall_svg) {
        fputs("smsim: --stall-profile needs --stall-csv FILE.csv or --stall-svg FILE.svg "
              "(where to write it)\n", stderr);
        return 1;
    }
    if ((r->stall_csv || r->stall_svg) && !r->stall_bin) {
        fprintf(stderr, "smsim: %s needs --stall-profile BIN (the bin width in cycles)\n",
                r->stall_csv ? "--stall-csv" : "--stall-svg");
        return 1;
    }
    return 0;
}

/* The outputs besides the report, rendered into memory after the run. */
enum { OUT_TL, OUT_SCSV, OUT_SSVG, OUT_SRC, OUT_REP, OUT_N };

int cli_run(int argc, char **argv)
{
    struct run_args r;
    int rc = parse_args(argc, argv, &r);
    if (rc) {
        free(r.c.ov);
        free(r.tl_sms);
        return rc == 3 ? 0 : rc;
    }

    struct arch a;
    struct trace_file *tf = NULL;
    struct stats_kernel st;
    int have_st = 0;
    struct pics pics = { NULL, NULL, NULL, NULL };
    char *rep = NULL, *grids = NULL;
    size_t replen = 0, gridslen = 0;
    char *obuf[OUT_N] = { NULL };
    size_t olen[OUT_N] = { 0 };
    struct cli_out oo[OUT_N];
    int begun = 0;
    FILE *gridf = NULL, *rf = NULL;
    int first = 0, count = 0;
    struct cli_progress prog;
    int progress = 0;
    regex_t mre;
    int have_mre = 0;
    struct engine_warm *warm = NULL; /* the L2 between this run's launches */
    struct report_opts ro = { NULL, r.no_units };
    rc = 1;

    if (cli_load_arch(r.c.config, r.c.ov, r.c.nov, &a))
        goto done;
    if (r.metrics) {
        if (cli_metrics_regex(r.metrics, &a, &mre))
            goto done;
        have_mre = 1;
        ro.metrics = &mre;
    }
    if (r.tl_sms_list)
        for (int i = 0; i < r.tl_nsms; i++)
            if (r.tl_sms[i] >= a.sm_count) {
                fprintf(stderr, "smsim: --timeline-sms: SM %d is not on the GPU (%s has %d SMs: "
                        "0..%d)\n", r.tl_sms[i], a.name, a.sm_count, a.sm_count - 1);
                goto done;
            }
    char terr[TRACE_ERR_MAX];
    tf = trace_open(r.c.pos, terr);
    if (!tf) {
        fprintf(stderr, "%s\n", terr);
        goto done;
    }
    count = tf->nkernels;
    if (r.c.kernel >= 0 || count < 1) {
        if (cli_pick_kernel(r.c.pos, tf->nkernels, &r.c.kernel))
            goto done;
        first = r.c.kernel;
        count = 1;
    }

    /* Totals known before the run are checked before any kernel runs: a
     * kernel of 10^19 warp-instructions would otherwise run for ever. */
    uint64_t limit = cli_insts_limit(&r.c);
    uint64_t total = 0; /* the run's warp-instructions, for the progress line */
    int exact = 1;      /* total is exact (else no ETA is shown) */
    for (int i = 0; i < count; i++) {
        struct trace_kernel *k = tf->kernels[first + i];
        if (cli_check_insts(r.c.pos, first + i, k, limit))
            goto done;
        exact &= k->warp_insts_hint != 0 && k->warp_insts_hint != UINT64_MAX;
        if (exact)
            total = total + k->warp_insts_hint < total ? UINT64_MAX : total + k->warp_insts_hint;
    }

    /* every output is checked before a run that may take hours, and none
     * may overwrite an input or another output */
    const char *const outs[][2] = { { "--timeline", r.timeline },
                                    { "--stall-csv", r.stall_csv },
                                    { "--stall-svg", r.stall_svg },
                                    { "--source-csv", r.source_csv },
                                    { "-o", r.c.out } };
    const char *const ins[][2] = { { "input trace", r.c.pos }, { "configuration", r.c.config } };
    if (cli_check_outputs(outs, OUT_N, ins, 2))
        goto done;

    rc = 2; /* from here on, a failure that is not the input's is internal */
    rf = open_memstream(&rep, &replen);
    if (!rf)
        goto nomem;
    if (r.grid) {
        pics.grid = report_grid_new(&a, r.grid);
        gridf = open_memstream(&grids, &gridslen);
        if (!pics.grid || !gridf)
            goto nomem;
    }
    if (r.timeline) {
        int *first_n = NULL;
        if (!r.tl_sms_list) {
            int n = r.tl_nsms < a.sm_count ? r.tl_nsms : a.sm_count;
            first_n = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *first_n);
            if (!first_n)
                goto nomem;
            for (int i = 0; i < n; i++)
                first_n[i] = i;
            free(r.tl_sms);
            r.tl_sms = first_n;
            r.tl_nsms = n > 0 ? n : 0;
        }
        struct report_timeline_opts to = { r.tl_from, r.tl_to, r.tl_sms, r.tl_nsms,
                                           RUN_TL_EVENTS };
        pics.tl = report_timeline_new(&a, &to);
        if (!pics.tl)
            goto nomem;
    }
    if (r.stall_bin && !(pics.sp = report_stallprof_new(&a, r.stall_bin)))
        goto nomem;
    if (r.source_csv && !(pics.src = report_source_new()))
        goto nomem;
    int observed = pics.grid || pics.tl || pics.sp || pics.src;
    if (a.warm_caches && !(warm = engine_warm_new()))
        goto nomem;

    progress = cli_progress_wanted(r.quiet, r.c.format == REPORT_JSON && !r.c.out);
    if (progress)
        cli_progress_start(&prog, exact ? total : 0, count, cli_progress_delay());
    uint64_t done_insts = 0;
    for (int i = 0; i < count; i++) {
        struct trace_kernel *k = tf->kernels[first + i];
        struct engine_observer obs = { &pics, pics_warp_state, pics_block_life, 0, NULL, NULL };
        if (pics.src) {
            obs.inst_issue = pics_inst_issue;
            obs.inst_state = pics_inst_state;
        }
        if (pics.grid)
            obs.until = r.grid;
        if (pics.tl) {
            uint64_t u = report_timeline_until(pics.tl);
            obs.until = u > obs.until ? u : obs.until;
        }
        if (pics.sp || (!pics.grid && !pics.tl))
            obs.until = 0; /* the stall profile sees the whole run */
        if (!pics.grid && !pics.tl && !pics.sp)
            obs.warp_state = NULL;
        struct engine_opts eo = {
            .seed = r.c.seed,
            .blocks_per_sm_cap = r.c.cap,
            .carveout_pct = r.c.carveout,
            .obs = observed ? &obs : NULL,
            .max_cycles = r.c.max_cycles,
            .threads = r.c.threads,
            .warm = warm,
        };
        if (progress) {
            cli_progress_kernel(&prog, i, done_insts);
            eo.progress = cli_progress_update;
            eo.progress_ud = &prog;
        }
        char eerr[512];
        if (engine_run(&a, k, &eo, &st, eerr)) {
            stats_kernel_free(&st);
            if (progress)
                cli_progress_end(&prog);
            /* The engine's message names the kernel; add where it is. */
            fprintf(stderr, "smsim: %s: kernel %d: %s\n", r.c.pos, first + i, eerr);
            rc = 1;
            goto done;
        }
        have_st = 1;
        for (int j = 0; j < st.sm_count * st.smsp_per_sm; j++)
            done_insts += st.smsp[j].inst_issued;
        struct report_kernel rk = { first + i, &st };
        if (report_write_part(rf, r.c.format, a.name, &a, &rk, 1, i, i ? 0 : REPORT_HEAD,
                              &ro))
            goto nomem;
        if (pics.grid) {
            char title[200];
            snprintf(title, sizeof title, "kernel %d '%s'", first + i, k->launch.name);
            report_grid_print(pics.grid, title, gridf);
            report_grid_reset(pics.grid);
        }
        if (pics.tl)
            report_timeline_end_kernel(pics.tl, k->launch.name, st.cycles_elapsed);
        if (pics.sp && report_stallprof_end_kernel(pics.sp, k->launch.name, st.cycles_elapsed))
            goto nomem;
        if (pics.src && report_source_end_kernel(pics.src, k->launch.name))
            goto nomem;
        stats_kernel_free(&st);
        have_st = 0;
    }
    if (progress)
        cli_progress_end(&prog);

    int werr = report_write_part(rf, r.c.format, a.name, &a, NULL, 0, count,
                                 count ? REPORT_TAIL : REPORT_HEAD | REPORT_TAIL, &ro);
    if (gridf) {
        fclose(gridf);
        gridf = NULL;
        fwrite(grids, 1, gridslen, rf);
    }
    int cerr = fclose(rf);
    rf = NULL;
    if (cerr || werr)
        goto nomem;
    struct cli_prov prov;
    if (cli_prov_init(&prov, "run", &r.c, &a) || cli_prov_apply(&prov, r.c.format, &rep, &replen))
        goto nomem;
    /* the other outputs, rendered into memory */
    for (int o = 0; o < OUT_REP; o++) {
        if (!outs[o][1])
            continue;
        FILE *f = open_memstream(&obuf[o], &olen[o]);
        if (!f)
            goto nomem;
        int e;
        if (o == OUT_TL) {
            e = report_timeline_write(pics.tl, a.name, f);
        } else if (o == OUT_SCSV) {
            e = report_stallprof_csv(pics.sp, f);
        } else if (o == OUT_SSVG) {
            char title[600], sets[300];
            const char *base = strrchr(r.c.pos, '/');
            cli_prov_title(&prov, sets, sizeof sets);
            snprintf(title, sizeof title, "Warp states over time: %s on %s%s",
                     base ? base + 1 : r.c.pos, a.name, sets);
            e = report_stallprof_svg(pics.sp, title, f);
        } else {
            e = report_source_csv(pics.src, f);
        }
        if (fclose(f) || e)
            goto nomem;
        if (o != OUT_SSVG &&
            cli_prov_apply(&prov, o == OUT_TL ? REPORT_JSON : REPORT_CSV, &obuf[o], &olen[o]))
            goto nomem;
        if (cli_is_gz(outs[o][1])) {
            char *z;
            size_t zn;
            if (cli_gzip(obuf[o], olen[o], &z, &zn))
                goto nomem;
            free(obuf[o]);
            obuf[o] = z;
            olen[o] = zn;
        }
    }
    obuf[OUT_REP] = rep;
    olen[OUT_REP] = replen;
    rep = NULL;
    /* every file appears, or none: each is written beside its target first */
    rc = 1;
    for (begun = 0; begun < OUT_N; begun++) {
        if (!outs[begun][1])
            continue;
        if (cli_out_begin(&oo[begun], outs[begun][1], obuf[begun], olen[begun]))
            goto abort;
    }
    for (int o = 0; o < OUT_N; o++) {
        if (!outs[o][1])
            continue;
        if (cli_out_commit(&oo[o])) {
            for (int j = o + 1; j < OUT_N; j++)
                if (outs[j][1])
                    cli_out_abort(&oo[j]);
            goto done;
        }
    }
    rc = r.c.out ? 0 : cli_write_out(NULL, obuf[OUT_REP], olen[OUT_REP], "report");
    const char **names = rc || r.quiet ? NULL : malloc((size_t)count * sizeof *names);
    if (names) { /* after the answer: a caution on it (none if out of memory) */
        for (int i = 0; i < count; i++)
            names[i] = tf->kernels[first + i]->launch.name;
        cli_weak_caution(names, count);
        free(names);
    }
    goto done;
abort:
    for (int j = 0; j < begun; j++)
        if (outs[j][1])
            cli_out_abort(&oo[j]);
    goto done;
nomem:
    if (progress)
        cli_progress_end(&prog);
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    if (have_mre)
        regfree(&mre);
    if (gridf)
        fclose(gridf);
    if (have_st)
        stats_kernel_free(&st);
    if (rf)
        fclose(rf);
    free(rep);
    free(grids);
    for (int o = 0; o < OUT_N; o++)
        free(obuf[o]);
    engine_warm_free(warm);
    report_grid_free(pics.grid);
    report_timeline_free(pics.tl);
    report_stallprof_free(pics.sp);
    report_source_free(pics.src);
    if (tf)
        trace_close(tf);
    free(r.c.ov);
    free(r.tl_sms);
    return rc;
}
