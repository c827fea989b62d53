/* ncu_csv.c — Nsight Compute CSV exports (raw and details pages) into one
 * table of launches x metrics.  ncu_csv.h describes both layouts.
 *
 * The CSV dialect is ncu's: comma separated, every field usually quoted with
 * '"' ("" inside a quoted field is one quote), CRLF or LF line ends; a
 * quoted field may span lines.  Unquoted fields are accepted too (a table
 * edited by hand).  Lines ncu prints around the table ("==PROF== ...",
 * "==WARNING== ...") are skipped wherever they appear.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "ncu/ncu_csv.h"

/* --- one CSV record ------------------------------------------------------ */

struct field {
    char *text;        /* unquoted text (owned)           */
    int col;           /* 1-based source column           */
};

struct record {
    struct field *f;   /* fields                          */
    int n;             /* in use                          */
    int cap;           /* allocated                       */
    int line;          /* source line of the record start */
};

struct lexer {
    const char *s;     /* text                            */
    size_t len;        /* its length                      */
    size_t at;         /* read position                   */
    int line;          /* line of `at` (1-based)          */
    size_t bol;        /* offset of that line's start     */
    const char *path;  /* for messages                    */
};

static void record_clear(struct record *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i].text);
    r->n = 0;
}

static int record_push(struct record *r, char *text, int col)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        struct field *g = realloc(r->f, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        r->f = g;
        r->cap = cap;
    }
    r->f[r->n].text = text;
    r->f[r->n].col = col;
    r->n++;
    return 0;
}

/* Does the line at lx->at start with "==" (ncu's own messages)? */
static int at_noise(const struct lexer *lx)
{
    return lx->at + 1 < lx->len && lx->s[lx->at] == '=' && lx->s[lx->at + 1] == '=';
}

static void skip_line(struct lexer *lx)
{
    while (lx->at < lx->len && lx->s[lx->at] != '\n')
        lx->at++;
    if (lx->at < lx->len) {
        lx->at++;
        lx->line++;
        lx->bol = lx->at;
    }
}

/* Is the line at lx->at blank (only spaces/CR)? */
static int at_blank(const struct lexer *lx)
{
    size_t i = lx->at;
    while (i < lx->len && (lx->s[i] == ' ' || lx->s[i] == '\t' || lx->s[i] == '\r'))
        i++;
    return i >= lx->len || lx->s[i] == '\n';
}

/* Read the next record (skipping noise and blank lines).  1 with a record,
 * 0 at the end, -1 with a message in err. */
/* Append c to the field being read (room is kept for the NUL); 0, or -1
 * out of memory (the buffer freed). */
static int field_put(char **buf, size_t *n, size_t *cap, char c)
{
    if (*n + 2 > *cap) {
        char *g = realloc(*buf, *cap * 2);
        if (!g) {
            free(*buf);
            *buf = NULL;
            return -1;
        }
        *buf = g;
        *cap *= 2;
    }
    (*buf)[(*n)++] = c;
    return 0;
}

