/* arch_load.c — YAML configuration (+ --set overrides) -> struct arch.
 *
 * Uses libyaml's event parser rather than its document loader so that every
 * error can name the exact line:column it comes from.  Every failure is one
 * line "source:line:col: message"; "source" is the file name, or "--set" for
 * an override (line = the override's position among the overrides, column =
 * the character within "section.key=value").  All keys go through the schema
 * in arch_schema.c: unknown keys, duplicates, wrong types and out-of-range
 * values are errors, never silently ignored or clamped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "arch/arch_schema.h"

enum {
    MAX_KEYS = 128,         /* capacity for per-key bookkeeping (schema has fewer) */
    MAX_SECTIONS = 32,      /* capacity for section positions                      */
    MAX_SEEN = 64,          /* keys remembered per mapping for duplicate checks    */
    PATH_MAX_LEN = 128,     /* longest key path considered                         */
    SHOW_MAX = 40,          /* longest value quoted back in a message              */
    FILE_MAX = 1 << 20,     /* a configuration is small; refuse anything larger    */
    DEPTH_MAX = 64          /* nesting a configuration may use (it needs 3): libyaml's
                               time grows with the square of the depth, so a deep
                               flow inside FILE_MAX would take hours             */
};

/* Where a value came from. */
struct mark {
    const char *src;        /* file name or "--set"; NULL = not set (default)      */
    int line, col;          /* 1-based                                              */
};

/* A copy of one parser event (libyaml's own is freed at once). */
struct ev {
    int type;               /* yaml_event_type_t                                   */
    char *val;              /* scalar text (malloc'd), else NULL                    */
    size_t len;             /* scalar length                                        */
    int plain;              /* scalar was unquoted                                  */
    int tagged;             /* explicit tag present                                 */
    int anchored;           /* anchor present                                       */
    yaml_mark_t start;      /* where the event starts                               */
};

/* Loader state for one arch_load call. */
struct ld {
    struct arch a;                      /* the value being built                   */
    char *err;                          /* caller's ARCH_ERR_MAX buffer            */
    const struct arch_key *keys;        /* the schema                              */
    int nkeys;                          /* entries in keys                         */
    struct mark km[MAX_KEYS];           /* where each key was last set             */
    char secpath[MAX_SECTIONS][PATH_MAX_LEN]; /* sections seen in the file         */
    struct mark secmark[MAX_SECTIONS];  /* their positions                         */
    int nsec;                           /* entries in secpath                      */
    const char *src;                    /* current source name                     */
    int fixed_line;                     /* >0: positions are on this line (--set)  */
    int col_base;                       /* column offset of the parsed text (--set)*/
    const unsigned char *text;          /* the text being parsed (reader errors)   */
    size_t text_len;                    /* its length                              */
    yaml_parser_t *p;                   /* the parser in use                       */
};

/* ---- messages ---------------------------------------------------------- */

static struct mark pos_of(const struct ld *L, yaml_mark_t m)
{
    struct mark r = { L->src, (int)m.line + 1, (int)m.column + 1 };
    if (L->fixed_line > 0) {
        /* an override value is one line; libyaml puts the end of input on
         * the next line, which we show as just past the value */
        r.line = L->fixed_line;
        r.col = L->col_base + (m.line ? (int)L->text_len : (int)m.column) + 1;
    }
    return r;
}

