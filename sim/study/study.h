/* study.h — what-if studies over many simulations: parameter sweeps (the grid
 * product of several varied keys), their tables (CSV, JSON, gnuplot), the
 * job manifest of a distributed sweep, and latency-hiding analysis
 * (saturation point, curve fits, Little's law).  docs/studies.md describes
 * the user-facing side.
 *
 * Every function is a pure function of its inputs: a table is a value, and
 * the same inputs give byte-identical output whatever the number of jobs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_STUDY_H
#define SMSIM_STUDY_H

#include <stdint.h>
#include <stdio.h>
#include "arch/arch.h"
#include "trace/trace.h"

enum {
    STUDY_ERR_MAX = 1024,        /* one-line error messages                         */
    STUDY_MAX_VARS = 8,          /* --vary options per sweep                         */
    STUDY_MAX_POINTS = 100000    /* grid points per sweep (a typo guard)            */
};

/* What a varied key changes. */
enum study_key_kind {
    SK_CONFIG,         /* any configuration key "section.key" (like --set)           */
    SK_THREADS,        /* launch.threads: block x of the traced launch               */
    SK_REGS,           /* launch.regs: registers per thread                          */
    SK_SMEM_DYNAMIC,   /* launch.smem_dynamic: dynamic shared memory per block       */
    SK_BLOCKS_PER_SM   /* launch.blocks_per_sm: engine_opts.blocks_per_sm_cap        */
};

/* One --vary key with its values, in the order given. */
struct study_var {
    char *key;         /* "section.key" or "launch.*" (owned)                        */
    int kind;          /* enum study_key_kind                                        */
    int nvalues;       /* entries in values (>= 1)                                   */
    char **values;     /* value texts as they go into --set (owned)                  */
};

/* Parse "key=a:b:step" (inclusive numeric range; integers if a, b and step
 * are, else decimals) or "key=v1,v2,...".  0, or -1 with a one-line message
 * "smsim: --vary 'TEXT': ..." in err. */
int study_parse_vary(const char *text, struct study_var *v, char err[STUDY_ERR_MAX]);
void study_var_free(struct study_var *v);

/* Points of the grid product, or -1 when more than STUDY_MAX_POINTS.  Point
 * numbering is row-major: the first --vary is the outermost loop. */
long study_npoints(const struct study_var *vars, int nvars);
/* Value index of each var at point p (idx[nvars]). */
void study_point_index(const struct study_var *vars, int nvars, long p, int *idx);

/* The instruction limit (--max-insts) of every subcommand that simulates:
 * a kernel of more than STUDY_MAX_INSTS warp-instructions (about 1.5 hours
 * at 20 M/s on one core) is refused before it runs, unless --max-insts is
 * given (0: no limit) or --max-cycles bounds the run instead. */
#define STUDY_MAX_INSTS UINT64_C(100000000000)
/* The limit: `value` when --max-insts was given, else 0 (none) when
 * max_cycles is set, else STUDY_MAX_INSTS. */
uint64_t study_insts_limit(int given, uint64_t value, uint64_t max_cycles);
/* 0 when kernel k is within `limit` (tr_kernel_insts_total; 0: none), else
 * -1 with "kernel 'NAME' executes [at least ]N warp-instructions, more
 * than LIMIT (give --max-insts N, 0 for no limit, or --max-cycles N)" in
 * err[n] (N exact, or a lower bound already above the limit). */
int study_insts_check(struct trace_kernel *k, uint64_t limit, char *err, size_t n);

/* A sweep: everything a point's simulation depends on. */
struct study_plan {
    const char *config;                /* --config path                              */
    const char *trace;                 /* trace path                                 */
    int kernel;                        /* kernel index in the trace                  */
    const struct arch_override *base;  /* base --set overrides (applied first)       */
    int nbase;                         /* their count                                */
    const struct study_var *vars;      /* varied keys                                */
    int nvars;                         /* their count                                */
    uint64_t seed;                     /* engine_opts.seed                           */
    int carveout_pct;                  /* engine_opts.carveout_pct (-1 = none)       */
    uint64_t max_cycles;               /* engine_opts.max_cycles (0 = unlimited)     */
    uint64_t max_insts;                /* study_insts_check limit per point (0: none) */
    struct trace_file *tf;             /* the trace, opened once by the caller (a pipe
                                          can be read only once), or NULL: opened here */
};

