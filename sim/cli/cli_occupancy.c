/* cli_occupancy.c — `smsim occupancy`: theoretical occupancy of one launch
 * (or a curve over block size, registers or shared memory) by the CUDA
 * rules in occ.c, printed like Nsight Compute's Occupancy section.
 *
 * Everything is rendered into memory first and written to stdout only when
 * complete, so an error prints one line on stderr and nothing on stdout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "occ/occ.h"
#include "occ/occ_headroom.h"
#include "report/report.h"
#include "study/study.h"

enum occ_format { FMT_TEXT, FMT_JSON, FMT_CSV };
enum occ_vary { VARY_NONE, VARY_THREADS, VARY_REGS, VARY_SMEM };

/* Largest byte count accepted for a shared-memory option: 1 GiB, far above
 * any GPU and small enough that sums stay inside int. */
enum { OCC_CLI_SMEM_MAX = 1 << 30, OCC_CLI_REGS_MAX = 65536, OCC_CLI_THREADS_MAX = 1 << 24 };

static const char occ_help[] =
    "usage: smsim occupancy --config CFG.yaml --block-size T --regs R [options]\n"
    "  theoretical occupancy of a kernel launch by the CUDA rules (cuda_occupancy.h)\n"
    "\n"
    "options (--opt VALUE or --opt=VALUE):\n"
    "  --config FILE          GPU configuration (YAML), required\n"
    "  --block-size T         threads per block, required (need not be a multiple of 32;\n"
    "                         --threads T is its old name, accepted with a warning: in\n"
    "                         the other subcommands --threads is host threads of one\n"
    "                         simulation)\n"
    "  --regs R               registers per thread, required\n"
    "  --smem-static B        static shared memory per block, bytes (24K = 24576; default 0)\n"
    "  --smem-dynamic B       dynamic shared memory per block, bytes (default 0)\n"
    "  --max-dynamic B        the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize\n"
    "                         (default: the launch's own dynamic size)\n"
    "  --carveout PCT         preferred shared-memory carveout, 0..100 or 'none' (default)\n"
    "  --barriers N           named barriers the kernel uses (default 0; a kernel with\n"
    "                         __syncthreads() uses 1)\n"
    "  --format text|json|csv output format (default text)\n"
    "  --set sec.key=val      override one configuration key (repeatable)\n"
    "  --vary threads|regs|smem\n"
    "                         the curve instead of one point: threads per block in\n"
    "                         steps of the warp size up to the maximum, registers\n"
    "                         1..max per thread, or shared memory per block (static +\n"
    "                         dynamic) 0..opt-in maximum in 1 KiB steps (each point\n"
    "                         opted in to its own size); the given value is always\n"
    "                         one of the points\n"
    "  --plot FILE.svg|.png   also draw the three curves (blocks per SM and occupancy\n"
    "                         against block size, registers and shared memory) with\n"
    "                         the launch marked (gnuplot)\n"
    "  -h, --help             this text\n";

struct occ_args {
    const char *config;        /* --config                                      */
    int have_threads;          /* --block-size (or its old name --threads) given */
    int have_regs;             /* --regs given                                  */
    struct occ_launch l;       /* the launch                                    */
    int format;                /* enum occ_format                               */
    int vary;                  /* enum occ_vary                                 */
    const char *plot;          /* --plot FILE, or NULL                          */
    struct arch_override *ov;  /* --set overrides                               */
    int nov;                   /* their count                                   */
    unsigned seen;             /* options given, one bit each (duplicates are errors) */
    int old_name;              /* 1: the block size came as --threads           */
};