static int fail_at(struct ld *L, struct mark m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(struct ld *L, struct mark m, const char *fmt, ...)
{
    char msg[ARCH_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int k = snprintf(L->err, ARCH_ERR_MAX, "%s:%d:%d: ", m.src, m.line, m.col);
    if (k < 0 || k >= ARCH_ERR_MAX)
        k = 0;
    snprintf(L->err + k, (size_t)(ARCH_ERR_MAX - k), "%s", msg);
    return -1;
}

/* Quote a value back, bounded in length (arch_load() escapes the bytes a
 * terminal would obey in the whole message). */
static void show(char *out, size_t n, const char *s, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 4 < n && i < SHOW_MAX; i++)
        out[k++] = s[i] ? s[i] : ' ';
    if (len > SHOW_MAX && k + 4 < n) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

/* "a mapping", "a list", "'text'" — what the user gave instead. */
static void describe(char *out, size_t n, const struct ev *e)
{
    char v[64];
    switch (e->type) {
    case YAML_MAPPING_START_EVENT: snprintf(out, n, "a mapping"); break;
    case YAML_SEQUENCE_START_EVENT: snprintf(out, n, "a list"); break;
    case YAML_ALIAS_EVENT: snprintf(out, n, "an alias"); break;
    case YAML_SCALAR_EVENT:
        show(v, sizeof v, e->val, e->len);
        snprintf(out, n, e->plain ? "'%s'" : "quoted string '%s'", v);
        break;
    default: snprintf(out, n, "nothing"); break;
    }
}

/* Levenshtein distance, capped: enough to suggest a near-miss key name. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Child name of `path` directly below `prefix` ("" = top level) into out;
 * returns 0 when path does not lie below prefix. */
static int child_of(const char *path, const char *prefix, char *out, size_t n)
{
    size_t pl = strlen(prefix);
    if (pl) {
        if (strncmp(path, prefix, pl) || path[pl] != '.')
            return 0;
        path += pl + 1;
    }
    size_t cl = strcspn(path, ".");
    if (cl >= n)
        return 0;
    memcpy(out, path, cl);
    out[cl] = '\0';
    return 1;
}

/* A hint for an unknown name `key` below `prefix`: a near miss, or the
 * section the key belongs in.  Empty when there is nothing useful to say. */
static void hint(const struct ld *L, const char *prefix, const char *key, char *out, size_t n)
{
    char best[PATH_MAX_LEN] = "", c[PATH_MAX_LEN];
    int bestd = 3;
    out[0] = '\0';
    for (int i = 0; i < L->nkeys; i++) {
        if (!child_of(L->keys[i].path, prefix, c, sizeof c))
            continue;
        int d = edit_distance(key, c);
        if (d < bestd && d < (int)strlen(c)) {
            bestd = d;
            snprintf(best, sizeof best, "%s", c);
        }
    }
    if (best[0]) {
        snprintf(out, n, " (did you mean '%s'?)", best);
        return;
    }
    for (int i = 0; i < L->nkeys; i++) {
        const char *dot = strrchr(L->keys[i].path, '.');
        if (dot && !strcmp(dot + 1, key)) {
            snprintf(out, n, " (did you mean '%s'?)", L->keys[i].path);
            return;
        }
    }
}

/* A hint for an unknown full key path (--set): a near miss among all
 * paths, or the path whose last component is the same word. */
static void hint_path(const struct ld *L, const char *key, char *out, size_t n)
{
    int bestd = 3, best = -1;
    out[0] = '\0';
    for (int i = 0; i < L->nkeys; i++) {
        int d = edit_distance(key, L->keys[i].path);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    if (best < 0) {
        const char *leaf = strrchr(key, '.');
        leaf = leaf ? leaf + 1 : key;
        for (int i = 0; i < L->nkeys && best < 0; i++) {
            const char *dot = strrchr(L->keys[i].path, '.');
            if (dot && !strcmp(dot + 1, leaf))
                best = i;
        }
    }
    if (best >= 0)
        snprintf(out, n, " (did you mean '%s'?)", L->keys[best].path);
}

/* ---- events -------------------------------------------------------------- */

static void ev_free(struct ev *e)
{
    free(e->val);
    e->val = NULL;
}

/* Line/column of a byte offset in the parsed text (libyaml reader errors
 * give only an offset). */
static yaml_mark_t offset_mark(const struct ld *L, size_t off)
{
    yaml_mark_t m = { 0, 0, 0 };
    for (size_t i = 0; i < off && i < L->text_len; i++) {
        if (L->text[i] == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    return m;
}

/* libyaml's next event; on a syntax error, the one-line message. */
static int raw_next(struct ld *L, yaml_event_t *y)
{
    if (yaml_parser_parse(L->p, y))
        return 0;
    const yaml_parser_t *p = L->p;
    if (p->error == YAML_MEMORY_ERROR)
        return fail_at(L, pos_of(L, p->problem_mark), "out of memory");
    yaml_mark_t m = p->error == YAML_READER_ERROR ? offset_mark(L, p->problem_offset)
                                                  : p->problem_mark;
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->context)
        return fail_at(L, pos_of(L, m), "malformed YAML: %s (%s)", problem, p->context);
    return fail_at(L, pos_of(L, m), "malformed YAML: %s", problem);
}

/* The next event, copied; aliases, anchors and tags are refused. */
static int next(struct ld *L, struct ev *e)
{
    yaml_event_t y;
    memset(e, 0, sizeof *e);
    if (raw_next(L, &y))
        return -1;
    e->type = y.type;
    e->start = y.start_mark;
    switch (y.type) {
    case YAML_SCALAR_EVENT:
        e->len = y.data.scalar.length;
        e->val = malloc(e->len + 1);
        if (!e->val) {
            yaml_event_delete(&y);
            return fail_at(L, pos_of(L, e->start), "out of memory");
        }
        memcpy(e->val, y.data.scalar.value, e->len);
        e->val[e->len] = '\0';
        e->plain = y.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        e->tagged = y.data.scalar.tag != NULL;
        e->anchored = y.data.scalar.anchor != NULL;
        break;
    case YAML_SEQUENCE_START_EVENT:
        e->tagged = y.data.sequence_start.tag != NULL;
        e->anchored = y.data.sequence_start.anchor != NULL;
        break;
    case YAML_MAPPING_START_EVENT:
        e->tagged = y.data.mapping_start.tag != NULL;
        e->anchored = y.data.mapping_start.anchor != NULL;
        break;
    default:
        break;
    }
    yaml_event_delete(&y);
    if (e->type == YAML_ALIAS_EVENT)
        return fail_at(L, pos_of(L, e->start), "YAML aliases are not supported");
    if (e->anchored) {
        ev_free(e);
        return fail_at(L, pos_of(L, e->start), "YAML anchors are not supported");
    }
    if (e->tagged) {
        ev_free(e);
        return fail_at(L, pos_of(L, e->start), "YAML tags are not supported");
    }
    return 0;
}

/* ---- scalar conversion ----------------------------------------------------- */

static void fmt_num(char *out, size_t n, double d)
{
    if (d == floor(d) && fabs(d) < 1e15)
        snprintf(out, n, "%.0f", d);
    else
        snprintf(out, n, "%g", d);
}

static int is_int_text(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == '\0';
}

static int is_num_text(const char *s)
{
    int digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    while (isdigit((unsigned char)*s))
        s++, digits++;
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s))
            s++, digits++;
    }
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

/* "gto, lrr": the names an enum key accepts. */
static void enum_list(const struct arch_key *k, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; k->names[i]; i++) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", i ? ", " : "", k->names[i]);
    }
}