/* A table of results: one row per point, the varied values then metrics.
 * Sweeps fill it by simulating, merge fills it from job outputs. */
struct study_table {
    char config_name[ARCH_NAME_MAX];   /* gpu.name of the base configuration         */
    char kernel_name[512];             /* the simulated kernel's name (tr_launch's)  */
    int nvars;                         /* varied keys                                */
    char **keys;                       /* [nvars] key names (owned)                  */
    long npoints;                      /* rows                                       */
    char **vals;                       /* [npoints * nvars] value texts (owned)      */
    int nmetrics;                      /* metric columns                             */
    char **metrics;                    /* [nmetrics] ncu metric names (owned)        */
    double *m;                         /* [npoints * nmetrics] values (NaN = null)   */
};

/* Allocate an empty table (values NaN).  0 or -1 (no memory). */
int study_table_init(struct study_table *t, int nvars, long npoints, int nmetrics);
void study_table_free(struct study_table *t);
/* Column of metric `name`, or -1. */
int study_table_metric(const struct study_table *t, const char *name);

/* The configuration and launch of point p, validated: arch_load with the
 * base overrides then the point's config keys, the launch overrides applied
 * to `traced`, and the occupancy rules must place >= 1 block.  0, or -1 with
 * "smsim: sweep point P (k=v, ...): MESSAGE" in err. */
struct study_point {
    struct arch a;                     /* configuration of the point                 */
    struct tr_launch launch;           /* launch after launch.* overrides            */
    int blocks_per_sm_cap;             /* launch.blocks_per_sm, 0 = none             */
};
int study_point_prepare(const struct study_plan *p, const struct tr_launch *traced,
                        long point, struct study_point *out, char err[STUDY_ERR_MAX]);

/* "k1=v1, k2=v2" of point p, for messages. */
void study_point_label(const struct study_var *vars, int nvars, long point, char *buf,
                       size_t n);

/* Simulate every point with `jobs` threads (each opens the trace once) and
 * fill *t (metric columns: every metric stats_metrics() derives, in its
 * order).  progress: draw a progress bar on stderr.  Every point is
 * validated before the first simulation.  0, or -1 with a one-line message
 * in err (the lowest-numbered failing point, whatever `jobs`). */
int study_run(const struct study_plan *p, int jobs, int progress, struct study_table *t,
              char err[STUDY_ERR_MAX]);

/* Writers.  CSV: a header row (varied keys, then metric names), one row per
 * point; numbers read back to the same double; null (NaN, +-inf) is an empty
 * field.  JSON: {"config","kernel","vary":[keys],"points":[{"point","vary":{},
 * "metrics":{}}]}.  0, or -1 on a write error. */
int study_write_csv(FILE *f, const struct study_table *t);
int study_write_json(FILE *f, const struct study_table *t);

/* The progress bar on stderr: "\rWHAT [####....] DONE/TOTAL", a newline
 * when done == total. */
void study_progress(const char *what, long done, long total);
/* A gnuplot single-quoted string ('' is a quote; line breaks dropped). */
void study_gp_string(FILE *f, const char *s);
/* A gnuplot script that draws metrics ys[0..ny) against the first varied key
 * (one line per combination of the other keys) into `out` (.svg or .png).
 * The data is inlined, so the script stands alone.  0 or -1. */
int study_write_gnuplot(FILE *f, const struct study_table *t, const char *out,
                        const char *title, const char *const *ys, int ny);
/* Run gnuplot on a script held in memory.  0, or -1 with a one-line message
 * ("gnuplot not found ..." when it is not installed). */
int study_run_gnuplot(const char *script, size_t len, char err[STUDY_ERR_MAX]);

/* Minimal JSON tree (for merge: reading job outputs and manifests). */
enum study_json_type { SJ_NULL, SJ_BOOL, SJ_NUMBER, SJ_STRING, SJ_ARRAY, SJ_OBJECT };
struct study_json {
    int type;                          /* enum study_json_type                       */
    double num;                        /* SJ_NUMBER / SJ_BOOL value                  */
    char *str;                         /* SJ_STRING text; number text for SJ_NUMBER  */
    int n;                             /* children (array items / object members)    */
    char **keys;                       /* [n] member names (objects)                 */
    struct study_json *kids;           /* [n] children                               */
};
/* Parse a JSON file.  0, or -1 with "file:line:col: message" in err. */
int study_json_load(const char *path, struct study_json *out, char err[STUDY_ERR_MAX]);
void study_json_free(struct study_json *j);
/* Member `key` of an object, or NULL. */
const struct study_json *study_json_get(const struct study_json *j, const char *key);