static int next_record(struct lexer *lx, struct record *r, char err[NCU_ERR_MAX])
{
    record_clear(r);
    while (lx->at < lx->len && (at_noise(lx) || at_blank(lx)))
        skip_line(lx);
    if (lx->at >= lx->len)
        return 0;
    r->line = lx->line;
    size_t buf_cap = 64;
    for (;;) {
        int col = (int)(lx->at - lx->bol) + 1;
        int fline = lx->line;
        size_t n = 0;
        buf_cap = 64;
        char *buf = malloc(buf_cap);
        if (!buf)
            goto nomem;
        if (lx->at < lx->len && lx->s[lx->at] == '"') {
            lx->at++;
            for (;;) {
                if (lx->at >= lx->len) {
                    free(buf);
                    snprintf(err, NCU_ERR_MAX,
                             "%s:%d:%d: unterminated quoted field (no closing '\"')", lx->path,
                             fline, col);
                    return -1;
                }
                char c = lx->s[lx->at++];
                if (c == '"') {
                    if (lx->at < lx->len && lx->s[lx->at] == '"') {
                        lx->at++;
                    } else {
                        break;
                    }
                } else if (c == '\n') {
                    lx->line++;
                    lx->bol = lx->at;
                }
                if (field_put(&buf, &n, &buf_cap, c))
                    goto nomem;
            }
            /* after the closing quote: a separator, a line end or the end */
            if (lx->at < lx->len && lx->s[lx->at] == '\r')
                lx->at++;
            if (lx->at < lx->len && lx->s[lx->at] != ',' && lx->s[lx->at] != '\n') {
                free(buf);
                /* a NUL byte would end the message: written as the escape shows it */
                char c[5] = { lx->s[lx->at], '\0' };
                if (!c[0])
                    memcpy(c, "\\x00", 5);
                snprintf(err, NCU_ERR_MAX,
                         "%s:%d:%d: unexpected '%s' after a quoted field (expected ',' or the "
                         "end of the line)",
                         lx->path, lx->line, (int)(lx->at - lx->bol) + 1, c);
                return -1;
            }
        } else {
            while (lx->at < lx->len && lx->s[lx->at] != ',' && lx->s[lx->at] != '\n') {
                char c = lx->s[lx->at];
                if (c == '"') {
                    free(buf);
                    snprintf(err, NCU_ERR_MAX,
                             "%s:%d:%d: stray '\"' inside an unquoted field", lx->path,
                             lx->line, (int)(lx->at - lx->bol) + 1);
                    return -1;
                }
                lx->at++;
                if (c == '\r' && (lx->at >= lx->len || lx->s[lx->at] == '\n'))
                    continue;
                if (field_put(&buf, &n, &buf_cap, c))
                    goto nomem;
            }
        }
        buf[n] = '\0';
        if (record_push(r, buf, col)) {
            free(buf);
            goto nomem;
        }
        if (lx->at < lx->len && lx->s[lx->at] == ',') {
            lx->at++;
            continue;
        }
        if (lx->at < lx->len) { /* '\n' */
            lx->at++;
            lx->line++;
            lx->bol = lx->at;
        }
        return 1;
    }
nomem:
    snprintf(err, NCU_ERR_MAX, "%s: out of memory", lx->path);
    return -1;
}

/* --- numbers and units --------------------------------------------------- */

int ncu_parse_number(const char *s, double *v)
{
    char buf[128];
    size_t n = 0;
    if (strlen(s) >= sizeof buf - 8)
        return 0; /* no number ncu prints is this long */
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p == '+' || *p == '-')
        buf[n++] = *p++;
    int digits = 0;
    /* integer part: digits, with ',' only between groups of three */
    int group = -1; /* digits since the last ',' (-1: no ',' seen) */
    while (isdigit((unsigned char)*p) || (*p == ',' && digits)) {
        if (*p == ',') {
            if (group != -1 && group != 3)
                return 0;
            if (group == -1 && digits > 3)
                return 0;
            group = 0;
            p++;
            continue;
        }
        if (n + 1 >= sizeof buf)
            return 0;
        buf[n++] = *p++;
        digits++;
        if (group >= 0)
            group++;
    }
    if (group != -1 && group != 3)
        return 0;
    if (*p == '.') {
        buf[n++] = *p++;
        while (isdigit((unsigned char)*p)) {
            if (n + 1 >= sizeof buf)
                return 0;
            buf[n++] = *p++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        buf[n++] = *p++;
        if (*p == '+' || *p == '-')
            buf[n++] = *p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p)) {
            if (n + 1 >= sizeof buf)
                return 0;
            buf[n++] = *p++;
        }
    }
    while (*p == ' ')
        p++;
    if (*p)
        return 0;
    buf[n] = '\0';
    errno = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || !isfinite(x))
        return 0;
    *v = x;
    return 1;
}

double ncu_unit_scale(const char *unit, char base[64])
{
    static const struct { const char *name; double f; } times[] = {
        { "ns", 1 }, { "nsecond", 1 }, { "us", 1e3 }, { "usecond", 1e3 },
        { "ms", 1e6 }, { "msecond", 1e6 }, { "s", 1e9 }, { "second", 1e9 },
    };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (!strcmp(unit, times[i].name)) {
            snprintf(base, 64, "nsecond");
            return times[i].f;
        }
    /* SI prefixes ncu puts on countable units: Kbyte, Mbyte/s, Ghz, ... */
    static const char *const words[] = { "byte", "cycle", "inst", "hz", "warp", "thread",
                                         "sector", "request", "block", "register" };
    static const struct { char c; double f; } pre[] = {
        { 'K', 1e3 }, { 'M', 1e6 }, { 'G', 1e9 }, { 'T', 1e12 }
    };
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        if (unit[0] != pre[i].c)
            continue;
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t l = strlen(words[w]);
            if (!strncmp(unit + 1, words[w], l) && (unit[1 + l] == '\0' || unit[1 + l] == '/')) {
                snprintf(base, 64, "%s", unit + 1);
                return pre[i].f;
            }
        }
    }
    snprintf(base, 64, "%s", unit);
    return 1.0;
}

