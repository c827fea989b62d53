/* report.h — what smsim prints: the ncu-like report of simulated kernels
 * (text, JSON, CSV) and two pictures of the warp states (--grid, --timeline).
 *
 * Every writer is a pure function of its inputs: the same stats give
 * byte-identical output.  Writers print to a FILE the caller owns, so the CLI
 * can render into memory and print only once everything has succeeded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_REPORT_H
#define SMSIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <regex.h>
#include "arch/arch.h"
#include "stats/stats.h"

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV };

/* One simulated kernel as the reports see it. */
struct report_kernel {
    int index;                    /* position of the kernel in the trace, 0-based */
    const struct stats_kernel *s; /* its counters                                 */
};

/* "text" | "json" | "csv" -> enum report_format, or -1. */
int report_parse_format(const char *name);

/* The report of n kernels simulated on `a`; `config` names the configuration
 * (printed in headers and as JSON "config").  Returns 0, -1 on a write error. */
int report_write(FILE *f, int format, const char *config, const struct arch *a,
                 const struct report_kernel *k, int n);
/* What a report shows; NULL everywhere below means everything. */
struct report_opts {
    const regex_t *metrics;       /* --metrics: only the metrics whose name matches */
    int no_units;                 /* --csv-units none: CSV without its units row    */
};
/* The metrics of s that o selects (stats_metrics() order) into m; their count. */
int report_metrics(const struct stats_kernel *s, const struct arch *a,
                   const struct report_opts *o, struct stats_metric m[STATS_METRICS_MAX]);
/* Part of that report, for a run that writes each kernel as soon as it is
 * simulated and frees its counters (a trace of 10,000 kernels): kernels
 * k[0..n) are kernels first..first+n-1 of the report; REPORT_HEAD adds what
 * comes before the first kernel (the CSV header rows from k[0], or from
 * empty counters when n is 0), REPORT_TAIL what comes after the last.  The
 * parts written in order give report_write()'s bytes exactly. */
enum { REPORT_HEAD = 1, REPORT_TAIL = 2 };
int report_write_part(FILE *f, int format, const char *config, const struct arch *a,
                      const struct report_kernel *k, int n, int first, int parts,
                      const struct report_opts *o);
int report_text(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts,
                const struct report_opts *o);
int report_json(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts,
                const struct report_opts *o);
int report_csv(FILE *f, const char *config, const struct arch *a,
               const struct report_kernel *k, int n, int first, int parts,
               const struct report_opts *o);

/* A CSV field (RFC 4180: in quotes, a quote doubled): always quoted when
 * `always` (ncu quotes every field), else only when s holds a comma, quote
 * or line break. */
void report_csv_string(FILE *f, const char *s, int always);

/* JSON helpers shared by the writers: a quoted, escaped string, and a number
 * that reads back to the same double (integers without a fraction; NaN and
 * infinities, which JSON lacks, as null). */
enum { REPORT_NUM_MAX = 40 };
void report_json_string(FILE *f, const char *s);
void report_json_number(FILE *f, double v);
/* The same number text into buf ("null" for NaN/inf); CSV uses it too. */
void report_format_number(char buf[REPORT_NUM_MAX], double v);

/* --grid N: per-cycle warp-state grid of SM 0's first N cycles. */
struct report_grid;
struct report_grid *report_grid_new(const struct arch *a, uint64_t cycles); /* NULL: no memory */
void report_grid_reset(struct report_grid *g);    /* forget states (next kernel) */
/* engine_observer.warp_state signature; only sm == 0 and cycles < N count. */
void report_grid_warp_state(struct report_grid *g, int sm, int smsp, int slot,
                            uint32_t block, uint32_t warp, uint64_t from,
                            uint64_t to, int state);
/* Print the grid and its legend, headed by `title`. */
void report_grid_print(const struct report_grid *g, const char *title, FILE *f);
void report_grid_free(struct report_grid *g);

/* --timeline FILE: Chrome trace-event JSON (Perfetto, chrome://tracing).
 * Times are integers in SM cycles (ts and dur), so no viewer's conversion to
 * its own clock can round neighbouring events into each other. */