/* Parse one integer for `label` (key path or "key[i]"); msg gets the error. */
static int conv_int(const char *label, const char *s, size_t len, int plain, double lo, double hi,
                    int *out, char *msg, size_t n)
{
    char v[64];
    show(v, sizeof v, s, len);
    if (!plain || strlen(s) != len || !is_int_text(s)) {
        snprintf(msg, n, "%s: expected an integer, got %s'%s'", label,
                 plain ? "" : "quoted string ", v);
        return -1;
    }
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno == ERANGE || (double)x < lo || (double)x > hi) {
        char a[32], b[32];
        fmt_num(a, sizeof a, lo);
        fmt_num(b, sizeof b, hi);
        snprintf(msg, n, "%s: %s is out of range [%s, %s]", label, v, a, b);
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* Convert scalar text into key k of a (all types except lists). */
static int conv_scalar(struct arch *a, const struct arch_key *k, const char *s, size_t len,
                       int plain, char *msg, size_t n)
{
    char *field = (char *)a + k->off;
    char v[64];
    show(v, sizeof v, s, len);
    switch (k->type) {
    case AK_INT:
        return conv_int(k->path, s, len, plain, k->min, k->max, (int *)(void *)field, msg, n);
    case AK_DOUBLE: {
        if (!plain || strlen(s) != len || !is_num_text(s)) {
            snprintf(msg, n, "%s: expected a number, got %s'%s'", k->path,
                     plain ? "" : "quoted string ", v);
            return -1;
        }
        errno = 0;
        double d = strtod(s, NULL);
        if (errno == ERANGE || !isfinite(d) || d < k->min || d > k->max) {
            char lo[32], hi[32];
            fmt_num(lo, sizeof lo, k->min);
            fmt_num(hi, sizeof hi, k->max);
            snprintf(msg, n, "%s: %s is out of range [%s, %s]", k->path, v, lo, hi);
            return -1;
        }
        *(double *)(void *)field = d;
        return 0;
    }
    case AK_STRING:
        if (len < (size_t)k->min || len > (size_t)k->max) {
            snprintf(msg, n, "%s: must be %.0f to %.0f bytes long, got %zu", k->path, k->min,
                     k->max, len);
            return -1;
        }
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
                snprintf(msg, n, "%s: control characters are not allowed", k->path);
                return -1;
            }
        memcpy(field, s, len);
        field[len] = '\0';
        return 0;
    case AK_ENUM:
        for (int i = 0; k->names[i]; i++)
            if (strlen(k->names[i]) == len && !memcmp(k->names[i], s, len)) {
                *(int *)(void *)field = i;
                return 0;
            }
        {
            char list[128];
            enum_list(k, list, sizeof list);
            snprintf(msg, n, "%s: expected one of %s, got %s'%s'", k->path, list,
                     plain ? "" : "quoted string ", v);
        }
        return -1;
    default:
        snprintf(msg, n, "%s: internal error: bad key type", k->path);
        return -1;
    }
}