static int parse_args(int argc, char **argv, struct occ_args *r, int *help)
{
    static const char *const names[] = {
        "--config", "--block-size", "--regs", "--smem-static", "--smem-dynamic",
        "--max-dynamic", "--carveout", "--barriers", "--format", "--vary", "--set",
        "--threads", /* the old name of --block-size (same bit in `seen`) */
        "--plot",
    };
    enum { K_BLOCK_SIZE = 1, K_OLD_THREADS = 11 };
    enum { N_NAMES = sizeof names / sizeof names[0] };

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            *help = 1;
            return 0;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "smsim: occupancy: unexpected argument '%s' (see smsim occupancy "
                    "--help)\n", arg);
            return -1;
        }
        /* --opt=VALUE or --opt VALUE */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int k = -1;
        for (int j = 0; j < N_NAMES; j++)
            if (strlen(names[j]) == len && !strncmp(arg, names[j], len))
                k = j;
        if (k < 0) {
            fprintf(stderr, "smsim: occupancy: unknown option '%.*s' (see smsim occupancy "
                    "--help)\n", (int)len, arg);
            return -1;
        }
        const char *opt = names[k];
        if (k == K_OLD_THREADS)
            k = K_BLOCK_SIZE; /* warned about once the answer is ready (cli_occupancy) */
        const char *val;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "smsim: %s needs a value\n", opt);
                return -1;
            }
            val = argv[++i];
        }
        if (strcmp(opt, "--set") != 0) {
            if (r->seen & (1u << k)) {
                if (k == K_BLOCK_SIZE && r->old_name != (opt == names[K_OLD_THREADS]))
                    fputs("smsim: --block-size and --threads (its old name) both given\n",
                          stderr);
                else
                    fprintf(stderr, "smsim: %s given twice\n", opt);
                return -1;
            }
            r->seen |= 1u << k;
            if (k == K_BLOCK_SIZE)
                r->old_name = opt == names[K_OLD_THREADS];
        }

        int rc = 0;
        if (!strcmp(opt, "--config")) {
            if (!*val) {
                fprintf(stderr, "smsim: --config needs a file name\n");
                return -1;
            }
            r->config = val;
        } else if (k == K_BLOCK_SIZE) {
            rc = cli_parse_int(opt, val, 1, OCC_CLI_THREADS_MAX, &r->l.threads);
            r->have_threads = 1;
        } else if (!strcmp(opt, "--regs")) {
            rc = cli_parse_int(opt, val, 0, OCC_CLI_REGS_MAX, &r->l.regs);
            r->have_regs = 1;
        } else if (!strcmp(opt, "--smem-static")) {
            rc = cli_parse_size(opt, val, 0, OCC_CLI_SMEM_MAX, &r->l.smem_static);
        } else if (!strcmp(opt, "--smem-dynamic")) {
            rc = cli_parse_size(opt, val, 0, OCC_CLI_SMEM_MAX, &r->l.smem_dynamic);
        } else if (!strcmp(opt, "--max-dynamic")) {
            rc = cli_parse_size(opt, val, 0, OCC_CLI_SMEM_MAX, &r->l.max_dynamic);
        } else if (!strcmp(opt, "--carveout")) {
            if (!strcmp(val, "none"))
                r->l.carveout_pct = -1;
            else
                rc = cli_parse_int(opt, val, 0, 100, &r->l.carveout_pct);
        } else if (!strcmp(opt, "--barriers")) {
            rc = cli_parse_int(opt, val, 0, 1024, &r->l.barriers);
        } else if (!strcmp(opt, "--format")) {
            if (!strcmp(val, "text"))
                r->format = FMT_TEXT;
            else if (!strcmp(val, "json"))
                r->format = FMT_JSON;
            else if (!strcmp(val, "csv"))
                r->format = FMT_CSV;
            else {
                fprintf(stderr, "smsim: --format '%s': expected text, json or csv\n", val);
                return -1;
            }
        } else if (!strcmp(opt, "--vary")) {
            if (!strcmp(val, "threads"))
                r->vary = VARY_THREADS;
            else if (!strcmp(val, "regs"))
                r->vary = VARY_REGS;
            else if (!strcmp(val, "smem"))
                r->vary = VARY_SMEM;
            else {
                fprintf(stderr, "smsim: --vary '%s': expected threads, regs or smem\n", val);
                return -1;
            }
        } else if (!strcmp(opt, "--plot")) {
            size_t n = strlen(val);
            if (n < 5 || (strcmp(val + n - 4, ".svg") && strcmp(val + n - 4, ".png"))) {
                fprintf(stderr, "smsim: --plot '%s': expected a .svg or .png file name\n", val);
                return -1;
            }
            r->plot = val;
        } else { /* --set */
            rc = cli_add_override(&r->ov, &r->nov, val);
        }
        if (rc)
            return -1;
    }
    if (!r->config) {
        fprintf(stderr, "smsim: occupancy: --config is required (see smsim occupancy --help)\n");
        return -1;
    }
    if (!r->have_threads) {
        fprintf(stderr, "smsim: occupancy: --block-size is required\n");
        return -1;
    }
    if (!r->have_regs) {
        fprintf(stderr, "smsim: occupancy: --regs is required\n");
        return -1;
    }
    return 0;
}

