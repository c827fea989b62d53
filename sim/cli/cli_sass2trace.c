/* cli_sass2trace.c — `smsim sass2trace`: a function of a `cuobjdump -sass`
 * listing -> a native trace (docs/sass-converter.md).
 *
 * The trace is written to a temporary file beside the output, opened again
 * with the native reader (so every line is known to parse), its dynamic
 * warp-instructions added up and checked (against the counts CSV and against
 * --expect-insts), and only then renamed into place: a failed check leaves no
 * output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "convert/conv_events.h"
#include "convert/conv_sass.h"
#include "ncu/ncu_csv.h"
#include "trace/trace.h"

static const char sass_help[] =
    "usage: smsim sass2trace --sass FILE.sass --kernel REGEX --grid X,Y,Z --block X,Y,Z\n"
    "         --regs N --smem-static B --smem-dynamic B [options]\n"
    "       smsim sass2trace --sass FILE.sass --kernel REGEX --ncu REPORT.csv\n"
    "         [--ncu-id N | --ncu-kernel REGEX] [options]\n"
    "       smsim sass2trace --events launch-K.smev --sass FILE.sass [--counts F] -o DIR\n"
    "  convert one function of a `cuobjdump -sass` listing into a native trace (the\n"
    "  launch from the options or from an ncu report); with --events, rebuild every\n"
    "  recorded warp's stream from a tracer event file and write an Accel-Sim trace\n"
    "  directory DIR (kernelslist.g, kernel-1.traceg; docs/tracing.md)\n"
    "\n"
    "options (--opt VALUE or --opt=VALUE):\n"
    "  --sass FILE            cuobjdump -sass listing, required\n"
    "  --kernel REGEX         POSIX extended regex matching exactly one function name, required\n"
    "  --ncu REPORT.csv       ncu raw page (ncu --csv --page raw --print-units base): the\n"
    "                         launch (grid, block, registers, shared memory, barriers)\n"
    "                         from its row; options below win, a difference is reported\n"
    "  --ncu-id N             the launch (\"ID\" column) when the report has several\n"
    "  --ncu-kernel REGEX     ... or the one whose \"Kernel Name\" matches REGEX\n"
    "  --grid X[,Y[,Z]]       launch grid (required without --ncu)\n"
    "  --block X[,Y[,Z]]      block dimensions (required without --ncu)\n"
    "  --regs N               registers per thread (1..255) (required without --ncu)\n"
    "  --smem-static B        static shared memory per block, bytes (24K = 24576)\n"
    "                         (required without --ncu)\n"
    "  --smem-dynamic B       dynamic shared memory per block, bytes (required without --ncu)\n"
    "  --barriers N           barriers= header value (0..16; default: --ncu's\n"
    "                         launch__barrier_count, else 1 if the code has BAR)\n"
    "  --counts CSV           ncu SourceCounters export (per-instruction executed counts):\n"
    "                         trip counts and branch directions from it; code executed 0\n"
    "                         times is left out (no options for it); decisions on stderr;\n"
    "                         with --events, the expected path frequencies (or a\n"
    "                         `pc,count` file)\n"
    "  --events FILE.smev     tracer event file: the kernel (by exact name) and the launch\n"
    "                         come from its header; only --sass, --counts, --expect-insts,\n"
    "                         --tolerance, --xz and -o DIR apply\n"
    "  --trip PC=N            trip count of the loop whose backward branch is at PC\n"
    "                         (N: a number or a trace expression); repeatable, wins over --counts\n"
    "  --take PC=EXPR         the forward branch / guarded EXIT at PC is taken by the warps\n"
    "                         for which EXPR (block, warp, ...) is non-zero; repeatable\n"
    "  --annot FILE           memory annotations (pattern, footprint, ...) per PC or opcode\n"
    "  --expect-insts N       fail unless the trace's warp-instructions are within\n"
    "                         --tolerance of N (e.g. ncu's smsp__inst_executed.sum)\n"
    "  --tolerance PCT        for --expect-insts, percent (default 0.5)\n"
    "  --xz                   with --events: write kernel-1.traceg.xz (xz-compressed)\n"
    "  -o FILE                write the trace to FILE (default: stdout); with --events the\n"
    "                         output directory, required\n"
    "  -h, --help             this text\n";

static int parse_dims(const char *opt, const char *s, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || v < 1 || v > UINT32_MAX)
            break;
        d[k] = (uint32_t)v;
        if (*end == 0)
            return 0;
        if (*end != ',' || k == 2)
            break;
        p = end + 1;
    }
    fprintf(stderr, "smsim: %s '%s': expected X[,Y[,Z]] with each dimension 1..4294967295\n",
            opt, s);
    return -1;
}

/* "PC=VALUE" (PC hex with 0x, or decimal). */
static int parse_ctl(const char *opt, const char *s, struct conv_sass_ctl *c)
{
    const char *eq = strchr(s, '=');
    char *end;
    errno = 0;
    unsigned long long pc = eq ? strtoull(s, &end, 0) : 0;
    if (!eq || eq == s || errno || end != eq || !eq[1] || pc % 16 || pc > UINT32_MAX) {
        fprintf(stderr, "smsim: %s '%s': expected PC=VALUE with PC an instruction address "
                        "(0x..., a multiple of 16)\n", opt, s);
        return -1;
    }
    c->pc = (uint32_t)pc;
    c->value = eq + 1;
    return 0;
}