/* Copy s for a message, at most 80 bytes.  A quoted CSV field may hold line
 * breaks or terminal escapes, and an error is one line: every message leaves
 * this file through arch_msg_escape(), which shows them as \xHH. */
static void msg_text(char *out, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n && i < 80; i++)
        out[i] = s[i];
    out[i] = '\0';
}

/* Is w one of the count words of ncu's units, or its plural? */
static int unit_word(const char *w, size_t n)
{
    static const char *const words[] = { "byte", "cycle", "inst", "hz", "warp", "thread",
                                         "sector", "request", "block", "register", "pass",
                                         "branch", "branche", "SM", "cluster", "instruction",
                                         "wavefront", "transaction", "eligible", "issue" };
    if (n > 1 && w[n - 1] == 's')
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i]) == n - 1 && !strncmp(w, words[i], n - 1))
                return 1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && !strncmp(w, words[i], n))
            return 1;
    return 0;
}

int ncu_unit_known(const char *unit)
{
    /* numerator: "", "%", a time unit, or a count word with an optional
     * K/M/G/T prefix (what ncu_unit_scale scales); then "/WORD" terms, each
     * an unprefixed count word, "%", "s" or "second" (ncu's bases: a
     * "cycle/usecond" would be read 1000 times too large) */
    char base[64];
    if (!*unit)
        return 1;
    const char *slash = strchr(unit, '/');
    size_t n = slash ? (size_t)(slash - unit) : strlen(unit);
    if (ncu_unit_scale(unit, base) == 1.0) {
        static const char *const ones[] = { "%", "ns", "nsecond" };
        int ok = unit_word(unit, n);
        for (size_t i = 0; !ok && i < sizeof ones / sizeof ones[0]; i++)
            ok = strlen(ones[i]) == n && !strncmp(unit, ones[i], n);
        if (!ok)
            return 0;
    } else if (slash && (!strncmp(unit, "us", 2) || !strncmp(unit, "ms", 2) ||
                         unit[0] == 's')) {
        return 0; /* a scaled time with a denominator: not one of ncu's */
    }
    while (slash) {
        const char *w = slash + 1;
        slash = strchr(w, '/');
        n = slash ? (size_t)(slash - w) : strlen(w);
        if (!(unit_word(w, n) || (n == 1 && (*w == 's' || *w == '%')) ||
              (n == 6 && !strncmp(w, "second", 6))))
            return 0;
    }
    return 1;
}

/* --- the table ----------------------------------------------------------- */

void ncu_table_free(struct ncu_table *t)
{
    for (int i = 0; i < t->ncols; i++) {
        if (t->names)
            free(t->names[i]);
        if (t->units)
            free(t->units[i]);
    }
    free(t->text);
    free(t->names);
    free(t->units);
    free(t->cells);
    free(t->line);
    free(t->col);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int ncu_col(const struct ncu_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcmp(t->names[i], name))
            return i;
    return -1;
}

const char *ncu_cell(const struct ncu_table *t, int row, int col)
{
    if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
        return NULL;
    size_t at = t->cells[(long)row * t->ncols + col];
    return at ? t->text + at - 1 : NULL;
}

int ncu_row_by_id(const struct ncu_table *t, const char *id)
{
    int c = ncu_col(t, "ID");
    if (c < 0)
        return -1;
    for (int r = 0; r < t->nrows; r++) {
        const char *s = ncu_cell(t, r, c);
        if (s && !strcmp(s, id))
            return r;
    }
    return -1;
}

/* Grow the row storage to hold `rows` rows of the current width. */
static int grow_rows(struct ncu_table *t, int rows)
{
    /* capacity doubles: one realloc per row copied the table each time,
     * quadratic in the rows wherever realloc copies (a sanitizer build) */
    if (rows > t->rowcap) {
        int cap = t->rowcap > 8 ? t->rowcap : 8;
        while (cap < rows)
            cap = cap > INT32_MAX / 2 ? rows : cap * 2;
        size_t n = (size_t)cap * (size_t)t->ncols;
        size_t *c = realloc(t->cells, (n + 1) * sizeof *c);
        if (!c)
            return -1;
        t->cells = c;
        int *l = realloc(t->line, (n + 1) * sizeof *l);
        if (!l)
            return -1;
        t->line = l;
        int *k = realloc(t->col, (n + 1) * sizeof *k);
        if (!k)
            return -1;
        t->col = k;
        for (size_t i = (size_t)t->rowcap * (size_t)t->ncols; i < n; i++) {
            t->cells[i] = 0;
            t->line[i] = 0;
            t->col[i] = 0;
        }
        t->rowcap = cap;
    }
    t->nrows = rows;
    return 0;
}