/* ---- rendering ----------------------------------------------------- */

/* The limiter column: the binding limits, or why no block fits. */
static void limiter_of(const struct occ_result *res, char *buf, size_t n)
{
    if (res->blocks_per_sm == 0 && res->error)
        snprintf(buf, n, "%s", res->error);
    else
        occ_limiter_string(res->binding, buf, n);
}

/* A CSV field: quoted when it holds a comma or a quote. */

/* A JSON string (the strings here are ASCII text of our own). */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* A block limit: INT_MAX means "does not limit" (no registers, no shared
 * memory, no barriers), printed as null / empty / "unlimited". */
static void json_limit(FILE *f, int v)
{
    if (v == INT_MAX)
        fputs("null", f);
    else
        fprintf(f, "%d", v);
}

static void csv_limit(FILE *f, int v)
{
    if (v != INT_MAX)
        fprintf(f, "%d", v);
}

static const char *const point_keys[] = {
    "blocks_per_sm",
    "limiter",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_barriers",
    "sm__maximum_warps_avg_per_active_cycle",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__shared_mem_config_size",
    "warps_per_block",
    "smem_per_block",
    "error",
};
enum { N_POINT_KEYS = sizeof point_keys / sizeof point_keys[0] };

/* ',\n  "headroom": {...}': the numbers of occ_headroom_text (-1 is null). */
static void json_room(FILE *f, const char *name, const struct occ_room *r)
{
    fprintf(f, "%s    \"%s\": {\"now\": %d, \"keep_max\": ", strcmp(name, "registers") ? ",\n" : "",
            name, r->now);
    if (r->keep_max < 0)
        fputs("null", f);
    else
        fprintf(f, "%d", r->keep_max);
    fputs(", \"next_max\": ", f);
    if (r->next_max < 0)
        fputs("null", f);
    else
        fprintf(f, "%d", r->next_max);
    fputc('}', f);
}

static void json_headroom(FILE *f, const struct arch *a, const struct occ_launch *l)
{
    struct occ_headroom h;
    if (occ_headroom(a, l, &h))
        return;
    fprintf(f, ",\n  \"headroom\": {\n    \"next_blocks_per_sm\": ");
    if (h.next > h.max_blocks)
        fputs("null,\n", f);
    else
        fprintf(f, "%d,\n", h.next);
    json_room(f, "registers", &h.regs);
    json_room(f, "smem_per_block", &h.smem);
    json_room(f, "block_size", &h.threads);
    if (h.barriers.used)
        json_room(f, "barriers", &h.barriers);
    fputs("\n  }", f);
}

static void render_json(FILE *f, const struct occ_result *res, const struct arch *a,
                        const struct occ_launch *l)
{
    char lim[128];
    limiter_of(res, lim, sizeof lim);
    fprintf(f, "{\n  \"%s\": %d,\n  \"%s\": ", point_keys[0], res->blocks_per_sm, point_keys[1]);
    json_str(f, lim);
    fprintf(f, ",\n  \"%s\": %d,\n  \"%s\": ", point_keys[2], res->limit_blocks, point_keys[3]);
    json_limit(f, res->limit_registers);
    fprintf(f, ",\n  \"%s\": ", point_keys[4]);
    json_limit(f, res->limit_shared_mem);
    fprintf(f, ",\n  \"%s\": %d,\n  \"%s\": ", point_keys[5], res->limit_warps, point_keys[6]);
    json_limit(f, res->limit_barriers_ncu);
    fprintf(f, ",\n  \"%s\": %d,\n  \"%s\": %.4f,\n  \"%s\": %d,\n  \"%s\": %d,\n"
            "  \"%s\": %d,\n  \"%s\": ",
            point_keys[7], res->active_warps, point_keys[8], res->occupancy_pct, point_keys[9],
            res->smem_config_bytes, point_keys[10], res->warps_per_block, point_keys[11],
            res->smem_per_block_alloc, point_keys[12]);
    if (res->error)
        json_str(f, res->detail);
    else
        fputs("null", f);
    json_headroom(f, a, l);
    fputs("\n}\n", f);
}