struct report_timeline_opts {
    uint64_t from, to;            /* record cycles [from, to) of the whole run      */
    const int *sms;               /* record these SMs (ascending, distinct) ...     */
    int nsms;                     /* ... nsms of them; SMs the GPU lacks are dropped */
    size_t max_events;            /* stop recording after this many events          */
};
struct report_timeline;
struct report_timeline *report_timeline_new(const struct arch *a,
                                            const struct report_timeline_opts *o);
/* The cycle after which a kernel starting now needs no more warp states
 * (for engine_observer.until; >= 1). */
uint64_t report_timeline_until(const struct report_timeline *t);
void report_timeline_warp_state(struct report_timeline *t, int sm, int smsp, int slot,
                                uint32_t block, uint32_t warp, uint64_t from,
                                uint64_t to, int state);
void report_timeline_block_life(struct report_timeline *t, int sm, uint32_t block,
                                uint64_t from, uint64_t to);
/* A kernel ended after `cycles`: record its span; later kernels start after it. */
void report_timeline_end_kernel(struct report_timeline *t, const char *name,
                                uint64_t cycles);
/* Write the JSON document; `config` goes into its metadata.  0 or -1. */
int report_timeline_write(const struct report_timeline *t, const char *config, FILE *f);
void report_timeline_free(struct report_timeline *t);

/* --stall-profile BIN: warp-state cycles per bin of BIN cycles, summed over
 * every SM, per kernel; CSV and a stacked-area SVG (report_stallprof.c). */
struct report_stallprof;
struct report_stallprof *report_stallprof_new(const struct arch *a, uint64_t bin);
/* A warp held `state` over kernel cycles [from, to) (any SM, any order). */
void report_stallprof_warp_state(struct report_stallprof *p, uint64_t from, uint64_t to,
                                 int state);
/* The running kernel ended after `cycles`; 0, or -1 when out of memory. */
int report_stallprof_end_kernel(struct report_stallprof *p, const char *name, uint64_t cycles);
size_t report_stallprof_kernels(const struct report_stallprof *p);
/* Columns kernel, cycle_from, cycle_to, then one per state (stats_state_name). */
int report_stallprof_csv(const struct report_stallprof *p, FILE *f);
int report_stallprof_svg(const struct report_stallprof *p, const char *title, FILE *f);
void report_stallprof_free(struct report_stallprof *p);

/* --source-csv FILE: per-instruction counters, ncu Source page shape
 * (report_source.c). */
struct report_source_row {
    uint64_t key;                 /* pc, or line | 2^32 without one (sort order)    */
    int has_pc;                   /* pc is the instruction's address                */
    uint32_t pc;                  /* address in the kernel's code                   */
    uint32_t line;                /* trace line                                     */
    char opcode[24];              /* opcode with modifiers                          */
    uint64_t issued;              /* warp-instructions issued                       */
    uint64_t thread_inst;         /* their active lanes                             */
    uint64_t state[WS_COUNT];     /* warp-cycles waiting to issue it, per state
                                     (selected: one per issue)                      */
};
struct report_source;
struct report_source *report_source_new(void);
/* engine_observer.inst_issue / inst_state. */
void report_source_issue(struct report_source *s, const struct tr_inst *in, uint32_t mask);
void report_source_state(struct report_source *s, const struct tr_inst *in, int state,
                         uint64_t cycles);
/* The running kernel ended; 0, or -1 when out of memory. */
int report_source_end_kernel(struct report_source *s, const char *name);
size_t report_source_kernels(const struct report_source *s);
/* Kernel k's rows, sorted by key; *n of them. */
const struct report_source_row *report_source_rows(const struct report_source *s, size_t kernel,
                                                   size_t *n);
/* ncu's stall columns: how many, and column i's name with the state it
 * counts in *ws (-1: a reason smsim does not model). */
int report_source_columns(void);
const char *report_source_column(int i, int *ws);
/* Per kernel: a "Kernel Name" line, the header, one row per instruction. */
int report_source_csv(const struct report_source *s, FILE *f);
void report_source_free(struct report_source *s);

#endif