/* ---- values ------------------------------------------------------------- */

/* A list given as one plain scalar "0,8,16" (handy on the command line). */
static int list_from_csv(struct ld *L, int ki, const struct ev *e)
{
    const struct arch_key *k = &L->keys[ki];
    int *vals = (int *)(void *)((char *)&L->a + k->off);
    int *count = (int *)(void *)((char *)&L->a + k->count_off);
    struct mark m0 = pos_of(L, e->start);
    char msg[ARCH_ERR_MAX], label[PATH_MAX_LEN + 16];
    if (!e->plain) {
        char d[96];
        describe(d, sizeof d, e);
        return fail_at(L, m0, "%s: expected a list of integers, got %s", k->path, d);
    }
    int cnt = 0;
    size_t i = 0;
    for (;;) {
        size_t start = i;
        while (i < e->len && e->val[i] != ',')
            i++;
        /* trim blanks around the entry, keeping its column for messages */
        size_t a = start, b = i;
        while (a < b && (e->val[a] == ' ' || e->val[a] == '\t'))
            a++;
        while (b > a && (e->val[b - 1] == ' ' || e->val[b - 1] == '\t'))
            b--;
        struct mark m = m0;
        m.col += (int)a;
        if (cnt >= ARCH_MAX_CARVEOUTS)
            return fail_at(L, m, "%s: at most %d entries", k->path, ARCH_MAX_CARVEOUTS);
        char *item = strndup(e->val + a, b - a);
        if (!item)
            return fail_at(L, m, "out of memory");
        snprintf(label, sizeof label, "%s[%d]", k->path, cnt);
        int rc = conv_int(label, item, b - a, 1, k->min, k->max, &vals[cnt], msg, sizeof msg);
        free(item);
        if (rc)
            return fail_at(L, m, "%s", msg);
        cnt++;
        if (i >= e->len)
            break;
        i++; /* skip ',' */
    }
    *count = cnt;
    return 0;
}

