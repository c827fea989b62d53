/* cli_config.c — `smsim config`: print the effective configuration (the file
 * with defaults filled in and --set overrides applied) as YAML that loads
 * back unchanged, or with --schema the key reference (docs/config.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"

static const char config_help[] =
    "usage: smsim config --config CFG.yaml [--set section.key=value ...]\n"
    "       smsim config --schema\n"
    "\n"
    "Print the effective configuration as YAML (every key, defaults filled in,\n"
    "overrides applied); the output loads back unchanged.  --schema prints the\n"
    "reference of every key (docs/config.md) instead.\n"
    "\n"
    "  --config FILE          GPU configuration (configs/*.yaml)\n"
    "  --set sec.key=val      override one configuration key (repeatable)\n"
    "  --schema               print the key reference as markdown\n";

struct config_args {
    const char *config;        /* --config path, NULL if absent   */
    struct arch_override *ov;  /* --set overrides                 */
    int nov;                   /* their count                     */
    int schema;                /* --schema given                  */
    int help;                  /* --help given                    */
};

static int parse_args(int argc, char **argv, struct config_args *r)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            r->help = 1;
            return 0;
        }
        if (!strcmp(arg, "--schema")) {
            r->schema = 1;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int is_config = len == 8 && !strncmp(arg, "--config", 8);
        int is_set = len == 5 && !strncmp(arg, "--set", 5);
        if (!is_config && !is_set) {
            if (strncmp(arg, "--", 2))
                fprintf(stderr, "smsim: config: unexpected argument '%s' (see smsim config "
                        "--help)\n", arg);
            else
                fprintf(stderr, "smsim: config: unknown option '%.*s' (see smsim config "
                        "--help)\n", (int)len, arg);
            return -1;
        }
        const char *val;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "smsim: %s needs a value\n", arg);
                return -1;
            }
            val = argv[++i];
        }
        if (is_set) {
            if (cli_add_override(&r->ov, &r->nov, val))
                return -1;
            continue;
        }
        if (r->config) {
            fprintf(stderr, "smsim: --config given twice\n");
            return -1;
        }
        if (!*val) {
            fprintf(stderr, "smsim: --config needs a file name\n");
            return -1;
        }
        r->config = val;
    }
    if (r->schema && (r->config || r->nov)) {
        fprintf(stderr, "smsim: config: --schema takes no --config or --set\n");
        return -1;
    }
    if (!r->schema && !r->config) {
        fprintf(stderr, "smsim: config: --config is required (see smsim config --help)\n");
        return -1;
    }
    return 0;
}

int cli_config(int argc, char **argv)
{
    struct config_args args;
    int status = 1;
    memset(&args, 0, sizeof args);
    if (parse_args(argc, argv, &args))
        goto out;
    if (args.help) {
        fputs(config_help, stdout);
        status = 0;
        goto out;
    }
    if (args.schema) {
        arch_print_schema_markdown(stdout);
    } else {
        struct arch a;
        char found[4096];
        if (cli_load_arch(cli_find_config(args.config, found, sizeof found), args.ov, args.nov,
                          &a))
            goto out;
        arch_print_yaml(&a, stdout);
    }
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "smsim: config: cannot write the output\n");
        status = 2;
        goto out;
    }
    status = 0;
out:
    free(args.ov);
    return status;
}
