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
    "  smsim --config CFG.yaml TRACE [--format text|json|csv] [--set sec.key=val ...]\n"
    "        [--seed N] [--grid N] [--timeline FILE.json] [--kernel N]\n"
    "        [--blocks-per-sm N] [--carveout PCT]\n"
    "      simulate every kernel of TRACE and report what Nsight Compute would measure\n"
    "  smsim occupancy --config CFG.yaml --threads T --regs R [--smem-static B]\n"
    "        [--smem-dynamic B] [--carveout PCT] [--barriers N]\n"
    "        [--vary threads|regs|smem] [--format text|json|csv] [--set ...]\n"
    "      theoretical occupancy by the CUDA rules\n"
    "  smsim config --config CFG.yaml [--set sec.key=val ...] [--schema]\n"
    "      print the effective configuration as YAML (--schema: the key reference)\n"
    "  smsim --help | --version\n"
    "\n"
    "Run 'smsim SUBCOMMAND --help' for a subcommand's options.\n";

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
    if (!strcmp(cmd, "occupancy"))
        return cli_occupancy(argc - 1, argv + 1);
    if (!strcmp(cmd, "config"))
        return cli_config(argc - 1, argv + 1);
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
