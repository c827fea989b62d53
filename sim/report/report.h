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
/* Part of that report, for a run that writes each kernel as soon as it is
 * simulated and frees its counters (a trace of 10,000 kernels): kernels
 * k[0..n) are kernels first..first+n-1 of the report; REPORT_HEAD adds what
 * comes before the first kernel (the CSV header rows from k[0], or from
 * empty counters when n is 0), REPORT_TAIL what comes after the last.  The
 * parts written in order give report_write()'s bytes exactly. */
enum { REPORT_HEAD = 1, REPORT_TAIL = 2 };
int report_write_part(FILE *f, int format, const char *config, const struct arch *a,
                      const struct report_kernel *k, int n, int first, int parts);
int report_text(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts);
int report_json(FILE *f, const char *config, const struct arch *a,
                const struct report_kernel *k, int n, int first, int parts);
int report_csv(FILE *f, const char *config, const struct arch *a,
               const struct report_kernel *k, int n, int first, int parts);

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

/* --timeline FILE: Chrome trace-event JSON (Perfetto, chrome://tracing). */
struct report_timeline_opts {
    uint64_t max_cycles;          /* record cycles [0, max_cycles) of the whole run */
    int max_sms;                  /* record SMs 0 .. max_sms-1                      */
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

#endif