/* Add a column (details page): widen every row.  Its index, or -1. */
static int add_col(struct ncu_table *t, const char *name, const char *unit)
{
    int nc = t->ncols + 1;
    char **names = realloc(t->names, (size_t)nc * sizeof *names);
    if (!names)
        return -1;
    t->names = names;
    char **units = realloc(t->units, (size_t)nc * sizeof *units);
    if (!units)
        return -1;
    t->units = units;
    size_t n = (size_t)t->nrows * (size_t)nc;
    size_t *cells = malloc((n + 1) * sizeof *cells);
    int *line = malloc((n + 1) * sizeof *line);
    int *col = malloc((n + 1) * sizeof *col);
    char *nm = strdup(name), *un = strdup(unit);
    if (!cells || !line || !col || !nm || !un) {
        free(cells);
        free(line);
        free(col);
        free(nm);
        free(un);
        return -1;
    }
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            cells[(size_t)r * nc + c] = t->cells[(size_t)r * t->ncols + c];
            line[(size_t)r * nc + c] = t->line[(size_t)r * t->ncols + c];
            col[(size_t)r * nc + c] = t->col[(size_t)r * t->ncols + c];
        }
        cells[(size_t)r * nc + t->ncols] = 0;
        line[(size_t)r * nc + t->ncols] = 0;
        col[(size_t)r * nc + t->ncols] = 0;
    }
    free(t->cells);
    free(t->line);
    free(t->col);
    t->cells = cells;
    t->line = line;
    t->col = col;
    t->names[t->ncols] = nm;
    t->units[t->ncols] = un;
    t->ncols = nc;
    t->rowcap = t->nrows; /* the arrays hold exactly the rows now */
    return nc - 1;
}

/* Details-page labels of the metrics smsim reports (docs/metrics.md), so a
 * details export compares under the same names as a raw one. */
static const struct { const char *label; const char *metric; } labels[] = {
    { "Grid Size", "launch__grid_size" },
    { "Block Size", "launch__block_size" },
    { "Threads", "launch__thread_count" },
    { "# SMs", "launch__sm_count" },
    { "Registers Per Thread", "launch__registers_per_thread" },
    { "Static Shared Memory Per Block", "launch__shared_mem_per_block_static" },
    { "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic" },
    { "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver" },
    { "Shared Memory Configuration Size", "launch__shared_mem_config_size" },
    { "Waves Per SM", "launch__waves_per_multiprocessor" },
    { "Block Limit SM", "launch__occupancy_limit_blocks" },
    { "Block Limit Registers", "launch__occupancy_limit_registers" },
    { "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem" },
    { "Block Limit Warps", "launch__occupancy_limit_warps" },
    { "Block Limit Barriers", "launch__occupancy_limit_barriers" },
    { "Theoretical Active Warps per SM", "sm__maximum_warps_avg_per_active_cycle" },
    { "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct" },
    { "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active" },
    { "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active" },
    { "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active" },
    { "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active" },
    { "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active" },
    { "One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active" },
    { "No Eligible", "smsp__issue_inst0.avg.pct_of_peak_sustained_active" },
    { "Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio" },
    { "Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio" },
    { "Elapsed Cycles", "sm__cycles_elapsed.avg" },
    { "SM Active Cycles", "sm__cycles_active.avg" },
    { "Duration", "gpu__time_duration.sum" },
    { "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active" },
    { "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed" },
    { "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct" },
    { "L2 Hit Rate", "lts__t_sector_hit_rate.pct" },
    { "DRAM Throughput", "dram__bytes.sum.pct_of_peak_sustained_elapsed" },
};

static const char *label_metric(const char *label)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (!strcmp(labels[i].label, label))
            return labels[i].metric;
    return label;
}

static int find_field(const struct record *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].text, name))
            return i;
    return -1;
}