static void render_csv(FILE *f, const struct occ_result *res)
{
    char lim[128];
    limiter_of(res, lim, sizeof lim);
    for (int i = 0; i < N_POINT_KEYS; i++)
        fprintf(f, "%s%s", i ? "," : "", point_keys[i]);
    fprintf(f, "\n%d,", res->blocks_per_sm);
    report_csv_string(f, lim, 0);
    fprintf(f, ",%d,", res->limit_blocks);
    csv_limit(f, res->limit_registers);
    fputc(',', f);
    csv_limit(f, res->limit_shared_mem);
    fprintf(f, ",%d,", res->limit_warps);
    csv_limit(f, res->limit_barriers_ncu);
    fprintf(f, ",%d,%.4f,%d,%d,%d,", res->active_warps, res->occupancy_pct,
            res->smem_config_bytes, res->warps_per_block, res->smem_per_block_alloc);
    if (res->error)
        report_csv_string(f, res->detail, 0);
    fputc('\n', f);
}

static void text_row(FILE *f, const char *name, const char *unit, const char *value)
{
    fprintf(f, "    %-40s %-8s %16s\n", name, unit, value);
}

static void text_int(FILE *f, const char *name, const char *unit, int v)
{
    char buf[32];
    if (v == INT_MAX)
        snprintf(buf, sizeof buf, "unlimited");
    else
        snprintf(buf, sizeof buf, "%d", v);
    text_row(f, name, unit, buf);
}

static void text_title(FILE *f, const struct arch *a, const struct occ_launch *l)
{
    fprintf(f, "  Section: Occupancy -- %s (CC %d.%d)\n", a->name, a->cc_major, a->cc_minor);
    fprintf(f, "  launch: %d threads/block, %d registers/thread, shared memory %d B static + "
            "%d B dynamic", l->threads, l->regs, l->smem_static, l->smem_dynamic);
    if (l->max_dynamic >= 0)
        fprintf(f, " (max dynamic %d B)", l->max_dynamic);
    if (l->carveout_pct >= 0)
        fprintf(f, ", carveout %d %%", l->carveout_pct);
    fprintf(f, ", %d barriers\n", l->barriers);
}

static void render_text(FILE *f, const struct arch *a, const struct occ_launch *l,
                        const struct occ_result *res)
{
    char buf[128];
    text_title(f, a, l);
    fprintf(f, "    %-40s %-8s %16s\n", "Metric Name", "Unit", "Metric Value");
    fprintf(f, "    %-40s %-8s %16s\n", "----------------------------------------",
            "--------", "----------------");
    text_int(f, "Block Limit SM", "block", res->limit_blocks);
    text_int(f, "Block Limit Registers", "block", res->limit_registers);
    text_int(f, "Block Limit Shared Mem", "block", res->limit_shared_mem);
    text_int(f, "Block Limit Warps", "block", res->limit_warps);
    text_int(f, "Block Limit Barriers", "block", res->limit_barriers_ncu);
    text_int(f, "Theoretical Active Warps per SM", "warp", res->active_warps);
    snprintf(buf, sizeof buf, "%.2f", res->occupancy_pct);
    text_row(f, "Theoretical Occupancy", "%", buf);
    text_int(f, "Warps per Block", "warp", res->warps_per_block);
    text_int(f, "Registers per Block (allocated)", "register", res->regs_per_block_alloc);
    text_int(f, "Shared Memory per Block (incl. reserve)", "byte", res->smem_per_block_alloc);
    text_int(f, "Driver Shared Memory per Block", "byte", a->smem_reserved_per_block);
    text_int(f, "Shared Memory Configuration Size", "byte", res->smem_config_bytes);
    limiter_of(res, buf, sizeof buf);
    fprintf(f, "  Limited by: %s\n", buf);
    if (res->error)
        fprintf(f, "  The launch cannot run: %s\n", res->detail);
    if (res->limit_barriers_ncu != res->limit_barriers && res->limit_barriers_ncu != INT_MAX) {
        char calc[32];
        if (res->limit_barriers == INT_MAX)
            snprintf(calc, sizeof calc, "applies no barrier term");
        else
            snprintf(calc, sizeof calc, "says %d", res->limit_barriers);
        fprintf(f, "  Block Limit Barriers is shown as Nsight Compute shows it (at most Block "
                   "Limit SM); the CUDA occupancy calculator %s (%d barriers per block)\n",
                calc, l->barriers);
    }
    struct occ_headroom h;
    if (!occ_headroom(a, l, &h))
        occ_headroom_text(&h, "  ", f);
}