/* A temporary file next to `out` (or in TMPDIR): its name in buf. */
static FILE *temp_file(const char *out, char *buf, size_t n)
{
    if (out) {
        snprintf(buf, n, "%s.tmpXXXXXX", out);
    } else {
        const char *d = getenv("TMPDIR");
        snprintf(buf, n, "%s/smsim-sass2trace-XXXXXX", d && *d ? d : "/tmp");
    }
    int fd = mkstemp(buf);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(buf);
    }
    return f;
}

/* --events: the event file and the listing -> an Accel-Sim directory. */
static int events_mode(const char *events, const struct conv_sass_opts *so, const char *bad,
                       const char *out, int xz, int have_expect, uint64_t expect, double tol)
{
    if (bad) {
        fprintf(stderr, "smsim: sass2trace: %s does not apply with --events (the event file's "
                        "header names the kernel and the launch)\n", bad);
        return 1;
    }
    if (!so->sass_path || !out) {
        fprintf(stderr, "smsim: sass2trace: missing %s (see smsim sass2trace --help)\n",
                !so->sass_path ? "--sass" : "-o DIR");
        return 1;
    }
    /* the two files written into DIR must not be one of the inputs */
    const char *const ins[][2] = { { "event file", events },
                                   { "SASS listing", so->sass_path },
                                   { "counts file", so->counts_path } };
    char list[4096], kfile[4096];
    snprintf(list, sizeof list, "%s/kernelslist.g", out);
    snprintf(kfile, sizeof kfile, "%s/kernel-1.traceg%s", out, xz ? ".xz" : "");
    for (int j = 0; j < 3; j++) {
        struct stat a, b;
        const char *w[2] = { list, kfile };
        for (int k = 0; k < 2; k++)
            if (ins[j][1] && !stat(ins[j][1], &a) && !stat(w[k], &b) && a.st_dev == b.st_dev &&
                a.st_ino == b.st_ino) {
                fprintf(stderr, "smsim: -o '%s' holds the %s '%s' (it would be overwritten)\n",
                        out, ins[j][0], ins[j][1]);
                return 1;
            }
    }
    struct conv_events_opts eo = { .events_path = events, .sass_path = so->sass_path,
                                   .counts_path = so->counts_path, .out_dir = out, .xz = xz };
    struct conv_events_stats st;
    char err[TRACE_ERR_MAX];
    if (conv_events_convert(&eo, &st, err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    /* read the result back: every line must parse, and add up to the same */
    struct trace_file *t = trace_open(list, err);
    uint64_t total = 0;
    if (t) {
        for (int k = 0; k < t->nkernels; k++)
            total += conv_sass_kernel_insts(t->kernels[k]);
        trace_close(t);
    }
    if (!t || total != st.insts) {
        if (t)
            fprintf(stderr, "smsim: %s: reads back as %" PRIu64 " warp-instructions, %" PRIu64
                            " were written\n", list, total, st.insts);
        else
            fprintf(stderr, "%s\n", err);
        unlink(list);
        unlink(kfile);
        return 1;
    }
    fprintf(stderr, "smsim: sass2trace: %s: %" PRIu64 " warps (%" PRIu64 " blocks, grid %u,%u,%u), "
                    "%" PRIu64 " warp-instructions, %" PRIu64 " records consumed, %" PRIu64
                    " ambiguous choices (%" PRIu64 " by counts), %" PRIu64
                    " predicated-off instrumented instructions, %" PRIu64 " divergence switches\n",
            out, st.warps, st.blocks, st.grid[0], st.grid[1], st.grid[2], st.insts, st.records,
            st.ambiguous, st.by_counts, st.masked_off, st.diverged);
    if (have_expect) {
        double dev = expect ? 100.0 * ((double)total - (double)expect) / (double)expect
                            : (total ? 100.0 : 0.0);
        if (dev > tol || dev < -tol) {
            fprintf(stderr, "smsim: %s: the trace executes %" PRIu64 " warp-instructions, "
                            "--expect-insts is %" PRIu64 " (%+.3f %%, tolerance %g %%)\n",
                    out, total, expect, dev, tol);
            unlink(list);
            unlink(kfile);
            return 1;
        }
        printf("%s: %" PRIu64 " warp-instructions, expected %" PRIu64 " (%+.3f %%): ok\n", out,
               total, expect, dev);
    }
    return 0;
}

/* One launch__ metric of row `row` as a whole number: 0 and *v, or -1 with a
 * message. */
static int ncu_int(const struct ncu_table *t, int row, const char *name, int64_t lo, int64_t hi,
                   int64_t *v)
{
    char err[NCU_ERR_MAX];
    double d;
    int c = ncu_col(t, name);
    int rc = c < 0 ? 1 : ncu_value(t, row, c, &d, err);
    if (rc < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (rc > 0) {
        fprintf(stderr, "smsim: --ncu %s: no '%s' value (export with ncu --csv --page raw "
                "--print-units base)\n", t->path, name);
        return -1;
    }
    if (!(d >= (double)lo && d <= (double)hi) || d != (double)(int64_t)d) {
        fprintf(stderr, "smsim: --ncu %s: %s = %g is not a whole number in %" PRId64 "..%" PRId64
                "\n", t->path, name, d, lo, hi);
        return -1;
    }
    *v = (int64_t)d;
    return 0;
}

/* A value of the report next to the one given on the command line: the
 * command line wins, a difference is reported (one line on stderr). */
static void ncu_vs_cli(char *notes, size_t n, const char *path, const char *id,
                       const char *what, int64_t ncu, int64_t cli)
{
    size_t l = strlen(notes);
    if (ncu != cli)
        snprintf(notes + l, n - l, "smsim: sass2trace: note: %s %" PRId64 " from the command "
                 "line, ncu report %s ID %s has %" PRId64 "\n", what, cli, path, id, ncu);
}

/* --ncu REPORT.csv [--ncu-id N]: the launch from ncu's raw page; values given
 * on the command line (have_*) stay. */
static int launch_from_ncu(const char *path, const char *id, const char *kernel,
                           struct conv_sass_opts *o,
                           int have_grid, int have_block, int have_regs, int have_ss, int have_sd,
                           char *notes, size_t nn)
{
    struct ncu_table t;
    char err[NCU_ERR_MAX];
    if (ncu_csv_load(path, &t, err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int status = -1, row = 0;
    if (cli_ncu_pick(&t, id, kernel, "--ncu-id", "--ncu-kernel", &row))
        goto done;
    const char *rid = ncu_cell(&t, row, ncu_col(&t, "ID"));
    rid = rid ? rid : "?";
    static const char *const dims[2][3] = {
        { "launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z" },
        { "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z" } };
    int64_t v[2][3], regs, ss, sd, bar;
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 3; k++)
            if (ncu_int(&t, row, dims[a][k], 1, UINT32_MAX, &v[a][k]))
                goto done;
    if (ncu_int(&t, row, "launch__registers_per_thread", 1, 255, &regs) ||
        ncu_int(&t, row, "launch__shared_mem_per_block_static", 0, 2147483647, &ss) ||
        ncu_int(&t, row, "launch__shared_mem_per_block_dynamic", 0, 2147483647, &sd))
        goto done;
    uint32_t *dst[2] = { o->launch.grid, o->launch.block };
    const int have[2] = { have_grid, have_block };
    for (int a = 0; a < 2; a++) {
        if (have[a]) {
            for (int k = 0; k < 3; k++)
                if (v[a][k] != dst[a][k]) {
                    size_t l = strlen(notes);
                    snprintf(notes + l, nn - l, "smsim: sass2trace: note: %s %u,%u,%u from the "
                             "command line, ncu report %s ID %s has %" PRId64 ",%" PRId64 ",%"
                             PRId64 "\n", a ? "--block" : "--grid", dst[a][0], dst[a][1],
                             dst[a][2], path, rid, v[a][0], v[a][1], v[a][2]);
                    break;
                }
        } else {
            for (int k = 0; k < 3; k++)
                dst[a][k] = (uint32_t)v[a][k];
        }
    }
    if (have_regs)
        ncu_vs_cli(notes, nn, path, rid, "--regs", regs, o->launch.regs);
    else
        o->launch.regs = (int)regs;
    if (have_ss)
        ncu_vs_cli(notes, nn, path, rid, "--smem-static", ss, o->launch.smem_static);
    else
        o->launch.smem_static = (int)ss;
    if (have_sd)
        ncu_vs_cli(notes, nn, path, rid, "--smem-dynamic", sd, o->launch.smem_dynamic);
    else
        o->launch.smem_dynamic = (int)sd;
    if (ncu_col(&t, "launch__barrier_count") >= 0) {
        if (ncu_int(&t, row, "launch__barrier_count", 0, 16, &bar))
            goto done;
        if (o->barriers >= 0)
            ncu_vs_cli(notes, nn, path, rid, "--barriers", bar, o->barriers);
        else
            o->barriers = (int)bar;
    }
    status = 0;
done:
    ncu_table_free(&t);
    return status;
}

int cli_sass2trace(int argc, char **argv)
{
    struct conv_sass_opts o;
    memset(&o, 0, sizeof o);
    o.barriers = -1;
    const char *out = NULL, *ncu = NULL, *ncu_id = NULL, *ncu_kernel = NULL;
    int have_grid = 0, have_block = 0, have_regs = 0, have_ss = 0, have_sd = 0, have_expect = 0;
    const char *events = NULL, *launch_opt = NULL;
    int xz = 0;
    uint64_t expect = 0;
    double tol = 0.5;
    char notes[2048] = ""; /* --ncu values the command line overrode (printed at the end) */
    struct conv_sass_ctl *trips = calloc((size_t)argc, sizeof *trips);
    struct conv_sass_ctl *takes = calloc((size_t)argc, sizeof *takes);
    int status = 1;
    if (!trips || !takes) {
        fputs("smsim: out of memory\n", stderr);
        goto done;
    }
    o.trips = trips;
    o.takes = takes;
    static const char *const known[] = {
        "--sass", "--kernel", "--grid", "--block", "--regs", "--smem-static",
        "--smem-dynamic", "--barriers", "--counts", "--trip", "--take", "--annot",
        "--expect-insts", "--tolerance", "--events", "-o", "--ncu", "--ncu-id", "--ncu-kernel",
        NULL};
    static const char *const flags[] = { "--xz", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "sass2trace: ",
                           .help = "smsim sass2trace --help", .known = known, .flags = flags,
                           .no_args = 1 };
    const char *name, *val;
    int kind;
    while ((kind = cli_opt_next(&st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            goto done;
        if (kind == CLI_OPT_HELP) {
            fputs(sass_help, stdout);
            status = 0;
            goto done;
        }
        if (kind == CLI_OPT_FLAG) {
            xz = 1; /* --xz */
            continue;
        }
        int v;
        switch (st.k) {
        case 0: o.sass_path = val; break;
        case 1: o.kernel_re = val; launch_opt = "--kernel"; break;
        case 2:
            if (parse_dims("--grid", val, o.launch.grid))
                goto done;
            have_grid = 1;
            launch_opt = "--grid";
            break;
        case 3:
            if (parse_dims("--block", val, o.launch.block))
                goto done;
            have_block = 1;
            launch_opt = "--block";
            break;
        case 4:
            if (cli_parse_int("--regs", val, 1, 255, &o.launch.regs))
                goto done;
            have_regs = 1;
            launch_opt = "--regs";
            break;
        case 5:
            if (cli_parse_size("--smem-static", val, 0, 2147483647, &o.launch.smem_static))
                goto done;
            have_ss = 1;
            launch_opt = "--smem-static";
            break;
        case 6:
            if (cli_parse_size("--smem-dynamic", val, 0, 2147483647, &o.launch.smem_dynamic))
                goto done;
            have_sd = 1;
            launch_opt = "--smem-dynamic";
            break;
        case 7:
            if (cli_parse_int("--barriers", val, 0, 16, &v))
                goto done;
            o.barriers = v;
            launch_opt = "--barriers";
            break;
        case 8: o.counts_path = val; break;
        case 9:
            if (parse_ctl("--trip", val, &trips[o.ntrips]))
                goto done;
            for (int j = 0; j < o.ntrips; j++)
                if (trips[j].pc == trips[o.ntrips].pc) {
                    fprintf(stderr, "smsim: --trip 0x%x given twice\n", trips[j].pc);
                    goto done;
                }
            o.ntrips++;
            break;
        case 10:
            if (parse_ctl("--take", val, &takes[o.ntakes]))
                goto done;
            for (int j = 0; j < o.ntakes; j++)
                if (takes[j].pc == takes[o.ntakes].pc) {
                    fprintf(stderr, "smsim: --take 0x%x given twice\n", takes[j].pc);
                    goto done;
                }
            o.ntakes++;
            break;
        case 11: o.annot_path = val; launch_opt = "--annot"; break;
        case 12:
            if (cli_parse_u64("--expect-insts", val, 0, UINT64_MAX, &expect))
                goto done;
            have_expect = 1;
            break;
        case 13: {
            char *end;
            errno = 0;
            tol = strtod(val, &end);
            if (errno || *end || end == val || !(tol >= 0 && tol <= 100)) {
                fprintf(stderr, "smsim: --tolerance '%s': expected a percentage 0..100\n", val);
                goto done;
            }
            break;
        }
        case 14: events = val; break;
        case 15: out = val; break;
        case 16: ncu = val; launch_opt = "--ncu"; break;
        case 17: ncu_id = val; launch_opt = "--ncu-id"; break;
        default: ncu_kernel = val; launch_opt = "--ncu-kernel"; break;
        }
    }
    if (xz && !events) {
        fprintf(stderr, "smsim: sass2trace: --xz applies only with --events (a native trace "
                        "is written as text)\n");
        goto done;
    }
    if (events) {
        status = events_mode(events, &o, launch_opt ? launch_opt : o.ntrips ? "--trip"
                             : o.ntakes ? "--take" : NULL, out, xz, have_expect, expect, tol);
        goto done;
    }
    if ((ncu_id || ncu_kernel) && !ncu) {
        fprintf(stderr, "smsim: sass2trace: %s needs --ncu REPORT.csv\n",
                ncu_id ? "--ncu-id" : "--ncu-kernel");
        goto done;
    }
    if (ncu) {
        const char *const ins1[][2] = { { "ncu report", ncu } };
        const char *const outs1[][2] = { { "-o", out } };
        if (cli_check_outputs(outs1, 1, ins1, 1) ||
            launch_from_ncu(ncu, ncu_id, ncu_kernel, &o, have_grid, have_block, have_regs,
                            have_ss, have_sd, notes, sizeof notes))
            goto done;
        have_grid = have_block = have_regs = have_ss = have_sd = 1;
    }
    const char *missing = !o.sass_path ? "--sass" : !o.kernel_re ? "--kernel"
                        : !have_grid ? "--grid" : !have_block ? "--block"
                        : !have_regs ? "--regs" : !have_ss ? "--smem-static"
                        : !have_sd ? "--smem-dynamic" : NULL;
    if (missing) {
        fprintf(stderr, "smsim: sass2trace: missing %s (or --ncu REPORT.csv for the launch; see "
                "smsim sass2trace --help)\n", missing);
        goto done;
    }

    /* the trace replaces -o only at the end, but never one of the inputs */
    const char *const outs[][2] = { { "-o", out } };
    const char *const ins[][2] = { { "SASS listing", o.sass_path },
                                   { "counts file", o.counts_path },
                                   { "annotations", o.annot_path } };
    if (cli_check_outputs(outs, 1, ins, 3))
        goto done;
    char err[TRACE_ERR_MAX];
    struct conv_sass_result r;
    if (conv_sass_convert(&o, &r, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    char tmp[4096];
    FILE *f = temp_file(out, tmp, sizeof tmp);
    if (!f) {
        fprintf(stderr, "smsim: %s: cannot create a temporary file: %s\n", out ? out : "stdout",
                strerror(errno));
        conv_sass_result_free(&r);
        goto done;
    }
    int werr = fwrite(r.text, 1, r.len, f) != r.len;
    werr |= fclose(f) != 0;
    uint64_t total = 0;
    if (werr) {
        fprintf(stderr, "smsim: %s: write error: %s\n", tmp, strerror(errno));
    } else if (conv_sass_verify(&r, tmp, &total, err)) {
        fprintf(stderr, "%s\n", err);
        werr = 1;
    } else if (have_expect) {
        double dev = expect ? 100.0 * ((double)total - (double)expect) / (double)expect
                            : (total ? 100.0 : 0.0);
        if (dev > tol || dev < -tol) {
            fprintf(stderr, "smsim: %s: the trace executes %" PRIu64 " warp-instructions, "
                            "--expect-insts is %" PRIu64 " (%+.3f %%, tolerance %g %%)\n",
                    out ? out : r.name, total, expect, dev, tol);
            werr = 1;
        } else {
            fprintf(out ? stdout : stderr,
                    "%s: %" PRIu64 " warp-instructions, expected %" PRIu64 " (%+.3f %%): ok\n",
                    out ? out : r.name, total, expect, dev);
        }
    }
    if (werr) {
        unlink(tmp);
        conv_sass_result_free(&r);
        goto done;
    }
    if (out) {
        if (rename(tmp, out)) {
            fprintf(stderr, "smsim: %s: cannot write: %s\n", out, strerror(errno));
            unlink(tmp);
            conv_sass_result_free(&r);
            goto done;
        }
    } else {
        unlink(tmp);
        fwrite(r.text, 1, r.len, stdout);
    }
    /* what the command line overrode, what the counts decided instead of
     * --trip/--take (after success only: a failure is one line) */
    fputs(notes, stderr);
    for (const char *p = r.notes ? r.notes : ""; *p;) {
        const char *e = strchr(p, '\n');
        int l = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "smsim: sass2trace: inferred: %.*s\n", l, p);
        p += l + (e != NULL);
    }
    conv_sass_result_free(&r);
    status = 0;
done:
    free(trips);
    free(takes);
    return status;
}