/* Copy field i's text into cell (row, col): appended to the table's text
 * block (a cell set again keeps its old bytes unused: the details page sets
 * each cell at most once, so nothing accumulates).  0, or -1 out of memory. */
static int put_cell(struct ncu_table *t, int row, int col, const struct record *r, int i)
{
    size_t k = (size_t)row * t->ncols + col;
    size_t n = strlen(r->f[i].text) + 1;
    if (t->ntext + n > t->captext) {
        size_t cap = t->captext ? t->captext : 1 << 16;
        while (cap < t->ntext + n)
            cap *= 2;
        char *g = realloc(t->text, cap);
        if (!g)
            return -1;
        t->text = g;
        t->captext = cap;
    }
    memcpy(t->text + t->ntext, r->f[i].text, n);
    t->cells[k] = t->ntext + 1;
    t->ntext += n;
    t->line[k] = r->line;
    t->col[k] = r->f[i].col;
    return 0;
}

/* A name or ID with where it was, for duplicate checks by sorting (a
 * 200k-row export makes a quadratic search slow). */
struct key {
    const char *s; /* the text                      */
    int line, col; /* where it is                   */
    int order;     /* position, to report the later */
};

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Sort keys[0..n) and return the index of the later of the first duplicate
 * pair (in file order), or -1; *first gets the earlier one. */
static int find_dup(struct key *keys, int n, int *first)
{
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);
    int best = -1;
    for (int i = 1; i < n; i++)
        if (!strcmp(keys[i].s, keys[i - 1].s) && (best < 0 || keys[i].order < keys[best].order)) {
            best = i;
            *first = i - 1;
        }
    return best;
}

/* Column names must be unique: with two "X" columns, which one a metric
 * lookup found would be a guess. */
static int check_dup_cols(struct lexer *lx, const struct record *r, char err[NCU_ERR_MAX])
{
    struct key *keys = malloc((size_t)r->n * sizeof *keys + 1);
    if (!keys) {
        snprintf(err, NCU_ERR_MAX, "%s: out of memory", lx->path);
        return -1;
    }
    for (int i = 0; i < r->n; i++)
        keys[i] = (struct key){ r->f[i].text, r->line, r->f[i].col, i };
    int first, d = find_dup(keys, r->n, &first);
    if (d >= 0) {
        char name[96];
        msg_text(name, sizeof name, keys[d].s);
        snprintf(err, NCU_ERR_MAX, "%s:%d:%d: duplicate column '%s' (first at column %d)",
                 lx->path, keys[d].line, keys[d].col, name, keys[first].col);
    }
    free(keys);
    return d >= 0 ? -1 : 0;
}

/* IDs must be unique: --ncu-id would pick one of the rows. */
static int check_dup_ids(struct lexer *lx, const struct ncu_table *t, char err[NCU_ERR_MAX])
{
    int c = ncu_col(t, "ID");
    struct key *keys = malloc((size_t)t->nrows * sizeof *keys + 1);
    if (!keys) {
        snprintf(err, NCU_ERR_MAX, "%s: out of memory", lx->path);
        return -1;
    }
    int n = 0;
    for (int r = 0; r < t->nrows; r++) {
        size_t k = (size_t)r * t->ncols + c;
        if (t->cells[k])
            keys[n] = (struct key){ ncu_cell(t, r, c), t->line[k], t->col[k], r }, n++;
    }
    int first, d = find_dup(keys, n, &first);
    if (d >= 0) {
        char id[96];
        msg_text(id, sizeof id, keys[d].s);
        snprintf(err, NCU_ERR_MAX, "%s:%d:%d: duplicate ID '%s' (first at line %d)", lx->path,
                 keys[d].line, keys[d].col, id, keys[first].line);
    }
    free(keys);
    return d >= 0 ? -1 : 0;
}

