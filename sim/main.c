/* main.c — smsim entry point: subcommands only.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"

static const char usage[] =
    "smsim " SMSIM_VERSION " - discrete-event simulator of GPU SM warp scheduling\n"
    "\n"
    "usage:\n"
    "  smsim [run] --config CFG.yaml TRACE [--format text|json|csv] [--set sec.key=val ...]\n"
    "        [--seed N] [--kernel N] [--blocks-per-sm N] [--carveout PCT]\n"
    "        [--max-cycles N] [--max-insts N] [--threads N] [--quiet] [-o FILE]\n"
    "        [--grid N] [--timeline FILE.json[.gz] [--timeline-from C]\n"
    "        [--timeline-to C | --timeline-cycles N] [--timeline-sms N|LIST]]\n"
    "        [--stall-profile BIN [--stall-csv FILE.csv] [--stall-svg FILE.svg]]\n"
    "        [--source-csv FILE.csv] [--metrics REGEX] [--csv-units row|none]\n"
    "      simulate every kernel of TRACE and report what Nsight Compute would measure\n"
    "  smsim occupancy --config CFG.yaml --block-size T --regs R [--smem-static B]\n"
    "        [--smem-dynamic B] [--carveout PCT] [--barriers N]\n"
    "        [--vary threads|regs|smem] [--plot FILE.svg] [--format text|json|csv]\n"
    "        [--set ...]\n"
    "      theoretical occupancy by the CUDA rules, the headroom of each input\n"
    "  smsim sweep --config CFG.yaml TRACE --vary KEY=a:b:step|v1,v2 [--vary ...]\n"
    "        [--format csv|json] [--plot FILE.svg] [--jobs N] [--emit-jobs FILE]\n"
    "      simulate every point of a what-if grid, one row per point\n"
    "  smsim saturate --config CFG.yaml TRACE [--threshold 0.95] [--format text|json]\n"
    "      how many resident warps hide the kernel's latency (saturation, Little's law)\n"
    "  smsim merge --sweep-manifest DIR/manifest.json DIR/*.json [--format csv|json]\n"
    "      join the outputs of sweep --emit-jobs into the sweep's table\n"
    "  smsim validate DIR [--config CFG.yaml] [--manifest M.tsv] [--format text|json]\n"
    "        [--plot FILE.svg] [--jobs N] [--case REGEX] [--max-insts N]\n"
    "      compare simulations of measured launches with their ncu data under DIR\n"
    "  smsim compare --ncu REPORT.csv --config CFG.yaml TRACE [--ncu-id ID]\n"
    "        [--kernel N] [--format text|json|csv]\n"
    "      a kernel's predicted metrics side by side with what ncu measured\n"
    "  smsim compare --source SOURCE.csv --config CFG.yaml TRACE [--kernel N]\n"
    "      per instruction: issued counts and stalls against ncu's Source page\n"
    "  smsim config --config CFG.yaml [--set sec.key=val ...] [--schema]\n"
    "      print the effective configuration as YAML (--schema: the key reference)\n"
    "  smsim export --accelsim OUTDIR TRACE [--binary-version N] [--xz]\n"
    "      write TRACE as an Accel-Sim kernel list and .traceg files\n"
    "  smsim sass2trace --sass FILE.sass --kernel REGEX --grid X,Y,Z --block X,Y,Z --regs N\n"
    "        --smem-static B --smem-dynamic B [--counts CSV] [--trip PC=N] [--annot FILE] [-o OUT]\n"
    "      convert a function of a cuobjdump -sass listing into a native trace\n"
    "  smsim sass2trace --events launch-K.smev --sass FILE.sass [--counts CSV] -o DIR\n"
    "      rebuild a launch recorded on the GPU as an Accel-Sim trace (docs/tracing.md)\n"
    "  smsim bench [--quick] [--threads N] [--config CFG.yaml] [--repeat N]\n"
    "      time the simulator on fixed full-GPU workloads (warp-instructions/s)\n"
    "  smsim --help | --version\n"
    "\n"
    "Run 'smsim SUBCOMMAND --help' for a subcommand's options ('smsim run --help' for\n"
    "a plain run's).  CFG.yaml may be a name (h100, h200): found in the configurations\n"
    "installed with smsim.  Byte counts take K/M/G suffixes (24K = 24576).\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 1;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        puts("smsim " SMSIM_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run")) /* the plain form, named */
        return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "occupancy"))
        return cli_occupancy(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return cli_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "saturate"))
        return cli_saturate(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return cli_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cli_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cli_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return cli_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "config"))
        return cli_config(argc - 1, argv + 1);
    if (!strcmp(cmd, "sass2trace"))
        return cli_sass2trace(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return cli_bench(argc - 1, argv + 1);
    if (cmd[0] != '-') {
        /* A word that is not a subcommand and not an option: most likely a
         * typo of a subcommand, or a trace given before --config. */
        FILE *f = fopen(cmd, "r");
        if (!f) {
            fprintf(stderr, "smsim: unknown subcommand '%s' (see smsim --help)\n", cmd);
            return 1;
        }
        fclose(f);
    }
    return cli_run(argc, argv);
}
