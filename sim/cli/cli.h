/* cli.h — the smsim subcommands.  main.c only dispatches to these; each
 * returns the process exit status (0 ok, 1 bad input/usage, 2 internal).
 * Every error is printed as one line on stderr, and nothing on stdout
 * (no partial output).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CLI_H
#define SMSIM_CLI_H

#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

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
/* One error line on stderr, printf-style (a trailing newline optional),
 * with the bytes a terminal would obey shown as \xHH (arch_msg_escape):
 * for messages that quote input read from files. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

/* The options several subcommands share, parsed by one function so each has
 * one meaning and one message everywhere.  A subcommand sets `has`, the
 * defaults and the strings, lists the options in its cli_opts.known[], and
 * reads its arguments with cli_common_opt(). */
enum {
    CLI_C_CONFIG = 1 << 0, /* --config FILE (cli_common_done: required when NULL)  */
    CLI_C_SET = 1 << 1,    /* --set sec.key=val, repeatable                        */
    CLI_C_SEED = 1 << 2,   /* --seed N, 0..UINT64_MAX                              */
    CLI_C_KERNEL = 1 << 3, /* --kernel N, 0..INT32_MAX                             */
    CLI_C_FORMAT = 1 << 4, /* --format WORD, one of formats[]                      */
    CLI_C_PLOT = 1 << 5,   /* --plot FILE.svg|FILE.png                             */
    CLI_C_OUT = 1 << 6,    /* -o FILE                                              */
    CLI_C_POS = 1 << 7,    /* one positional word (pos_name; cli_common_done: required) */
    CLI_C_CAP = 1 << 8,    /* --blocks-per-sm N, 1..INT32_MAX                      */
    CLI_C_CARVEOUT = 1 << 9, /* --carveout PCT, 0..100                             */
    CLI_C_THREADS = 1 << 10, /* --threads N (simulation threads), 1..1024           */
    CLI_C_MAXCYC = 1 << 11, /* --max-cycles N, 0..UINT64_MAX                       */
    CLI_C_JOBS = 1 << 12,  /* --jobs N (processes/threads of a study), 1..4096     */
    CLI_C_MAXINSTS = 1 << 13 /* --max-insts N, 0..UINT64_MAX (cli_insts_limit)     */
};
struct arch_override;
struct cli_common {
    unsigned has;                /* CLI_C_* bits: the shared options taken             */
    const char *usage;           /* --help text, printed on stdout                     */
    const char *const *formats;  /* CLI_C_FORMAT: "text"/"json"/"csv", NULL-terminated */
    const char *pos_name;        /* CLI_C_POS: "trace" or "DIR", named by messages     */
    const char *config;          /* --config, or the subcommand's default (or NULL)    */
    const char *pos;             /* the positional word, or NULL                       */
    const char *plot;            /* --plot, or NULL                                    */
    const char *out;             /* -o, or NULL (stdout)                               */
    struct arch_override *ov;    /* --set overrides in order (free() it)               */
    int nov;                     /* their count                                        */
    uint64_t seed;               /* --seed, or the subcommand's default                */
    int kernel;                  /* --kernel, or the subcommand's default (-1)         */
    int format;                  /* --format as enum report_format, or the default     */
    int cap;                     /* --blocks-per-sm, 0 = what occupancy allows (default) */
    int carveout;                /* --carveout, -1 = occupancy's choice (set the default) */
    int threads;                 /* --threads (set the default: 1)                     */
    uint64_t max_cycles;         /* --max-cycles, 0 = unlimited (default)              */
    int jobs;                    /* --jobs (set the default: cli_default_jobs())       */
    uint64_t max_insts;          /* --max-insts as given                               */
    int max_insts_given;         /* 1: --max-insts was given                           */
    char config_found[4096];     /* config as found by cli_find_config() (CLI_OPT_END) */
};
/* The instruction limit of a subcommand (study_insts_limit): --max-insts
 * when given, else none when --max-cycles is set, else STUDY_MAX_INSTS. */
uint64_t cli_insts_limit(const struct cli_common *c);
/* Refuse kernel `index` of `trace` (k) above `limit` before it runs: 0, or
 * 1 after "smsim: TRACE: kernel I: kernel 'NAME' executes N
 * warp-instructions, more than LIMIT (give --max-insts N, ...)". */