static int parse_raw(struct lexer *lx, struct record *r, struct ncu_table *t,
                     char err[NCU_ERR_MAX])
{
    int hdr_line = r->line;
    if (check_dup_cols(lx, r, err))
        return -1;
    t->ncols = r->n;
    t->names = calloc((size_t)t->ncols, sizeof *t->names);
    t->units = calloc((size_t)t->ncols, sizeof *t->units);
    if (!t->names || !t->units)
        goto nomem;
    for (int i = 0; i < r->n; i++) {
        t->names[i] = r->f[i].text;
        r->f[i].text = NULL;
    }
    int first = 1;
    int rc;
    while ((rc = next_record(lx, r, err)) == 1) {
        if (r->n != t->ncols) {
            snprintf(err, NCU_ERR_MAX,
                     "%s:%d:%d: %d field%s, but the header (line %d) has %d columns", lx->path,
                     r->line, r->n > t->ncols ? r->f[t->ncols].col : 1, r->n,
                     r->n == 1 ? "" : "s", hdr_line, t->ncols);
            return -1;
        }
        /* the units row: ncu's second row, with an empty ID */
        if (first && r->f[0].text[0] == '\0') {
            for (int i = 0; i < r->n; i++) {
                t->units[i] = r->f[i].text;
                r->f[i].text = NULL;
            }
            first = 0;
            continue;
        }
        first = 0;
        int row = t->nrows;
        if (grow_rows(t, row + 1))
            goto nomem;
        for (int i = 0; i < r->n; i++) {
            if (!strcmp(r->f[i].text, ""))
                continue; /* an empty cell is no value */
            if (put_cell(t, row, i, r, i))
                goto nomem;
        }
    }
    if (rc < 0 || check_dup_ids(lx, t, err))
        return -1;
    for (int i = 0; i < t->ncols; i++)
        if (!t->units[i] && !(t->units[i] = strdup("")))
            goto nomem;
    return 0;
nomem:
    snprintf(err, NCU_ERR_MAX, "%s: out of memory", lx->path);
    return -1;
}

static int parse_details(struct lexer *lx, struct record *r, struct ncu_table *t,
                         char err[NCU_ERR_MAX])
{
    int hdr_line = r->line;
    int hn = r->n;
    int c_section = find_field(r, "Section Name");
    int c_name = find_field(r, "Metric Name");
    int c_unit = find_field(r, "Metric Unit");
    int c_value = find_field(r, "Metric Value");
    int c_id = find_field(r, "ID");
    if (c_name < 0 || c_unit < 0 || c_value < 0) {
        snprintf(err, NCU_ERR_MAX,
                 "%s:%d:1: details-page header without \"Metric Name\", \"Metric Unit\" and "
                 "\"Metric Value\"",
                 lx->path, hdr_line);
        return -1;
    }
    /* the per-launch columns: everything before "Section Name" */
    int nlaunch = c_section >= 0 ? c_section : c_name;
    if (c_id >= nlaunch) {
        snprintf(err, NCU_ERR_MAX, "%s:%d:%d: \"ID\" must come before the metric columns",
                 lx->path, hdr_line, r->f[c_id].col);
        return -1;
    }
    /* the per-launch cells move into the table, so a metric column among them
     * (a header naming "Metric Value" twice) would be read after it moved */
    int c_first = c_name < c_unit ? c_name : c_unit;
    c_first = c_value < c_first ? c_value : c_first;
    if (c_first < nlaunch) {
        snprintf(err, NCU_ERR_MAX,
                 "%s:%d:%d: \"Metric Name\", \"Metric Unit\" and \"Metric Value\" must come "
                 "after the per-launch columns",
                 lx->path, hdr_line, r->f[c_first].col);
        return -1;
    }
    for (int i = 0; i < nlaunch; i++)
        if (add_col(t, r->f[i].text, "") < 0)
            goto nomem;
    int last = -1; /* the row of the previous record: a launch's rows are consecutive */
    int rc;
    while ((rc = next_record(lx, r, err)) == 1) {
        if (r->n != hn) {
            snprintf(err, NCU_ERR_MAX,
                     "%s:%d:%d: %d field%s, but the header (line %d) has %d columns", lx->path,
                     r->line, r->n > hn ? r->f[hn].col : 1, r->n, r->n == 1 ? "" : "s",
                     hdr_line, hn);
            return -1;
        }
        const char *id = r->f[c_id].text;
        int row = -1;
        if (last >= 0 && !strcmp(ncu_cell(t, last, c_id), id))
            row = last;
        for (int k = 0; row < 0 && k < t->nrows; k++)
            if (!strcmp(ncu_cell(t, k, c_id), id))
                row = k;
        if (row < 0) {
            row = t->nrows;
            if (grow_rows(t, row + 1))
                goto nomem;
            for (int i = 0; i < nlaunch; i++)
                if (put_cell(t, row, i, r, i))
                    goto nomem;
        }
        last = row;
        const char *metric = label_metric(r->f[c_name].text);
        int col = ncu_col(t, metric);
        if (col < 0) {
            col = add_col(t, metric, r->f[c_unit].text);
            if (col < 0)
                goto nomem;
        }
        size_t have = (size_t)row * t->ncols + col;
        const char *old = ncu_cell(t, row, col);
        if (strcmp(r->f[c_value].text, "") && old && strcmp(old, r->f[c_value].text) &&
            !strcmp(r->f[c_unit].text, t->units[col])) {
            /* a label shown by two sections has the same value in each; two
             * values for one launch leave no way to tell which is meant */
            char name[96], idt[96];
            msg_text(name, sizeof name, metric);
            msg_text(idt, sizeof idt, ncu_cell(t, row, c_id));
            snprintf(err, NCU_ERR_MAX,
                     "%s:%d:%d: duplicate metric '%s' for ID %s with another value (first at "
                     "line %d)",
                     lx->path, r->line, r->f[c_value].col, name, idt, t->line[have]);
            return -1;
        }
        if (old)
            continue; /* a label shown by two sections: the first one counts */
        if (strcmp(r->f[c_value].text, "")) {
            /* a unit other than the column's (a scaled one): keep the value in
             * the column's unit by rescaling through the base unit */
            char b1[64], b2[64];
            double f1 = ncu_unit_scale(r->f[c_unit].text, b1);
            double f2 = ncu_unit_scale(t->units[col], b2);
            double v;
            if (f1 != f2 && !strcmp(b1, b2) && ncu_parse_number(r->f[c_value].text, &v)) {
                char num[64];
                snprintf(num, sizeof num, "%.17g", v * f1 / f2);
                char *dup = strdup(num);
                if (!dup)
                    goto nomem;
                free(r->f[c_value].text);
                r->f[c_value].text = dup;
            }
            if (put_cell(t, row, col, r, c_value))
                goto nomem;
        }
    }
    return rc < 0 ? -1 : 0;
nomem:
    snprintf(err, NCU_ERR_MAX, "%s: out of memory", lx->path);
    return -1;
}