/* ---- --vary ---------------------------------------------------------- */

struct vary_points {
    int *v;   /* the x values, ascending, unique */
    int n;    /* their count                     */
};

/* lo, lo+step, ..., hi (and hi itself when it is not a whole number of
 * steps), plus the given value: ascending, no duplicates. */
static int make_points(struct vary_points *p, int lo, int hi, int step, int given)
{
    int cap = (hi >= lo ? (hi - lo) / step + 2 : 0) + 1;
    p->n = 0;
    p->v = malloc((size_t)cap * sizeof *p->v);
    if (!p->v)
        return -1;
    long last = lo - 1;
    for (long x = lo; x <= hi; x += step)
        p->v[p->n++] = (int)(last = x);
    if (hi >= lo && last != hi)
        p->v[p->n++] = hi;
    int at = 0;
    while (at < p->n && p->v[at] < given)
        at++;
    if (at == p->n || p->v[at] != given) {
        memmove(p->v + at + 1, p->v + at, (size_t)(p->n - at) * sizeof *p->v);
        p->v[at] = given;
        p->n++;
    }
    return 0;
}

static const char *vary_name(int vary)
{
    return vary == VARY_THREADS ? "threads" : vary == VARY_REGS ? "regs" : "smem_per_block";
}

/* The launch at point v of curve `vary`. */
static struct occ_launch vary_launch(const struct occ_launch *l0, int vary, int v)
{
    struct occ_launch l = *l0;
    if (vary == VARY_THREADS)
        l.threads = v;
    else if (vary == VARY_REGS)
        l.regs = v;
    else
        l = occ_launch_with_smem(l0, v); /* the total, as the headroom */
    return l;
}

/* The given launch's value on curve `vary`. */
static int vary_given(const struct occ_launch *l0, int vary)
{
    return vary == VARY_THREADS ? l0->threads
           : vary == VARY_REGS  ? l0->regs
                                : l0->smem_static + l0->smem_dynamic;
}

/* The points of curve `vary`; 0, or -1 out of memory. */
static int vary_points(const struct arch *a, const struct occ_launch *l0, int vary,
                       struct vary_points *p)
{
    if (vary == VARY_THREADS)
        return make_points(p, a->warp_size, a->max_threads_per_block, a->warp_size,
                           l0->threads);
    if (vary == VARY_REGS)
        return make_points(p, 1, a->max_regs_per_thread, 1, l0->regs);
    return make_points(p, 0, a->smem_per_block_optin, 1024, vary_given(l0, vary));
}

