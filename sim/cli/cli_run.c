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
    RUN_TL_SMS = 4,                   /* --timeline-sms default                */
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
    "                         trace-event JSON (open in ui.perfetto.dev)\n"
    "  --timeline-cycles N    timeline records cycles 0..N-1 of the run (default 100000)\n"
    "  --timeline-sms N       timeline records SMs 0..N-1 (default 4)\n"
    "  -o FILE                write the report to FILE instead of stdout\n";

struct run_args {
    struct cli_common c;          /* --config, TRACE, --format, --set, --seed,
                                     --kernel (-1 = all), -o, --blocks-per-sm,
                                     --carveout, --max-cycles, --threads         */
    const char *timeline;         /* --timeline, or NULL                        */
    uint64_t grid;                /* --grid, 0 = none                           */
    uint64_t tl_cycles;           /* --timeline-cycles                          */
    int tl_sms;                   /* --timeline-sms                             */
};

/* Pictures observer: forwards the engine's callbacks to the grid/timeline. */
struct pics {
    struct report_grid *grid;      /* --grid, or NULL     */
    struct report_timeline *tl;    /* --timeline, or NULL */
};

static void pics_warp_state(void *ud, int sm, int smsp, int slot, uint32_t block,
                            uint32_t warp, uint64_t from, uint64_t to, int state)
{
    struct pics *p = ud;
    if (p->grid)
        report_grid_warp_state(p->grid, sm, smsp, slot, block, warp, from, to, state);
    if (p->tl)
        report_timeline_warp_state(p->tl, sm, smsp, slot, block, warp, from, to, state);
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
    r->tl_sms = RUN_TL_SMS;
    static const char *const known[] = {
        "--config", "--format", "--set", "--seed", "--kernel", "--blocks-per-sm",
        "--carveout", "--max-cycles", "--grid", "--timeline", "--timeline-cycles",
        "--timeline-sms", "-o", "--threads", "--max-insts", NULL
    };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "",
                           .help = "smsim --help", .known = known };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&r->c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 3;
        if (!strcmp(name, "--grid")) {
            if (cli_parse_u64(name, val, 1, RUN_GRID_MAX, &r->grid))
                return 1;
        } else if (!strcmp(name, "--timeline")) {
            r->timeline = val;
        } else if (!strcmp(name, "--timeline-cycles")) {
            if (cli_parse_u64(name, val, 1, UINT64_MAX / 2, &r->tl_cycles))
                return 1;
        } else if (!strcmp(name, "--timeline-sms")) {
            if (cli_parse_int(name, val, 1, 100000, &r->tl_sms))
                return 1;
        }
    }
    if (cli_common_done(&r->c, &st))
        return 1;
    if (r->grid && r->c.format != REPORT_TEXT) {
        fputs("smsim: --grid needs --format text (the grid is a text picture)\n", stderr);
        return 1;
    }
    return 0;
}