/* ncu's Source page export (per instruction): its header, "Address","Source",
 * follows the "Kernel Name" line. */
static int source_page(const char *text, size_t len)
{
    static const char key[] = "\n\"Address\",\"Source\",";
    size_t n = len < 4096 ? len : 4096, k = sizeof key - 1;
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(text + i, key, k))
            return 1;
    return 0;
}

int ncu_csv_parse(const char *text, size_t len, const char *path, struct ncu_table *t,
                  char err[NCU_ERR_MAX])
{
    memset(t, 0, sizeof *t);
    t->path = strdup(path);
    if (!t->path) {
        snprintf(err, NCU_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    struct lexer lx = { text, len, 0, 1, 0, path };
    /* a UTF-8 byte-order mark (Windows exports) */
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        lx.at = 3;
        lx.bol = 3;
    }
    struct record r = { NULL, 0, 0, 0 };
    int rc = next_record(&lx, &r, err);
    if (rc == 0) {
        snprintf(err, NCU_ERR_MAX,
                 "%s:%d:1: no table: expected ncu's CSV header (\"ID\",\"Process ID\",...)",
                 path, lx.line);
        rc = -1;
    } else if (rc > 0) {
        if (find_field(&r, "ID") < 0 && find_field(&r, "Kernel Name") == 0 &&
            source_page(text, len)) {
            /* the Source page: a "Kernel Name","NAME" line, then its header */
            snprintf(err, NCU_ERR_MAX,
                     "%s:%d:1: this is ncu's Source page (per instruction: a \"Kernel Name\" "
                     "line, then Address, Source, ...), not the raw page of launches: give it "
                     "to compare --source or sass2trace --counts, and export the launches with "
                     "ncu -i REPORT --csv --page raw --print-units base",
                     path, r.line);
            rc = -1;
        } else if (find_field(&r, "ID") < 0) {
            snprintf(err, NCU_ERR_MAX,
                     "%s:%d:1: not an Nsight Compute CSV: the header has no \"ID\" column "
                     "(export with ncu --csv --page raw)",
                     path, r.line);
            rc = -1;
        } else if (find_field(&r, "Metric Value") >= 0) {
            t->details = 1;
            rc = parse_details(&lx, &r, t, err);
        } else {
            rc = parse_raw(&lx, &r, t, err);
        }
    }
    record_clear(&r);
    free(r.f);
    if (rc < 0) {
        ncu_table_free(t);
        arch_msg_escape(err, NCU_ERR_MAX);
        return -1;
    }
    return 0;
}

int ncu_csv_load(const char *path, struct ncu_table *t, char err[NCU_ERR_MAX])
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, NCU_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        arch_msg_escape(err, NCU_ERR_MAX);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? 2 * cap : 1 << 20;
            char *g = realloc(buf, cap);
            if (!g) {
                free(buf);
                fclose(f);
                snprintf(err, NCU_ERR_MAX, "%s: out of memory", path);
                return -1;
            }
            buf = g;
        }
        size_t n = fread(buf + len, 1, 65536, f);
        len += n;
        if (n < 65536)
            break;
    }
    int bad = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, NCU_ERR_MAX, "%s: read error: %s", path, strerror(bad));
        arch_msg_escape(err, NCU_ERR_MAX);
        return -1;
    }
    buf[len] = '\0';
    int rc = ncu_csv_parse(buf, len, path, t, err);
    free(buf);
    return rc;
}