/* Read the value of key ki (the next event onwards) into L->a. */
static int parse_value(struct ld *L, int ki)
{
    const struct arch_key *k = &L->keys[ki];
    char msg[ARCH_ERR_MAX], d[96];
    struct ev e;
    if (next(L, &e))
        return -1;
    struct mark m = pos_of(L, e.start);
    if (k->type != AK_INTLIST) {
        if (e.type != YAML_SCALAR_EVENT) {
            static const char *const what[] = {
                [AK_INT] = "an integer", [AK_DOUBLE] = "a number", [AK_STRING] = "a string",
                [AK_ENUM] = "a name"
            };
            describe(d, sizeof d, &e);
            if (k->type == AK_ENUM) {
                char list[128];
                enum_list(k, list, sizeof list);
                return fail_at(L, m, "%s: expected one of %s, got %s", k->path, list, d);
            }
            return fail_at(L, m, "%s: expected %s, got %s", k->path, what[k->type], d);
        }
        int rc = conv_scalar(&L->a, k, e.val, e.len, e.plain, msg, sizeof msg);
        ev_free(&e);
        if (rc)
            return fail_at(L, m, "%s", msg);
        L->km[ki] = m;
        return 0;
    }
    if (e.type == YAML_SCALAR_EVENT) {
        int rc = list_from_csv(L, ki, &e);
        ev_free(&e);
        if (!rc)
            L->km[ki] = m;
        return rc;
    }
    if (e.type != YAML_SEQUENCE_START_EVENT) {
        describe(d, sizeof d, &e);
        return fail_at(L, m, "%s: expected a list of integers, got %s", k->path, d);
    }
    int *vals = (int *)(void *)((char *)&L->a + k->off);
    int cnt = 0;
    for (;;) {
        struct ev x;
        if (next(L, &x))
            return -1;
        if (x.type == YAML_SEQUENCE_END_EVENT)
            break;
        struct mark mx = pos_of(L, x.start);
        char label[PATH_MAX_LEN + 16];
        snprintf(label, sizeof label, "%s[%d]", k->path, cnt);
        if (x.type != YAML_SCALAR_EVENT) {
            describe(d, sizeof d, &x);
            return fail_at(L, mx, "%s: expected an integer, got %s", label, d);
        }
        if (cnt >= ARCH_MAX_CARVEOUTS) {
            ev_free(&x);
            return fail_at(L, mx, "%s: at most %d entries", k->path, ARCH_MAX_CARVEOUTS);
        }
        int rc = conv_int(label, x.val, x.len, x.plain, k->min, k->max, &vals[cnt], msg,
                          sizeof msg);
        ev_free(&x);
        if (rc)
            return fail_at(L, mx, "%s", msg);
        cnt++;
    }
    if (cnt == 0)
        return fail_at(L, m, "%s: the list must not be empty", k->path);
    *(int *)(void *)((char *)&L->a + k->count_off) = cnt;
    L->km[ki] = m;
    return 0;
}

/* ---- mappings ------------------------------------------------------------- */

/* Read the keys of the mapping whose MAPPING_START was just consumed;
 * prefix is its section path ("" at the top). */