struct trace_kernel;
int cli_check_insts(const char *trace, int index, struct trace_kernel *k, uint64_t limit);
/* The default of --jobs: the online CPUs, at least 1. */
int cli_default_jobs(void);
/* cli_opt_next() with the shared options of c->has consumed: the kind of the
 * next argument the subcommand handles itself (CLI_OPT_VALUE, CLI_OPT_FLAG,
 * CLI_OPT_ARG when it takes no CLI_C_POS), CLI_OPT_END, CLI_OPT_HELP after
 * printing c->usage, or CLI_OPT_ERROR after one line on stderr:
 * "smsim: TAGmore than one POS_NAME given ('A' and 'B')",
 * "smsim: --format 'X': expected A, B or C",
 * "smsim: --plot 'X': expected a .svg or .png file name",
 * and cli_parse_int()'s and cli_parse_u64()'s messages. */
int cli_common_opt(struct cli_common *c, struct cli_opts *st, const char **name,
                   const char **val);
/* After the last argument: 0, or 1 after
 * "smsim: TAGmissing --config CFG.yaml (see HELP)" (CLI_C_CONFIG, config NULL) or
 * "smsim: TAGmissing TRACE file (see HELP)" (CLI_C_POS, no positional). */
int cli_common_done(const struct cli_common *c, const struct cli_opts *st);
/* Strict unsigned decimal for option `opt` in [lo, hi]; 0, or -1 with
 * "smsim: OPT 'S': expected an integer in LO..HI" printed. */
int cli_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
/* The kernel a one-kernel subcommand simulates: *kernel (-1: the only one)
 * checked against the trace's nkernels; 0, or 1 after
 * "smsim: TRACE has N kernels: choose one with --kernel 0..N-1" or
 * "smsim: --kernel K: the trace has N kernels (0..N-1)". */
int cli_pick_kernel(const char *trace, int nkernels, int *kernel);
struct ncu_table;
/* The launch (row) of an ncu report: the row whose "ID" is `id` (NULL: any),
 * among those whose "Kernel Name" matches the POSIX extended regex `kernel_re`
 * (NULL: any); exactly one must remain.  0 with *row, or 1 after one line on
 * stderr naming the options (id_opt, kernel_opt: e.g. "--ncu-id") and listing
 * the candidates, consecutive IDs of one kernel together:
 * "smsim: R.csv: 24 launches: choose one with --ncu-id ID (or --ncu-kernel
 * REGEX): IDs 0-7 'val_stencil_reuse<32>', IDs 8-15 ...".  (cli_ncu_pick.c) */
int cli_ncu_pick(const struct ncu_table *t, const char *id, const char *kernel_re,
                 const char *id_opt, const char *kernel_opt, int *row);
/* Write buf to the file `path` without ever leaving it partial: the text
 * goes to a temporary file beside it (PATH.tmpXXXXXX), renamed over it only
 * when complete (an existing device or FIFO is written in place).  0, or 1
 * after "smsim: cannot write 'PATH': REASON" (the old file then intact). */
int cli_write_file(const char *path, const char *buf, size_t len);
/* The same in two steps, so that several outputs appear together or not at
 * all: cli_out_begin() writes the temporary file (0, or 1 after the message,
 * nothing left), then cli_out_commit() renames it into place (0, or 1 after
 * the message) or cli_out_abort() removes it. */
struct cli_out {
    const char *path;            /* the name given                             */
    char *target;                /* the file replaced (a link resolved)        */
    char *tmp;                   /* the temporary file, or NULL (in place)     */
    int direct;                  /* 1: written in place (a device, a FIFO)     */
};
int cli_out_begin(struct cli_out *o, const char *path, const char *buf, size_t len);
int cli_out_commit(struct cli_out *o);
void cli_out_abort(struct cli_out *o);
/* Draw a gnuplot plot into `path` the same way: render(f, out, ud) writes
 * the script into f with `out` as gnuplot's output file (a temporary file
 * beside path with its extension, or path itself for a device), gnuplot
 * runs, and the plot replaces path only when gnuplot succeeded.  0, or 1
 * after one line (gnuplot's own last message quoted; nothing left behind),
 * 2 out of memory. */
