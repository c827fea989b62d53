/* cli.h — the smsim subcommands.  main.c only dispatches to these; each
 * returns the process exit status (0 ok, 1 bad input/usage, 2 internal).
 * Every error is printed as one line on stderr, and nothing on stdout
 * (no partial output).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CLI_H
#define SMSIM_CLI_H

#include <stddef.h>

int cli_run(int argc, char **argv);       /* smsim --config X TRACE (simulate)   */
int cli_config(int argc, char **argv);    /* smsim config --config X [--set ...]  */
int cli_bench(int argc, char **argv);     /* smsim bench [--quick] [--threads N]  */
int cli_occupancy(int argc, char **argv); /* smsim occupancy --config X --threads ... */
int cli_export(int argc, char **argv);    /* smsim export --accelsim DIR TRACE    */
int cli_sweep(int argc, char **argv);     /* smsim sweep --config X TRACE --vary k=a:b:s */
int cli_saturate(int argc, char **argv);  /* smsim saturate --config X TRACE          */
int cli_merge(int argc, char **argv);     /* smsim merge --sweep-manifest M FILES...  */
int cli_sass2trace(int argc, char **argv); /* smsim sass2trace --sass F --kernel RE ... */
int cli_validate(int argc, char **argv);  /* smsim validate DIR [--manifest M]        */
int cli_compare(int argc, char **argv);   /* smsim compare --ncu CSV --config X TRACE */

/* Shared helpers for subcommands. */
struct arch;
struct arch_override;
/* Parse "--set k=v" into a growing array; returns 0 or -1 (one-line error printed). */
int cli_add_override(struct arch_override **ov, int *n, const char *text);
/* Strict decimal integer for option `opt` in [lo, hi] (no sign when lo >= 0,
 * no trailing characters, no overflow); 0, or -1 with
 * "smsim: OPT 'S': expected an integer in LO..HI" printed. */
int cli_parse_int(const char *opt, const char *s, long lo, long hi, int *v);
/* arch_load() that prints its one-line error on stderr; 0 or -1. */
int cli_load_arch(const char *path, const struct arch_override *ov, int n, struct arch *a);

/* The option scanner every subcommand shares: "--opt=value" or "--opt value"
 * for the options in known[], bare flags[], positional words, --help/-h.
 * Set the fields before the first cli_opt_next(); i starts at 1. */
enum cli_opt_kind {
    CLI_OPT_END,   /* no arguments left                                     */
    CLI_OPT_VALUE, /* option *name (from known[], index k) with value *val  */
    CLI_OPT_FLAG,  /* option *name from flags[], which takes no value       */
    CLI_OPT_ARG,   /* positional word *val (not starting with '-', or "-") */
    CLI_OPT_HELP,  /* --help or -h                                          */
    CLI_OPT_ERROR  /* unknown option or missing value; one line printed     */
};
struct cli_opts {
    int argc;                 /* argument count, as the subcommand got it          */
    char **argv;              /* arguments; argv[0] is the subcommand's name       */
    int i;                    /* index of the next argument to read (start at 1)   */
    const char *tag;          /* put after "smsim: " in the two messages ("bench: ") */
    const char *help;         /* named by "unknown option" as "(see HELP)"          */
    const char *const *known; /* options that take a value, NULL-terminated         */
    const char *const *flags; /* options that take none, NULL-terminated, or NULL   */
    int no_args;              /* 1: no positionals; every word is an option         */
    int k;                    /* after CLI_OPT_VALUE: the option's index in known[] */
    char name[64];            /* the current option's name (before any '=')         */
};
/* The next argument's kind; *name and *val as described per kind (else NULL).
 * Errors: "smsim: TAGunknown option 'ARG' (see HELP)" and
 * "smsim: TAGoption NAME needs a value". */
int cli_opt_next(struct cli_opts *st, const char **name, const char **val);

/* Study helpers (cli_sweep.c, used by saturate and merge). */
struct study_table;
/* Write buf to a new file; 0, or 1 after a one-line message. */
int cli_write_file(const char *path, const char *buf, size_t len);
/* A sweep table as CSV or JSON to `out` (NULL: stdout), plus a gnuplot plot
 * of metrics ys[0..ny) when `plot` is set; rendered before anything is
 * written.  The exit status. */
int cli_study_output(const struct study_table *t, int json, const char *out, const char *plot,
                     const char *const *ys, int ny);
/* merge: the table of a manifest and its job outputs, printed (cli_merge.c). */
int cli_merge_files(const char *manifest, const char *const *files, int nfiles, int json,
                    const char *out, const char *plot, const char *const *ys, int ny);

#endif