static int parse_mapping(struct ld *L, const char *prefix)
{
    char seen[MAX_SEEN][PATH_MAX_LEN];
    int seen_line[MAX_SEEN], nseen = 0;
    for (;;) {
        struct ev e;
        if (next(L, &e))
            return -1;
        if (e.type == YAML_MAPPING_END_EVENT)
            return 0;
        struct mark m = pos_of(L, e.start);
        if (e.type != YAML_SCALAR_EVENT)
            return fail_at(L, m, "%s%sexpected a key name, got %s", prefix,
                           *prefix ? ": " : "",
                           e.type == YAML_MAPPING_START_EVENT ? "a mapping" : "a list");
        char key[PATH_MAX_LEN], full[2 * PATH_MAX_LEN], h[160];
        show(key, sizeof key, e.val, e.len);
        int too_long = e.len >= PATH_MAX_LEN - 1 || strlen(e.val) != e.len;
        ev_free(&e);
        snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", key);
        int ki = too_long ? -1 : arch_schema_find(full);
        int is_sec = !too_long && ki < 0 && arch_schema_is_section(full);
        if (ki < 0 && !is_sec) {
            hint(L, prefix, key, h, sizeof h);
            if (!*prefix)
                return fail_at(L, m, "unknown section '%s'%s", key, h);
            return fail_at(L, m, "unknown key '%s' in section '%s'%s", key, prefix, h);
        }
        for (int i = 0; i < nseen; i++)
            if (!strcmp(seen[i], key))
                return fail_at(L, m, "duplicate %s '%s' (first at line %d)",
                               is_sec ? "section" : "key", full, seen_line[i]);
        if (nseen < MAX_SEEN) {
            snprintf(seen[nseen], PATH_MAX_LEN, "%s", key);
            seen_line[nseen++] = m.line;
        }
        if (ki >= 0) {
            if (parse_value(L, ki))
                return -1;
            continue;
        }
        struct ev v;
        if (next(L, &v))
            return -1;
        if (v.type != YAML_MAPPING_START_EVENT) {
            char d[96];
            describe(d, sizeof d, &v);
            ev_free(&v);
            return fail_at(L, pos_of(L, v.start), "%s: expected a mapping of keys, got %s",
                           full, d);
        }
        if (L->nsec < MAX_SECTIONS) {
            snprintf(L->secpath[L->nsec], PATH_MAX_LEN, "%.*s", PATH_MAX_LEN - 1, full);
            L->secmark[L->nsec++] = m;
        }
        if (parse_mapping(L, full))
            return -1;
    }
}

/* Parse a whole configuration document. */
static int parse_file(struct ld *L)
{
    struct ev e;
    if (next(L, &e)) /* STREAM_START */
        return -1;
    if (next(L, &e))
        return -1;
    if (e.type == YAML_STREAM_END_EVENT)
        return 0; /* empty file: the required-key check reports it */
    if (next(L, &e))
        return -1;
    if (e.type != YAML_MAPPING_START_EVENT) {
        char d[96];
        describe(d, sizeof d, &e);
        ev_free(&e);
        return fail_at(L, pos_of(L, e.start),
                       "expected a mapping of sections (gpu:, sm:, ...) at top level, got %s", d);
    }
    if (parse_mapping(L, ""))
        return -1;
    if (next(L, &e)) /* DOCUMENT_END */
        return -1;
    if (next(L, &e))
        return -1;
    if (e.type != YAML_STREAM_END_EVENT)
        return fail_at(L, pos_of(L, e.start), "only one YAML document is allowed");
    return 0;
}

/* Syntax pass: read every event so that malformed YAML is reported as
 * such, even where an earlier value would otherwise be judged first (an
 * over-indented line makes the previous value a two-line scalar before
 * libyaml notices the stray ':'). */
static int syntax_ok(struct ld *L)
{
    int depth = 0;
    for (;;) {
        yaml_event_t y;
        if (raw_next(L, &y))
            return -1;
        int end = y.type == YAML_STREAM_END_EVENT;
        if (y.type == YAML_SEQUENCE_START_EVENT || y.type == YAML_MAPPING_START_EVENT) {
            /* stop at the first level too many: the parser has only read a
             * bounded look-ahead past it, so the time stays linear */
            if (++depth > DEPTH_MAX) {
                struct mark m = pos_of(L, y.start_mark);
                yaml_event_delete(&y);
                return fail_at(L, m, "YAML nested deeper than %d levels", DEPTH_MAX);
            }
        } else if (y.type == YAML_SEQUENCE_END_EVENT || y.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&y);
        if (end)
            return 0;
    }
}

/* Run fn over `text` with libyaml (after a syntax pass), positions relative
 * to L->src. */
static int with_parser(struct ld *L, const char *text, size_t len, int (*fn)(struct ld *, void *),
                       void *arg)
{
    int rc = 0;
    L->text = (const unsigned char *)text;
    L->text_len = len;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        yaml_parser_t p;
        if (!yaml_parser_initialize(&p)) {
            snprintf(L->err, ARCH_ERR_MAX, "%s: out of memory", L->src);
            return -1;
        }
        yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
        L->p = &p;
        rc = pass == 0 ? syntax_ok(L) : fn(L, arg);
        yaml_parser_delete(&p);
        L->p = NULL;
    }
    return rc;
}