int cli_plot(const char *path, int (*render)(FILE *f, const char *out, void *ud), void *ud);
/* Before a long run: can `path` be written?  Creates and removes the
 * temporary file; 0, or 1 after "smsim: cannot write 'PATH': REASON". */
int cli_check_out(const char *path);
/* Before a run: every output out[i] = {option, path} (path NULL: none) is
 * checked with cli_check_out(), after refusing one that is an input in[j] =
 * {what, path} ("smsim: -o 'X' is the input trace (it would be
 * overwritten)") or another output ("smsim: --timeline and -o name the same
 * file 'X'").  0, or 1 after the message. */
int cli_check_outputs(const char *const out[][2], int nout, const char *const in[][2], int nin);
/* A rendered output to -o FILE `out` (cli_write_file), or to stdout when out
 * is NULL; 0, or 1 after "smsim: cannot write the WHAT to stdout". */
int cli_write_out(const char *out, const char *buf, size_t len, const char *what);

/* Kernel classes the validation marks weak (cli_weak.c, validate/weak.tsv):
 * after a run of kernels names[0..n), one line on stderr when one matches
 * (none when the environment has SMSIM_NO_CAUTION=1),
 * "smsim: caution: kernel 'NAME' [(and K more kernels)] is of a class the
 * validation marks weak (CLASS, validate/weak.tsv): ERROR; see
 * docs/validation.md"; nothing otherwise. */
void cli_weak_caution(const char *const *names, int n);
/* The table's rows, or -1 with "validate/weak.tsv:LINE: why" in err. */
int cli_weak_check(char *err, size_t n);

/* compare --source (cli_compare_source.c): the parsed common options of
 * `smsim compare` and the ncu Source page export; the exit status. */
int cli_compare_source(const struct cli_common *c, const char *source);

/* gzip (cli_gz.c): does `path` end in ".gz"?  And buf[0..n) compressed into
 * *out (malloc'd, *outn bytes; no time stamp: the same input, the same
 * bytes); 0, or -1 when out of memory. */
int cli_is_gz(const char *path);
int cli_gzip(const char *buf, size_t n, char **out, size_t *outn);

/* The progress line of a long run (cli_progress.c). */
struct cli_progress {
    uint64_t total;              /* warp-instructions of the run, 0 = not known  */
    uint64_t before;             /* issued by the kernels before this one        */
    int kernel, nkernels;        /* the running kernel (0-based) of nkernels     */
    double delay;                /* seconds before the line appears              */
    double t0, last;             /* start, last redraw (monotonic seconds)       */
    int shown;                   /* a line is on the terminal                    */
};
/* Show progress?  Only when stderr is a terminal, without --quiet, and not
 * while a JSON report goes to stdout (the same terminal). */
int cli_progress_wanted(int quiet, int json_to_stdout);
/* The delay: 2 s, or $SMSIM_PROGRESS_DELAY seconds. */
double cli_progress_delay(void);
void cli_progress_start(struct cli_progress *p, uint64_t total, int nkernels, double delay);
void cli_progress_kernel(struct cli_progress *p, int kernel, uint64_t done_before);
/* engine_opts.progress (ud: the struct cli_progress). */
void cli_progress_update(void *ud, uint64_t issued);
/* Erase the line, if one is shown. */
void cli_progress_end(struct cli_progress *p);
/* The line's text into buf[n]: "smsim:  42% (1.23 G of 2.90 G
 * warp-instructions, kernel 2 of 3), 4.2 s, ETA 5.8 s" (total 0: no
 * percentage or ETA); returns its length. */
size_t cli_progress_format(char *buf, size_t n, uint64_t done, uint64_t total, double elapsed,
                           int kernel, int nkernels);

/* Study helpers (cli_sweep.c, used by saturate and merge). */
struct study_table;
/* A sweep table as CSV or JSON to `out` (NULL: stdout), plus a gnuplot plot
 * of metrics ys[0..ny) when `plot` is set; rendered before anything is
 * written; `prov` goes into it and names the overrides in the plot's
 * title.  The exit status. */