static int render_vary(FILE *f, const struct arch *a, const struct occ_args *args)
{
    struct vary_points p;
    const struct occ_launch *l0 = &args->l;
    if (vary_points(a, l0, args->vary, &p)) {
        fprintf(stderr, "smsim: occupancy: out of memory\n");
        return -1;
    }

    const char *name = vary_name(args->vary);
    if (args->format == FMT_TEXT) {
        text_title(f, a, l0);
        fprintf(f, "  varying %s (* = the given launch)\n", name);
        fprintf(f, "  %14s %8s %8s %10s  %s\n", name, "blocks", "warps", "occupancy", "limiter");
    } else if (args->format == FMT_JSON) {
        fprintf(f, "{\n  \"vary\": \"%s\",\n  \"points\": [\n", name);
    } else {
        fprintf(f, "%s,%s,%s,%s,%s\n", name, point_keys[0], point_keys[7], point_keys[8],
                point_keys[1]);
    }
    for (int i = 0; i < p.n; i++) {
        struct occ_launch l = vary_launch(l0, args->vary, p.v[i]);
        struct occ_result res;
        char lim[128];
        int given = p.v[i] == vary_given(l0, args->vary);
        occ_compute(a, &l, &res); /* an invalid launch is a point with 0 blocks */
        limiter_of(&res, lim, sizeof lim);
        if (args->format == FMT_TEXT) {
            fprintf(f, "%c %14d %8d %8d %9.2f%%  %s\n", given ? '*' : ' ', p.v[i],
                    res.blocks_per_sm, res.active_warps, res.occupancy_pct, lim);
        } else if (args->format == FMT_JSON) {
            /* the names of the single point's members (point_keys) */
            fprintf(f, "    {\"%s\": %d, \"%s\": %d, \"%s\": %d, \"%s\": %.4f, \"%s\": ",
                    name, p.v[i], point_keys[0], res.blocks_per_sm, point_keys[7],
                    res.active_warps, point_keys[8], res.occupancy_pct, point_keys[1]);
            json_str(f, lim);
            fprintf(f, "}%s\n", i + 1 < p.n ? "," : "");
        } else {
            fprintf(f, "%d,%d,%d,%.4f,", p.v[i], res.blocks_per_sm, res.active_warps,
                    res.occupancy_pct);
            report_csv_string(f, lim, 0);
            fputc('\n', f);
        }
    }
    if (args->format == FMT_JSON)
        fputs("  ]\n}\n", f);
    free(p.v);
    return 0;
}

/* --plot: the three curves of the launch (cli_plot's render). */
struct occ_plot {
    const struct arch *a;          /* configuration */
    const struct occ_launch *l;    /* the launch    */
};

static int render_occ_plot(FILE *g, const char *out, void *ud)
{
    const struct occ_plot *op = ud;
    size_t n = strlen(out);
    int svg = n >= 4 && !strcmp(out + n - 4, ".svg");
    fputs(svg ? "set terminal svg size 1200,420 dynamic font 'sans,11' background rgb 'white'\n"
              : "set terminal pngcairo size 1500,525 font 'sans,10'\n", g);
    fputs("set output ", g);
    study_gp_string(g, out);
    char title[300];
    snprintf(title, sizeof title, "occupancy: %d threads/block, %d registers/thread, %d B "
             "shared memory/block on %s", op->l->threads, op->l->regs,
             op->l->smem_static + op->l->smem_dynamic, op->a->name);
    fputs("\nset multiplot layout 1,3 title ", g);
    study_gp_string(g, title);
    fputs(" noenhanced\nset grid\nset key top right noenhanced\nset yrange [0:105]\n"
          "set ylabel 'theoretical occupancy (%)'\nset y2label 'blocks per SM'\n"
          "set ytics nomirror\nset y2tics\nset y2range [0:*]\n", g);
    static const int curves[3] = { VARY_THREADS, VARY_REGS, VARY_SMEM };
    static const char *const xlabel[3] = { "threads per block", "registers per thread",
                                           "shared memory per block (static + dynamic), bytes" };
    for (int c = 0; c < 3; c++) {
        struct vary_points p;
        if (vary_points(op->a, op->l, curves[c], &p))
            return -1;
        int given = vary_given(op->l, curves[c]);
        double gy = 0, gb = 0;
        fprintf(g, "$c%d << EOD\n", c);
        for (int i = 0; i < p.n; i++) {
            struct occ_launch l = vary_launch(op->l, curves[c], p.v[i]);
            struct occ_result res;
            occ_compute(op->a, &l, &res);
            fprintf(g, "%d %.4f %d\n", p.v[i], res.occupancy_pct, res.blocks_per_sm);
            if (p.v[i] == given) {
                gy = res.occupancy_pct;
                gb = res.blocks_per_sm;
            }
        }
        fputs("EOD\n", g);
        free(p.v);
        fputs("set xlabel ", g);
        study_gp_string(g, xlabel[c]);
        fprintf(g, "\nset xrange [0:*]\nunset arrow\n"
                   "set arrow from %d, graph 0 to %d, graph 1 nohead dt 2 lc rgb 'gray40'\n"
                   "plot $c%d using 1:2 with steps lw 2 title 'occupancy', \\\n"
                   "  $c%d using 1:3 axes x1y2 with steps dt 3 title 'blocks per SM', \\\n"
                   "  '-' using 1:2 with points pt 7 ps 1.5 lc rgb 'red' "
                   "title 'this launch (%g blocks, %.2f %%)'\n%d %.4f\ne\n",
                given, given, c, c, gb, gy, given, gy);
    }
    fputs("unset multiplot\n", g);
    return ferror(g) ? -1 : 0;
}

