/* study_validate.h — validation against real measurements: every launch of a
 * manifest is simulated and compared with the row Nsight Compute measured
 * for it (`smsim validate`, docs/validation.md).
 *
 * The manifest (validate/traces/manifest.tsv) is a TAB-separated table with
 * a header row and the columns
 *     case  blocks_per_sm  trace  ncu_csv  ncu_id
 * one row per measured launch: the case (kernel variant) it belongs to, the
 * resident blocks per SM it was measured at, its trace, the ncu raw-page CSV
 * holding its measurement (paths relative to the directory smsim runs in,
 * the repository root) and the value of that row's "ID" column.
 *
 * Everything is a pure function of its inputs: the same manifest, data and
 * configuration give byte-identical reports whatever the number of jobs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_STUDY_VALIDATE_H
#define SMSIM_STUDY_VALIDATE_H

#include <stdint.h>
#include <stdio.h>
#include "arch/arch.h"
#include "study/study.h"

enum {
    VAL_NMETRICS = 5,        /* metrics compared point by point (val_metric_name) */
    VAL_TOP = 3,             /* measured top stall reasons compared per point     */
    VAL_MAX_REASONS = 32,    /* distinct stall reasons in one run                 */
    VAL_NOTE_MAX = 256,      /* one note per point                                */
    VAL_NHIT = 2             /* sector hit rates compared in percentage points    */
};

/* Hit rates differ from the metrics above: they are percentages that are
 * often 0, so a relative error means little.  They are compared as absolute
 * differences in percentage points (pp), smsim - ncu, and a launch counts as
 * within when |difference| <= VAL_HIT_WITHIN_PP. */
#define VAL_HIT_WITHIN_PP 10.0

/* The compared metrics, in report order: achieved occupancy, issue active,
 * eligible warps, warp cycles per issued instruction, elapsed cycles. */
const char *val_metric_name(int i);    /* ncu name, i in 0..VAL_NMETRICS-1 */
const char *val_metric_short(int i);   /* column heading: "occ%", "issue", ... */
/* The compared hit rates, in report order: L1/TEX, then L2 (ncu names
 * l1tex__t_sector_hit_rate.pct, lts__t_sector_hit_rate.pct). */
const char *val_hit_name(int i);       /* ncu name, i in 0..VAL_NHIT-1 */
const char *val_hit_short(int i);      /* column heading: "L1 hit %", "L2 hit %" */

/* Stall ratios: "smsp__average_warps_issue_stalled_" REASON "_per_issue_active.ratio". */
#define VAL_STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define VAL_STALL_SUFFIX "_per_issue_active.ratio"

/* One manifest row. */
struct val_case {
    char *name;              /* case (kernel variant), e.g. "ffma-ilp1" (owned) */
    int blocks_per_sm;       /* resident blocks per SM it was measured at       */
    char *trace;             /* trace path (owned)                              */
    char *ncu_csv;           /* ncu raw-page CSV path (owned)                   */
    char *ncu_id;            /* "ID" of its row in that CSV (owned)             */
    int line;                /* manifest line, for messages                     */
    int col_trace;           /* its columns of trace, ncu_csv and ncu_id        */
    int col_csv;             /* (1-based, for messages)                         */
    int col_id;              /*                                                 */
};

struct val_manifest {
    char *path;              /* the manifest's path (owned)                     */
    int n;                   /* rows                                            */
    struct val_case *c;      /* [n]                                             */
};

/* Read a manifest.  0, or -1 with "path:line:col: message" in err. */
int val_manifest_load(const char *path, struct val_manifest *m, char err[STUDY_ERR_MAX]);
void val_manifest_free(struct val_manifest *m);

/* What to run. */
struct val_opts {
    const char *config;                /* --config path                                 */
    const struct arch_override *ov;    /* --set overrides                               */
    int nov;                           /* their count                                   */
    const char *dir;                   /* only rows whose ncu_csv lies under this
                                          directory (NULL: every row)                   */
    const char *case_re;               /* POSIX extended regex over case names, or NULL */
    uint64_t max_insts;                /* skip points with more warp-instructions (0: none) */
    int jobs;                          /* points simulated in parallel (>= 1)           */
    int carveout_pct;                  /* engine_opts.carveout_pct (-1 = none)          */
    uint64_t seed;                     /* engine_opts.seed                              */
    int progress;                      /* progress bar on stderr                        */
};

/* A stall reason compared at one point. */
struct val_stall {
    char reason[48];         /* "long_scoreboard", ...                           */
    double meas;             /* measured ratio                                   */
    double pred;             /* predicted (0 for a reason smsim does not model)  */
};

/* One measured launch and its simulation. */
struct val_point {
    int mi;                  /* manifest row                                     */
    int skipped;             /* 1: above max_insts, not simulated                */
    int insts_exact;         /* 1: insts is exact, 0: a lower bound (skipped)    */
    uint64_t insts;          /* the trace's warp-instructions (tr_kernel_insts_total) */
    int cap;                 /* engine blocks-per-SM cap used (0: none needed)   */
    int occ_blocks;          /* blocks per SM the occupancy rules give the trace */
    double x;                /* resident warps per scheduler at this residency   */
    double meas[VAL_NMETRICS]; /* measured (NaN: not in the CSV)                 */
    double pred[VAL_NMETRICS]; /* predicted (NaN: skipped)                       */
    double hit_meas[VAL_NHIT]; /* measured hit rates, % (NaN: not in the CSV)    */
    double hit_pred[VAL_NHIT]; /* predicted, % (NaN: skipped)                    */
    int nstall;              /* entries in stall (<= VAL_TOP)                    */
    struct val_stall stall[VAL_TOP]; /* the measured top reasons, largest first  */
    char pred_top[VAL_TOP][48]; /* the predicted top reasons, largest first      */
    char note[VAL_NOTE_MAX]; /* "" or a remark (occupancy disagreement, cap)     */
};