struct cli_prov;
int cli_study_output(const struct study_table *t, const struct cli_prov *prov, int json,
                     const char *out, const char *plot, const char *const *ys, int ny);
/* merge: the table of a manifest and its job outputs, printed (cli_merge.c). */
int cli_merge_files(const char *manifest, const char *const *files, int nfiles, int json,
                    const char *out, const char *plot, const char *const *ys, int ny);

/* Provenance of an output (cli_prov.c, docs/json.md): the smsim that wrote
 * it, the configuration (its file and the FNV-1a 64 hash of the effective
 * configuration as `smsim config` prints it), every --set, the seed and the
 * trace.  Never a time, a host or a thread count. */
enum { CLI_PROV_SCHEMA = 1,      /* "schema": the version of every JSON/CSV shape */
       CLI_PROV_EXTRA = 4,       /* further inputs a subcommand names          */
       CLI_PROV_HASH_MAX = 32 }; /* "fnv1a64:" + 16 hex digits + NUL          */
struct cli_prov {
    const char *subcommand;          /* "run", "sweep", ...                        */
    const char *config;              /* the configuration file read, or NULL       */
    char config_hash[CLI_PROV_HASH_MAX]; /* cli_prov_hash() of it, or ""          */
    const struct arch_override *ov;  /* the --set overrides, in order              */
    int nov;                         /* their count                                */
    int has_seed;                    /* 1: the subcommand takes --seed             */
    uint64_t seed;                   /* --seed (or its default)                    */
    const char *trace;               /* the trace read, or NULL                    */
    const char *extra[CLI_PROV_EXTRA][2]; /* {key, value} of other inputs (--ncu ...) */
    int nextra;                      /* their count                                */
};
/* The version string: `git describe` when built (scripts/version.cmake). */
const char *cli_prov_version(void);
/* "fnv1a64:HEX" of arch_print_yaml(a); 0, or -1 out of memory. */
int cli_prov_hash(const struct arch *a, char out[CLI_PROV_HASH_MAX]);
/* From the parsed common options (c may be NULL) and the loaded
 * configuration (a may be NULL: no hash); 0, or -1 out of memory. */
int cli_prov_init(struct cli_prov *p, const char *subcommand, const struct cli_common *c,
                  const struct arch *a);
/* One more input, as "key": "value" (value NULL: null / no CSV line). */
void cli_prov_add(struct cli_prov *p, const char *key, const char *value);
/* Put the provenance into a rendered output *buf[0..*len) of `format`
 * (enum report_format): JSON gets "provenance" as its first member (the
 * document must open with "{\n"), CSV leading "# key: value" lines, text
 * nothing.  *buf is replaced (malloc'd); 0, or -1 out of memory. */
int cli_prov_apply(const struct cli_prov *p, int format, char **buf, size_t *len);
/* The overrides for a plot title, " [k=v, k=v]", or "" without any. */
void cli_prov_title(const struct cli_prov *p, char *buf, size_t n);

/* A byte count for option `opt` in [lo, hi] (lo >= 0): the trace format's
 * numbers, so 24K = 24576 and 1M = 1048576 (cli_size.c); 0, or -1 with
 * cli_parse_int()'s message. */
int cli_parse_size(const char *opt, const char *s, long lo, long hi, int *v);
/* --metrics: compile `pattern` (POSIX extended) into *re and check that it
 * selects a metric of `a` (cli_select.c); 0, or -1 after
 * "smsim: --metrics 'P': bad regular expression: WHY" or
 * "smsim: --metrics 'P' matches no metric smsim reports (docs/metrics.md)". */
int cli_metrics_regex(const char *pattern, const struct arch *a, regex_t *re);
/* --config NAME: the configuration file (cli_find.c).  NAME itself when it
 * exists; else, for a name without a directory or under configs/ (h100,
 * h100.yaml, configs/h100.yaml), NAME[.yaml] in the configurations
 * installed beside the binary (BIN/../share/smsim/configs), in the install
 * prefix's (SMSIM_CONFIG_DIR), then in the source tree's configs/
 * (SMSIM_SOURCE_CONFIGS, both fixed at build time).  The found path into
 * buf[n]; NAME unchanged when none exists (arch_load() then says why). */
const char *cli_find_config(const char *name, char *buf, size_t n);

#endif