int cli_occupancy(int argc, char **argv)
{
    struct occ_args args;
    int help = 0, status = 1;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = NULL;

    memset(&args, 0, sizeof args);
    args.l.max_dynamic = -1;
    args.l.carveout_pct = -1;
    if (parse_args(argc, argv, &args, &help))
        goto out;
    if (help) {
        fputs(occ_help, stdout);
        status = 0;
        goto out;
    }

    struct arch a;
    char err[ARCH_ERR_MAX], found[4096];
    args.config = cli_find_config(args.config, found, sizeof found);
    if (arch_load(args.config, args.ov, args.nov, &a, err)) {
        fprintf(stderr, "%s\n", err);
        goto out;
    }
    if (args.plot) {
        const char *const outs[][2] = { { "--plot", args.plot } };
        const char *const ins[][2] = { { "configuration", args.config } };
        char gerr[STUDY_ERR_MAX];
        if (cli_check_outputs(outs, 1, ins, 1))
            goto out;
        if (study_run_gnuplot("", 0, gerr)) {
            fprintf(stderr, "%s\n", gerr);
            goto out;
        }
    }

    mem = open_memstream(&buf, &len);
    if (!mem) {
        fprintf(stderr, "smsim: occupancy: out of memory\n");
        status = 2;
        goto out;
    }
    if (args.vary != VARY_NONE) {
        if (render_vary(mem, &a, &args)) {
            status = 2;
            goto out;
        }
    } else {
        struct occ_result res;
        occ_compute(&a, &args.l, &res); /* an invalid launch is reported, not an error */
        if (args.format == FMT_JSON)
            render_json(mem, &res, &a, &args.l);
        else if (args.format == FMT_CSV)
            render_csv(mem, &res);
        else
            render_text(mem, &a, &args.l, &res);
    }
    if (fclose(mem)) {
        mem = NULL;
        fprintf(stderr, "smsim: occupancy: out of memory\n");
        status = 2;
        goto out;
    }
    mem = NULL;
    /* the plot first: an error leaves stdout empty */
    struct occ_plot op = { &a, &args.l };
    if (args.plot && (status = cli_plot(args.plot, render_occ_plot, &op)))
        goto out;
    status = 1;
    /* One meaning per option name: --threads is host threads of a simulation
     * everywhere else.  Said after every check, so an error stays one line. */
    if (args.old_name)
        fputs("smsim: occupancy: --threads is deprecated, use --block-size (threads per "
              "block); the old name goes in the next release\n", stderr);
    struct cli_prov prov;
    int perr = cli_prov_init(&prov, "occupancy", NULL, &a);
    prov.config = args.config;
    prov.ov = args.ov;
    prov.nov = args.nov;
    int pfmt = args.format == FMT_JSON ? REPORT_JSON
               : args.format == FMT_CSV ? REPORT_CSV : REPORT_TEXT;
    if (perr || cli_prov_apply(&prov, pfmt, &buf, &len)) {
        fprintf(stderr, "smsim: occupancy: out of memory\n");
        status = 2;
        goto out;
    }
    if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
        fprintf(stderr, "smsim: occupancy: cannot write the output\n");
        status = 2;
        goto out;
    }
    status = 0;
out:
    if (mem)
        fclose(mem);
    free(buf);
    free(args.ov);
    return status;
}
