/* cli_export.c — `smsim export --accelsim OUTDIR TRACE`: write any trace as an
 * Accel-Sim kernel list + tracer-version-4 .traceg files (docs/accelsim.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "convert/conv_accelsim.h"
#include "trace/trace.h"

static const char export_help[] =
    "usage: smsim export --accelsim OUTDIR TRACE [options]\n"
    "  write every kernel of TRACE as OUTDIR/kernelslist.g and OUTDIR/kernel-N.traceg\n"
    "  (Accel-Sim tracer version 4; addresses synthesized from the native patterns)\n"
    "\n"
    "options (--opt VALUE or --opt=VALUE):\n"
    "  --accelsim OUTDIR      output directory (created if missing), required\n"
    "  --binary-version N     -binary version written in the headers (default 90)\n"
    "  --seed N               seed of the random-pattern addresses (default 1)\n"
    "  --xz                   write kernel-N.traceg.xz, xz-compressed (smsim and\n"
    "                         Accel-Sim read them as they are)\n"
    "  --max-insts N          refuse a kernel of more than N warp-instructions, counted\n"
    "                         before anything is written (default 10^11; 0 = no limit)\n"
    "  -h, --help             this text\n";

int cli_export(int argc, char **argv)
{
    const char *dir = NULL;
    struct conv_accelsim_opts o = { .binary_version = 90, .seed = 1, .xz = 0 };
    struct cli_common c = { .has = CLI_C_SEED | CLI_C_POS | CLI_C_MAXINSTS, .usage = export_help,
                            .pos_name = "trace", .seed = o.seed };
    static const char *const known[] = { "--accelsim", "--binary-version", "--seed",
                                         "--max-insts", NULL };
    static const char *const flags[] = { "--xz", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "export: ",
                           .help = "smsim export --help", .known = known, .flags = flags };
    const char *name, *val;
    int kind;
    while ((kind = cli_common_opt(&c, &st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP)
            return 0;
        if (kind == CLI_OPT_FLAG) {
            o.xz = 1; /* --xz */
        } else if (!strcmp(name, "--accelsim")) {
            dir = val;
        } else if (!strcmp(name, "--binary-version")) {
            if (cli_parse_int(name, val, 10, 999, &o.binary_version))
                return 1;
        }
    }
    if (!dir) {
        fputs("smsim: export: missing --accelsim OUTDIR (see smsim export --help)\n", stderr);
        return 1;
    }
    if (cli_common_done(&c, &st))
        return 1;
    o.seed = c.seed;
    const char *trace = c.pos;
    char err[TRACE_ERR_MAX];
    struct trace_file *t = trace_open(trace, err);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    /* every instruction becomes a line of the export: a kernel of 10^19
     * would fill the disk, so the limit of the simulating subcommands holds */
    uint64_t limit = cli_insts_limit(&c);
    for (int i = 0; i < t->nkernels; i++)
        if (cli_check_insts(trace, i, t->kernels[i], limit)) {
            trace_close(t);
            return 1;
        }
    /* the export must not replace its own input (an Accel-Sim trace
     * exported into its own directory) */
    char list[4200];
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    struct stat ds;
    for (int i = 0; i <= t->nkernels && !stat(dir, &ds); i++) {
        char kf[4200];
        if (i)
            snprintf(kf, sizeof kf, "%s/kernel-%d.traceg%s", dir, i, o.xz ? ".xz" : "");
        const char *const outs[][2] = { { "--accelsim", i ? kf : list } };
        const char *const ins[][2] = { { "input trace", trace } };
        if (cli_check_outputs(outs, 1, ins, 1)) {
            trace_close(t);
            return 1;
        }
    }
    int rc = conv_accelsim_export(t, dir, &o, err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    else
        printf("wrote %d kernel%s to %s/kernelslist.g\n", t->nkernels,
               t->nkernels == 1 ? "" : "s", dir);
    trace_close(t);
    return rc ? 1 : 0;
}