static int parse_file_cb(struct ld *L, void *arg)
{
    (void)arg;
    return parse_file(L);
}

/* ---- --set overrides ------------------------------------------------------- */

static int parse_override_value(struct ld *L, void *arg)
{
    int ki = *(int *)arg;
    struct ev e;
    if (next(L, &e)) /* STREAM_START */
        return -1;
    if (next(L, &e))
        return -1;
    if (e.type == YAML_STREAM_END_EVENT) {
        /* "key=" with nothing after it: an empty value, judged by its type */
        yaml_mark_t m0 = { 0, 0, 0 };
        char msg[ARCH_ERR_MAX];
        const struct arch_key *k = &L->keys[ki];
        int rc = k->type == AK_INTLIST
                     ? (snprintf(msg, sizeof msg, "%s: expected a list of integers, got ''",
                                 k->path), -1)
                     : conv_scalar(&L->a, k, "", 0, 1, msg, sizeof msg);
        if (rc)
            return fail_at(L, pos_of(L, m0), "%s", msg);
        L->km[ki] = pos_of(L, m0);
        return 0;
    }
    if (parse_value(L, ki))
        return -1;
    if (next(L, &e)) /* DOCUMENT_END */
        return -1;
    if (next(L, &e))
        return -1;
    if (e.type != YAML_STREAM_END_EVENT)
        return fail_at(L, pos_of(L, e.start), "%s: expected one value", L->keys[ki].path);
    return 0;
}

static int apply_override(struct ld *L, int index, const char *text)
{
    L->src = "--set";
    L->fixed_line = index;
    L->col_base = 0;
    struct mark m1 = { "--set", index, 1 };
    const char *eq = text ? strchr(text, '=') : NULL;
    char v[64];
    if (!eq || eq == text) {
        show(v, sizeof v, text ? text : "", text ? strlen(text) : 0);
        return fail_at(L, m1, "expected section.key=value, got '%s'", v);
    }
    char key[PATH_MAX_LEN];
    size_t kl = (size_t)(eq - text);
    show(key, sizeof key, text, kl);
    int ki = kl < PATH_MAX_LEN - 1 ? arch_schema_find(key) : -1;
    if (ki < 0) {
        if (kl < PATH_MAX_LEN - 1 && arch_schema_is_section(key))
            return fail_at(L, m1, "'%s' is a section, not a key; give section.key=value", key);
        char h[160];
        hint_path(L, key, h, sizeof h);
        return fail_at(L, m1, "unknown key '%s'%s", key, h);
    }
    L->col_base = (int)kl + 1;
    return with_parser(L, eq + 1, strlen(eq + 1), parse_override_value, &ki);
}

/* ---- entry points ----------------------------------------------------------- */

