/* study_vary.c — the --vary syntax, the grid product of varied keys, and the
 * configuration + launch of one point.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "occ/occ.h"
#include "study/study.h"

/* Launch keys: they change the traced launch or the engine options, not the
 * configuration (docs/studies.md). */
static const struct {
    const char *key;
    int kind;
} launch_keys[] = {
    { "launch.threads", SK_THREADS },
    { "launch.regs", SK_REGS },
    { "launch.smem_dynamic", SK_SMEM_DYNAMIC },
    { "launch.blocks_per_sm", SK_BLOCKS_PER_SM },
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

void study_var_free(struct study_var *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->nvalues; i++)
        free(v->values[i]);
    free(v->values);
    free(v->key);
    memset(v, 0, sizeof *v);
}

static int push_value(struct study_var *v, const char *s, size_t n)
{
    char **g = realloc(v->values, (size_t)(v->nvalues + 1) * sizeof *g);
    if (!g)
        return -1;
    v->values = g;
    g[v->nvalues] = dup_n(s, n);
    if (!g[v->nvalues])
        return -1;
    v->nvalues++;
    return 0;
}

/* A decimal number (optionally signed, fraction, exponent), whole string. */
static int parse_num(const char *s, size_t n, double *x, int *is_int)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-' || buf[0] == '+' || buf[0] == '.'))
        return -1;
    char *end;
    errno = 0;
    *x = strtod(buf, &end);
    if (*end || errno || !isfinite(*x))
        return -1;
    *is_int = strspn(buf + (buf[0] == '-' || buf[0] == '+'), "0123456789") ==
              strlen(buf + (buf[0] == '-' || buf[0] == '+'));
    return 0;
}

int study_parse_vary(const char *text, struct study_var *v, char err[STUDY_ERR_MAX])
{
    memset(v, 0, sizeof *v);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1]) {
        snprintf(err, STUDY_ERR_MAX,
                 "smsim: --vary '%s': expected key=a:b:step or key=v1,v2,...", text);
        return -1;
    }
    size_t klen = (size_t)(eq - text);
    v->key = dup_n(text, klen);
    if (!v->key)
        goto nomem;
    if (!strchr(v->key, '.') || strchr(v->key, ' ')) {
        snprintf(err, STUDY_ERR_MAX,
                 "smsim: --vary '%s': key '%s' is not section.key", text, v->key);
        goto fail;
    }
    v->kind = SK_CONFIG;
    if (!strncmp(v->key, "launch.", 7)) {
        size_t i;
        for (i = 0; i < sizeof launch_keys / sizeof *launch_keys; i++)
            if (!strcmp(launch_keys[i].key, v->key))
                break;
        if (i == sizeof launch_keys / sizeof *launch_keys) {
            snprintf(err, STUDY_ERR_MAX,
                     "smsim: --vary '%s': unknown launch key '%s' (expected launch.threads, "
                     "launch.regs, launch.smem_dynamic or launch.blocks_per_sm)", text, v->key);
            goto fail;
        }
        v->kind = launch_keys[i].kind;
    }
    const char *rhs = eq + 1;
    const char *c1 = strchr(rhs, ':');
    if (c1 && !strchr(rhs, ',')) {
        /* a:b:step */
        const char *c2 = strchr(c1 + 1, ':');
        if (!c2 || strchr(c2 + 1, ':')) {
            snprintf(err, STUDY_ERR_MAX,
                     "smsim: --vary '%s': a range is a:b:step (three numbers)", text);
            goto fail;
        }
        double a, b, st;
        int ia, ib, is;
        if (parse_num(rhs, (size_t)(c1 - rhs), &a, &ia) ||
            parse_num(c1 + 1, (size_t)(c2 - c1 - 1), &b, &ib) ||
            parse_num(c2 + 1, strlen(c2 + 1), &st, &is)) {
            snprintf(err, STUDY_ERR_MAX,
                     "smsim: --vary '%s': a range is a:b:step with decimal numbers", text);
            goto fail;
        }
        if (!(st > 0)) {
            snprintf(err, STUDY_ERR_MAX, "smsim: --vary '%s': step must be positive", text);
            goto fail;
        }
        if (a > b) {
            snprintf(err, STUDY_ERR_MAX, "smsim: --vary '%s': empty range (%.*s > %.*s)", text,
                     (int)(c1 - rhs), rhs, (int)(c2 - c1 - 1), c1 + 1);
            goto fail;
        }
        double count = floor((b - a) / st + 1e-9) + 1;
        if (count > STUDY_MAX_POINTS) {
            snprintf(err, STUDY_ERR_MAX, "smsim: --vary '%s': more than %d values", text,
                     STUDY_MAX_POINTS);
            goto fail;
        }
        for (long i = 0; i < (long)count; i++) {
            char buf[64];
            double x = a + (double)i * st;
            if (ia && is)
                snprintf(buf, sizeof buf, "%.0f", x);
            else
                snprintf(buf, sizeof buf, "%.10g", x);
            if (push_value(v, buf, strlen(buf)))
                goto nomem;
        }
    } else {
        const char *s = rhs;
        for (;;) {
            const char *c = strchr(s, ',');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            if (n == 0) {
                snprintf(err, STUDY_ERR_MAX, "smsim: --vary '%s': empty value in the list", text);
                goto fail;
            }
            if (push_value(v, s, n))
                goto nomem;
            if (!c)
                break;
            s = c + 1;
        }
    }
    return 0;