int cli_run(int argc, char **argv)
{
    struct run_args r;
    int rc = parse_args(argc, argv, &r);
    if (rc) {
        free(r.c.ov);
        return rc == 3 ? 0 : rc;
    }

    struct arch a;
    struct trace_file *tf = NULL;
    struct stats_kernel st;
    int have_st = 0;
    struct pics pics = { NULL, NULL };
    char *rep = NULL, *grids = NULL, *tlbuf = NULL;
    size_t replen = 0, gridslen = 0, tllen = 0;
    FILE *gridf = NULL, *rf = NULL;
    int first = 0, count = 0;
    rc = 1;

    if (cli_load_arch(r.c.config, r.c.ov, r.c.nov, &a))
        goto done;
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
    for (int i = 0; i < count; i++)
        if (cli_check_insts(r.c.pos, first + i, tf->kernels[first + i], limit))
            goto done;

    /* every output is checked before a run that may take hours, and none
     * may overwrite an input or another output */
    const char *const outs[][2] = { { "--timeline", r.timeline }, { "-o", r.c.out } };
    const char *const ins[][2] = { { "input trace", r.c.pos }, { "configuration", r.c.config } };
    if (cli_check_outputs(outs, 2, ins, 2))
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
        struct report_timeline_opts to = { r.tl_cycles, r.tl_sms, RUN_TL_EVENTS };
        pics.tl = report_timeline_new(&a, &to);
        if (!pics.tl)
            goto nomem;
    }

    for (int i = 0; i < count; i++) {
        struct trace_kernel *k = tf->kernels[first + i];
        struct engine_observer obs = { &pics, pics_warp_state, pics_block_life, 0 };
        if (pics.grid)
            obs.until = r.grid;
        if (pics.tl) {
            uint64_t u = report_timeline_until(pics.tl);
            obs.until = u > obs.until ? u : obs.until;
        }
        struct engine_opts eo = {
            .seed = r.c.seed,
            .blocks_per_sm_cap = r.c.cap,
            .carveout_pct = r.c.carveout,
            .obs = (pics.grid || pics.tl) ? &obs : NULL,
            .max_cycles = r.c.max_cycles,
            .threads = r.c.threads,
        };
        char eerr[512];
        if (engine_run(&a, k, &eo, &st, eerr)) {
            stats_kernel_free(&st);
            /* The engine's message names the kernel; add where it is. */
            fprintf(stderr, "smsim: %s: kernel %d: %s\n", r.c.pos, first + i, eerr);
            rc = 1;
            goto done;
        }
        have_st = 1;
        struct report_kernel rk = { first + i, &st };
        if (report_write_part(rf, r.c.format, a.name, &a, &rk, 1, i, i ? 0 : REPORT_HEAD))
            goto nomem;
        if (pics.grid) {
            char title[200];
            snprintf(title, sizeof title, "kernel %d '%s'", first + i, k->launch.name);
            report_grid_print(pics.grid, title, gridf);
            report_grid_reset(pics.grid);
        }
        if (pics.tl)
            report_timeline_end_kernel(pics.tl, k->launch.name, st.cycles_elapsed);
        stats_kernel_free(&st);
        have_st = 0;
    }

    int werr = report_write_part(rf, r.c.format, a.name, &a, NULL, 0, count,
                                 count ? REPORT_TAIL : REPORT_HEAD | REPORT_TAIL);
    if (gridf) {
        fclose(gridf);
        gridf = NULL;
        fwrite(grids, 1, gridslen, rf);
    }
    int cerr = fclose(rf);
    rf = NULL;
    if (cerr || werr)
        goto nomem;
    if (pics.tl) {
        FILE *tf2 = open_memstream(&tlbuf, &tllen);
        if (!tf2)
            goto nomem;
        int e = report_timeline_write(pics.tl, a.name, tf2);
        if (fclose(tf2) || e)
            goto nomem;
    }
    /* both files appear, or neither: written beside their targets first */
    struct cli_out tlo, repo;
    if (pics.tl && cli_out_begin(&tlo, r.timeline, tlbuf, tllen)) {
        rc = 1;
        goto done;
    }
    if (r.c.out && cli_out_begin(&repo, r.c.out, rep, replen)) {
        if (pics.tl)
            cli_out_abort(&tlo);
        rc = 1;
        goto done;
    }
    if (pics.tl && cli_out_commit(&tlo)) {
        if (r.c.out)
            cli_out_abort(&repo);
        rc = 1;
        goto done;
    }
    rc = r.c.out ? cli_out_commit(&repo) : cli_write_out(NULL, rep, replen, "report");
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    if (gridf)
        fclose(gridf);
    if (have_st)
        stats_kernel_free(&st);
    if (rf)
        fclose(rf);
    free(rep);
    free(grids);
    free(tlbuf);
    report_grid_free(pics.grid);
    report_timeline_free(pics.tl);
    if (tf)
        trace_close(tf);
    free(r.c.ov);
    return rc;
}