static int finish(struct ld *L, const char *file)
{
    struct mark top = { file, 1, 1 };
    for (int i = 0; i < L->nkeys; i++) {
        if (L->keys[i].def || L->km[i].src)
            continue;
        /* point at the innermost section present, else the file start */
        const char *path = L->keys[i].path;
        struct mark at = top;
        size_t best = 0;
        for (int s = 0; s < L->nsec; s++) {
            size_t sl = strlen(L->secpath[s]);
            if (sl > best && !strncmp(path, L->secpath[s], sl) && path[sl] == '.') {
                best = sl;
                at = L->secmark[s];
            }
        }
        if (!best) {
            char sec[PATH_MAX_LEN];
            snprintf(sec, sizeof sec, "%.*s", (int)strcspn(path, "."), path);
            return fail_at(L, at, "missing required section '%s' (first required key: '%s')",
                           sec, path);
        }
        return fail_at(L, at, "missing required key '%s'", path);
    }
    int nc;
    const struct arch_check *c = arch_schema_checks(&nc);
    for (int i = 0; i < nc; i++) {
        char msg[ARCH_ERR_MAX];
        if (!c[i].violated(&L->a, msg, sizeof msg))
            continue;
        /* Report at the last override among the keys involved (it broke the
         * rule), else at the rule's key, else at the first involved key the
         * file sets, else at the file start. */
        int ki = arch_schema_find(c[i].key);
        int have = ki >= 0 && L->km[ki].src;
        struct mark at = have ? L->km[ki] : top;
        char name[PATH_MAX_LEN];
        const char *o = c[i].key;
        for (const char *rest = c[i].others; o; ) {
            int oi = arch_schema_find(o);
            const struct mark *om = oi >= 0 && L->km[oi].src ? &L->km[oi] : NULL;
            if (om && !strcmp(om->src, "--set") &&
                (strcmp(at.src, "--set") || om->line > at.line))
                at = *om;
            else if (om && !have)
                at = *om;
            if (om)
                have = 1;
            size_t len = strcspn(rest, " ");
            if (!len || len >= sizeof name) {
                o = NULL;
                continue;
            }
            memcpy(name, rest, len);
            name[len] = '\0';
            o = name;
            rest += len + (rest[len] == ' ');
        }
        return fail_at(L, at, "%s", msg);
    }
    return 0;
}

static int load(const char *text, size_t len, const char *name, const struct arch_override *ov,
                int n, struct arch *out, char err[ARCH_ERR_MAX])
{
    struct ld *L = calloc(1, sizeof *L);
    if (!L) {
        snprintf(err, ARCH_ERR_MAX, "%s: out of memory", name);
        return -1;
    }
    L->err = err;
    L->keys = arch_schema_keys(&L->nkeys);
    L->src = name;
    int rc = 0;
    if (L->nkeys > MAX_KEYS) {
        snprintf(err, ARCH_ERR_MAX, "%s: internal error: schema larger than MAX_KEYS", name);
        rc = -1;
    }
    /* defaults first, through the same conversion as user input */
    for (int i = 0; !rc && i < L->nkeys; i++) {
        const struct arch_key *k = &L->keys[i];
        char msg[ARCH_ERR_MAX];
        if (k->def && conv_scalar(&L->a, k, k->def, strlen(k->def), 1, msg, sizeof msg)) {
            snprintf(err, ARCH_ERR_MAX, "%.64s: internal error: bad default: %.400s", name, msg);
            rc = -1;
        }
    }
    if (!rc)
        rc = with_parser(L, text, len, parse_file_cb, NULL);
    for (int i = 0; !rc && i < n; i++)
        rc = apply_override(L, i + 1, ov[i].text);
    if (!rc)
        rc = finish(L, name);
    if (!rc)
        *out = L->a;
    free(L);
    return rc;
}

int arch_load_string(const char *yaml, const char *name, const struct arch_override *ov, int n,
                     struct arch *out, char err[ARCH_ERR_MAX])
{
    int rc = load(yaml, strlen(yaml), name, ov, n, out, err);
    if (rc)
        arch_msg_escape(err, ARCH_ERR_MAX);
    return rc;
}

int arch_load(const char *path, const struct arch_override *ov, int n, struct arch *out,
              char err[ARCH_ERR_MAX])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, ARCH_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        arch_msg_escape(err, ARCH_ERR_MAX);
        return -1;
    }
    char *buf = malloc(FILE_MAX + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, ARCH_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    size_t len = fread(buf, 1, FILE_MAX + 1, f);
    int rd_err = ferror(f) ? errno : 0;
    fclose(f);
    int rc;
    if (rd_err) {
        snprintf(err, ARCH_ERR_MAX, "%s: cannot read: %s", path, strerror(rd_err));
        rc = -1;
    } else if (len > FILE_MAX) {
        snprintf(err, ARCH_ERR_MAX, "%s: larger than %d bytes; not a configuration file", path,
                 FILE_MAX);
        rc = -1;
    } else {
        rc = load(buf, len, path, ov, n, out, err);
    }
    free(buf);
    if (rc)
        arch_msg_escape(err, ARCH_ERR_MAX);
    return rc;
}