nomem:
    snprintf(err, STUDY_ERR_MAX, "smsim: out of memory");
fail:
    study_var_free(v);
    return -1;
}

long study_npoints(const struct study_var *vars, int nvars)
{
    long n = 1;
    for (int i = 0; i < nvars; i++) {
        n *= vars[i].nvalues;
        if (n > STUDY_MAX_POINTS)
            return -1;
    }
    return n;
}

void study_point_index(const struct study_var *vars, int nvars, long p, int *idx)
{
    for (int i = nvars - 1; i >= 0; i--) {
        idx[i] = (int)(p % vars[i].nvalues);
        p /= vars[i].nvalues;
    }
}

void study_point_label(const struct study_var *vars, int nvars, long point, char *buf,
                       size_t n)
{
    int idx[STUDY_MAX_VARS];
    study_point_index(vars, nvars, point, idx);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < nvars && at < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s=%s", i ? ", " : "", vars[i].key,
                         vars[i].values[idx[i]]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* Strict integer in [lo, hi]; 0 or -1. */
static int int_value(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    if (!(s[0] >= '0' && s[0] <= '9'))
        return -1;
    long x = strtol(s, &end, 10);
    if (*end || errno || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

int study_point_prepare(const struct study_plan *p, const struct tr_launch *traced,
                        long point, struct study_point *out, char err[STUDY_ERR_MAX])
{
    char label[400];
    study_point_label(p->vars, p->nvars, point, label, sizeof label);
    int idx[STUDY_MAX_VARS];
    study_point_index(p->vars, p->nvars, point, idx);

    /* base overrides first, then the point's configuration keys */
    struct arch_override ov[64 + STUDY_MAX_VARS];
    char texts[STUDY_MAX_VARS][300];
    int n = 0;
    if (p->nbase > 64) {
        snprintf(err, STUDY_ERR_MAX, "smsim: at most 64 --set options in a sweep");
        return -1;
    }
    for (int i = 0; i < p->nbase; i++)
        ov[n++] = p->base[i];
    memset(out, 0, sizeof *out);
    out->launch = *traced;
    for (int i = 0; i < p->nvars; i++) {
        const struct study_var *v = &p->vars[i];
        const char *val = v->values[idx[i]];
        if (v->kind == SK_CONFIG) {
            snprintf(texts[i], sizeof texts[i], "%s=%s", v->key, val);
            ov[n++].text = texts[i];
            continue;
        }
        int x;
        long lo = v->kind == SK_SMEM_DYNAMIC ? 0 : 1;
        long hi = v->kind == SK_REGS ? 255 : 2147483647L;
        if (int_value(val, lo, hi, &x)) {
            snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): %s: expected an "
                     "integer in %ld..%ld, got '%s'", point, label, v->key, lo, hi, val);
            return -1;
        }
        if (v->kind == SK_THREADS)
            out->launch.block[0] = (uint32_t)x;
        else if (v->kind == SK_REGS)
            out->launch.regs = x;
        else if (v->kind == SK_SMEM_DYNAMIC)
            out->launch.smem_dynamic = x;
        else
            out->blocks_per_sm_cap = x;
    }
    char aerr[ARCH_ERR_MAX];
    if (arch_load(p->config, ov, n, &out->a, aerr)) {
        /* "--set:N:C:" counts the base --set options first */
        snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): %s", point, label, aerr);
        return -1;
    }
    const struct tr_launch *l = &out->launch;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (threads > (uint64_t)out->a.max_threads_per_block) {
        snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): block of %llu threads "
                 "exceeds sm.max_threads_per_block (%d)", point, label,
                 (unsigned long long)threads, out->a.max_threads_per_block);
        return -1;
    }
    struct occ_launch ol;
    engine_occ_launch(l, p->carveout_pct, &ol);
    struct occ_result r;
    if (occ_compute(&out->a, &ol, &r) != 0 || r.blocks_per_sm < 1) {
        snprintf(err, STUDY_ERR_MAX, "smsim: sweep point %ld (%s): the launch cannot run: %s",
                 point, label, r.detail[0] ? r.detail : r.error ? r.error : "no block fits");
        return -1;
    }
    return 0;
}