int ncu_value(const struct ncu_table *t, int row, int col, double *v, char err[NCU_ERR_MAX])
{
    const char *s = ncu_cell(t, row, col);
    if (!s || !*s || !strcmp(s, "n/a") || !strcmp(s, "N/A"))
        return 1;
    double x;
    if (!ncu_parse_number(s, &x)) {
        size_t k = (size_t)row * t->ncols + col;
        char name[96], text[96];
        msg_text(name, sizeof name, t->names[col]);
        msg_text(text, sizeof text, s);
        snprintf(err, NCU_ERR_MAX, "%s:%d:%d: %s: '%s' is not a number", t->path, t->line[k],
                 t->col[k], name, text);
        arch_msg_escape(err, NCU_ERR_MAX);
        return -1;
    }
    if (!ncu_unit_known(t->units[col])) {
        /* scale 1 would be a silently wrong value */
        size_t k = (size_t)row * t->ncols + col;
        char name[96], unit[96];
        msg_text(name, sizeof name, t->names[col]);
        msg_text(unit, sizeof unit, t->units[col]);
        snprintf(err, NCU_ERR_MAX, "%s:%d:%d: %s: unknown unit '%s' (smsim cannot scale it)",
                 t->path, t->line[k], t->col[k], name, unit);
        arch_msg_escape(err, NCU_ERR_MAX);
        return -1;
    }
    char base[64];
    *v = x * ncu_unit_scale(t->units[col], base);
    return 0;
}

/* Decimals printed in a number's text ("0.27" -> 2, "1,126" -> 0). */
static int decimals(const char *s)
{
    const char *d = strchr(s, '.');
    if (!d)
        return 0;
    int n = 0;
    while (isdigit((unsigned char)d[1 + n]))
        n++;
    return n;
}

int ncu_metric(const struct ncu_table *t, int row, const char *name, double *v,
               char err[NCU_ERR_MAX])
{
    int c = ncu_col(t, name);
    if (c < 0)
        return 1;
    int rc = ncu_value(t, row, c, v, err);
    if (rc)
        return rc;
    static const char avg_pca[] = ".avg.per_cycle_active";
    size_t ln = strlen(name), ls = sizeof avg_pca - 1;
    if (ln <= ls || strcmp(name + ln - ls, avg_pca))
        return 0;
    int smsp = !strncmp(name, "smsp__", 6);
    if (!smsp && strncmp(name, "sm__", 4))
        return 0;
    char sum[256];
    if (ln + 1 > sizeof sum)
        return 0;
    snprintf(sum, sizeof sum, "%.*s.sum.per_cycle_active", (int)(ln - ls), name);
    double s, sms, per = 1;
    char e2[NCU_ERR_MAX];
    if (ncu_metric(t, row, "launch__sm_count", &sms, e2) != 0 || sms < 1)
        return 0;
    int cs = ncu_col(t, sum);
    if (cs < 0 || ncu_value(t, row, cs, &s, e2) != 0)
        return 0;
    if (smsp) {
        int cp = ncu_col(t, "device__attribute_num_schedulers_per_multiprocessor");
        if (cp < 0 || ncu_value(t, row, cp, &per, e2) != 0 || per < 1)
            return 0;
    }
    double r = s / (sms * per);
    /* use it only if it rounds to what ncu printed */
    double q = pow(10.0, decimals(ncu_cell(t, row, c)));
    if (fabs(r - *v) <= 0.5 / q + 1e-9 * fabs(*v))
        *v = r;
    return 0;
}