/* Accuracy of one metric over n (measured, predicted) pairs. */
struct val_stat {
    int n;                   /* pairs with a defined error                       */
    int nzero;               /* pairs left out: measured 0, predicted not        */
    double mape;             /* mean |error %| (NaN when n == 0)                 */
    double max_err;          /* largest |error %| (NaN when n == 0)              */
    double pearson;          /* Pearson r of all pairs (NaN: < 2 or no variance) */
};

/* Agreement of one hit rate over the launches, in percentage points. */
struct val_hit_stat {
    int n;                   /* pairs compared (both values defined)             */
    int nmissing;            /* launches left out: the CSV lacks the metric      */
    double mean_abs_pp;      /* mean |smsim - ncu|, pp (NaN when n == 0)         */
    double max_abs_pp;       /* largest |smsim - ncu|, pp (NaN when n == 0)      */
    int within;              /* pairs with |smsim - ncu| <= VAL_HIT_WITHIN_PP    */
};

/* Saturation of one case's residency sweep. */
struct val_sat {
    int first;               /* index in points[] of the case's first point      */
    int npoints;             /* simulated points of the case                     */
    int partial;             /* 1: some of its points were skipped               */
    double meas;             /* measured saturation, warps per scheduler (NaN: n/a) */
    double pred;             /* predicted                                         */
};

struct val_result {
    char config_name[ARCH_NAME_MAX];   /* gpu.name                                  */
    int npoints;                       /* selected manifest rows                    */
    struct val_point *p;               /* [npoints], manifest order                 */
    int nskipped;                      /* of them skipped                           */
    struct val_stat metric[VAL_NMETRICS]; /* per compared metric                    */
    struct val_hit_stat hit[VAL_NHIT]; /* per compared hit rate                     */
    int nreasons;                      /* stall reasons that were in a top 3        */
    char reason[VAL_MAX_REASONS][48];  /* their names, in order of first appearance */
    struct val_stat reason_stat[VAL_MAX_REASONS]; /* over the points where measured top 3 */
    struct val_stat stalls;            /* every top-3 pair of every point           */
    int top1_agree;                    /* points whose predicted top reason = measured */
    int top1_n;                        /* points with a measured top reason         */
    int ncases;                        /* cases (in order of first appearance)      */
    struct val_sat *sat;               /* [ncases]                                  */
    double sat_max_abs_err;            /* max |pred - meas| over complete sweeps (NaN: none) */
};

/* Run the validation: load and check every selected row (files, CSV rows,
 * traces) before the first simulation, then simulate in parallel.  0, or -1
 * with a one-line message in err (the first failing row in manifest order). */
int val_run(const struct val_manifest *m, const struct val_opts *o, struct val_result *r,
            char err[STUDY_ERR_MAX]);
void val_result_free(struct val_result *r);

/* Error of a prediction, percent of the measured value:
 * 100 (pred - meas) / |meas|; 0 when both are 0; NaN when meas is 0 alone. */
double val_err_pct(double meas, double pred);
/* Accuracy statistics of n pairs (MAPE, max |error|, Pearson r by GSL). */
void val_stats(const double *meas, const double *pred, int n, struct val_stat *s);
/* Hit-rate agreement of n (measured, predicted) pairs in percentage points;
 * a pair with a NaN measurement counts as missing, one with a NaN prediction
 * is left out. */
void val_hit_stats(const double *meas, const double *pred, int n, struct val_hit_stat *s);
/* Saturation point of y(x) (x ascending): x of the first point reaching
 * threshold x the plateau (the highest y), as study_saturation() finds it;
 * NaN when n < 1 or the plateau is not positive. */
double val_sat_point(const double *x, const double *y, int n, double threshold);

/* Reports.  The manifest names the cases; `m` must be the one run. */
int val_write_text(FILE *f, const struct val_manifest *m, const struct val_result *r);
/* {"metrics": {NAME: {"mape_pct","max_err_pct","pearson_r","n"}}, "saturation":
 * {"max_abs_err_warps_per_scheduler", "cases": [...]}, "stalls_top3": {...},
 * "top_stall_agree", "hit_rates": {NAME: {"mean_abs_diff_pp", "max_abs_diff_pp",
 * "within_pp", "within", "n", "n_missing"}}, "config", "points", "skipped",
 * "cases": [...]};
 * each case's "measured" and "predicted" also hold the hit rates, and its
 * "diff_pp" their differences (smsim - ncu). */
int val_write_json(FILE *f, const struct val_manifest *m, const struct val_result *r);
/* gnuplot small multiples: per case, metric `metric` (a val_metric_name)
 * measured and predicted against warps per scheduler, into `out`; `note`
 * ends the title (the overrides, or ""). */
int val_write_gnuplot(FILE *f, const struct val_manifest *m, const struct val_result *r,
                      int metric, const char *out, const char *note);

/* Check thresholds from a TSV file (lines "METRIC<TAB>STAT<TAB>LIMIT"; METRIC
 * an ncu name of metrics, "stalls_top3", "saturation" or "ci"; STAT mape_pct
 * or max_err_pct (upper bounds), pearson_r (lower bound),
 * max_abs_err_warps_per_scheduler (upper bound, "saturation"), or anything
 * for "ci", which smsim ignores; for a hit rate (val_hit_name) STAT is
 * max_abs_diff_pp or mean_abs_diff_pp, upper bounds in percentage points).  Prints one line per failed threshold to
 * `f`.  Returns the number failed, or -1 with "path:line:col: message" in err. */
int val_check_thresholds(const char *path, const struct val_result *r, FILE *f,
                         char err[STUDY_ERR_MAX]);

#endif