/* Saturation of a throughput curve y(x) (x ascending, n >= 1). */
struct study_sat {
    double plateau;        /* highest simulated y                                       */
    int peak;              /* index of the highest y (first one)                        */
    int sat;               /* smallest index with y >= threshold * plateau              */
    int decline;           /* 1: y falls after the peak by more than tol * plateau      */
    double drop;           /* (plateau - last y) / plateau                              */
    int roof_ok;           /* roofline fit converged                                    */
    double roof_a;         /* y = min(a x, p): slope                                    */
    double roof_p;         /* plateau                                                   */
    double roof_knee;      /* p / a: where the two lines meet                           */
    double roof_rms;       /* RMS residual                                              */
    int mm_ok;             /* saturating fit converged                                  */
    double mm_p;           /* y = p x / (x + k): asymptote                              */
    double mm_k;           /* half-saturation x                                         */
    double mm_rms;         /* RMS residual                                              */
    double mm_x_at;        /* x where the saturating fit reaches threshold * p          */
};
/* 0, or -1 when n < 1. */
int study_saturation(const double *x, const double *y, int n, double threshold,
                     double tol, struct study_sat *out);

/* A grid in waves of blocks_per_sm x sms blocks (study_waves.c). */
struct study_waves {
    double waves;          /* grid / (blocks_per_sm x sms): launch__waves_per_multiprocessor */
    uint64_t full;         /* whole waves                                              */
    uint64_t last_blocks;  /* blocks of the last, partial wave (0: none)               */
    int partial;           /* 1: the grid is not a whole number of waves               */
    double last_fill;      /* last wave's blocks / slots (1 when no wave is partial)   */
};
/* 0, or -1 (all zero) when blocks_per_sm or sms is below 1. */
int study_waves(uint64_t grid, int blocks_per_sm, int sms, struct study_waves *w);

/* Classes of latency a lone warp waits for (Little's-law estimator). */
enum study_lat_class {
    SL_FMA, SL_ALU, SL_FP64, SL_MUFU, SL_TENSOR, SL_LSU, SL_CBU, /* pipe results (= PIPE_*) */
    SL_SHARED,   /* shared memory (LDS ...)        */
    SL_CONST,    /* constant loads                 */
    SL_L1,       /* global/local load, L1 hit      */
    SL_L2,       /* global/local load, L2 hit      */
    SL_DRAM,     /* global/local load, DRAM        */
    SL_BRANCH,   /* taken-branch refetch           */
    SL_COUNT
};
const char *study_lat_class_name(int c);   /* "FMA pipe", "DRAM", ... */

/* A lone warp's stream (warp 0 of block 0) walked in order against the
 * arch's unloaded latencies: issue at most one instruction per cycle, each
 * when its sources are ready and its pipe is free. */
struct study_little {
    uint64_t insts;                   /* instructions walked                           */
    uint64_t cycles;                  /* cycles the lone warp takes for them           */
    uint64_t stall[SL_COUNT];         /* cycles waited on each class                   */
    uint64_t edges[SL_COUNT];         /* dependencies on a producer of each class      */
    double latsum[SL_COUNT];          /* their producers' latencies, summed            */
    int dominant;                     /* class waited on most (else most latency)      */
    double latency;                   /* mean latency of the dominant class, cycles    */
    double indep;                     /* instructions a lone warp issues per `latency` */
};
/* Walk at most max_insts instructions.  0, or -1 with a message in err. */
int study_little_walk(const struct arch *a, struct trace_kernel *k, uint64_t max_insts,
                      struct study_little *out, char err[STUDY_ERR_MAX]);
/* Warps per scheduler Little's law needs for a per-scheduler issue rate
 * `rate` (inst/cycle): latency x rate / indep (= cycles x rate / insts). */
double study_little_warps(const struct study_little *l, double rate);

#endif
