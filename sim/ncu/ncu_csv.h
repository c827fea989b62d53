/* ncu_csv.h — reader of Nsight Compute's CSV exports, the measurements smsim
 * is judged against (`smsim validate`, `smsim compare`).
 *
 * Two layouts are read into one table of launches x metrics:
 *  - raw page (`ncu --csv --page raw`): row 1 the column names (ID, Process
 *    ID, ..., Kernel Name, Block Size, Grid Size, ..., then one column per
 *    metric), row 2 the units, then one row per profiled launch;
 *  - details page (`ncu --csv --page details`): one row per metric with
 *    "Section Name", "Metric Name", "Metric Unit", "Metric Value" (and, on
 *    new versions, rule columns); rows with the same ID make one launch.
 *    Section labels ("Achieved Occupancy") become the metric names smsim
 *    reports ("sm__warps_active.avg.pct_of_peak_sustained_active").
 * Fields may be quoted ("" escapes a quote), numbers may carry thousands
 * separators ("1,126,284.62"), "n/a" and empty cells mean no value, and
 * ncu's own lines ("==PROF== ...", "==WARNING== ...") are skipped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_NCU_CSV_H
#define SMSIM_NCU_CSV_H

#include <stddef.h>

enum { NCU_ERR_MAX = 1024 };

/* A table of launches (rows) x columns, every cell as ncu wrote it. */
struct ncu_table {
    char *path;          /* file name used in messages (owned)                     */
    int details;         /* 1: read from the details page (long format)            */
    int ncols;           /* columns                                                */
    char **names;        /* [ncols] column names: "ID", ..., metric names (owned)  */
    char **units;        /* [ncols] units as written, "" when none (owned)         */
    int nrows;           /* launches                                               */
    int rowcap;          /* rows the cells/line/col arrays have room for            */
    char *text;          /* every cell's text, NUL-terminated, back to back (owned):
                            one block, not one allocation per cell             */
    size_t ntext;        /* bytes of text in use                                   */
    size_t captext;      /* bytes allocated                                        */
    size_t *cells;       /* [nrows * ncols] offset + 1 of the cell's text in text,
                            0 when absent (read it with ncu_cell)              */
    int *line;           /* [nrows * ncols] source line of each cell (1-based)     */
    int *col;            /* [nrows * ncols] source column of each cell (1-based)   */
};

/* Parse text[0..len) (`path` names it in messages).  0, or -1 with one line
 * "path:line:col: message" in err (table left empty). */
int ncu_csv_parse(const char *text, size_t len, const char *path, struct ncu_table *t,
                  char err[NCU_ERR_MAX]);
/* Read and parse a file.  0, or -1 with a one-line message. */
int ncu_csv_load(const char *path, struct ncu_table *t, char err[NCU_ERR_MAX]);
void ncu_table_free(struct ncu_table *t);

/* Column of `name` (exact), or -1. */
int ncu_col(const struct ncu_table *t, const char *name);
/* Row whose "ID" cell is `id`, or -1 (IDs are unique: a raw page with a
 * duplicate ID is refused by the parser). */
int ncu_row_by_id(const struct ncu_table *t, const char *id);
/* Cell text (NULL when absent); valid until the table is freed. */
const char *ncu_cell(const struct ncu_table *t, int row, int col);

/* A number in ncu's style: optional sign, digits with optional thousands
 * separators, optional fraction and exponent.  1 and *v, or 0 when it is not
 * one (empty, "n/a", text). */
int ncu_parse_number(const char *s, double *v);

/* Multiplier that turns a value in `unit` into ncu's base unit, and that
 * base unit's name ("Kbyte" -> 1000, "byte"; "usecond" -> 1000, "nsecond";
 * anything else -> 1, itself).  base must hold 64 bytes. */
double ncu_unit_scale(const char *unit, char base[64]);

/* 1 if ncu_value can scale a value in `unit` to its base unit: "", "%",
 * a time (ns/us/ms/s, nsecond...second), a count word (byte, cycle, inst,
 * hz, warp, thread, sector, ...) with an optional K/M/G/T prefix, then any
 * "/WORD" of an unprefixed count word, "%", "s" or "second".  0 otherwise. */
int ncu_unit_known(const char *unit);

/* Value of column `col` in row `row`, in base units.  0 and *v; 1 when the
 * cell is absent, empty or "n/a"; -1 when it is not a number, with
 * "path:line:col: NAME: 'TEXT' is not a number" in err, or its unit is not
 * one ncu_unit_known() accepts ("... NAME: unknown unit 'U' ..."). */
int ncu_value(const struct ncu_table *t, int row, int col, double *v, char err[NCU_ERR_MAX]);

/* Metric `name` of row `row`, as ncu computed it, at the best precision the
 * export allows.  ncu prints values rounded to 2 decimals, which is coarse
 * for small ratios (an issue rate printed 0.01 is anything in 0.005..0.015).
 * An average per active cycle is also exported summed over the units,
 *     X.avg.per_cycle_active = X.sum.per_cycle_active / units
 * (units = launch__sm_count for sm__ metrics, x schedulers per SM for smsp__
 * metrics), with ~units times more digits; that value is used when both
 * columns are present and it rounds to the printed average.  Returns like
 * ncu_value (1: no such column, or no value). */
int ncu_metric(const struct ncu_table *t, int row, const char *name, double *v,
               char err[NCU_ERR_MAX]);

#endif
