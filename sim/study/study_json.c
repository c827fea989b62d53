/* study_json.c — read a JSON file into a small tree (merge reads job outputs
 * and manifests).  JSON as smsim writes it is valid YAML flow syntax, so
 * libyaml (already a dependency) does the lexing; quoted scalars are
 * strings, plain ones null/true/false/numbers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "study/study.h"

void study_json_free(struct study_json *j)
{
    if (!j)
        return;
    for (int i = 0; i < j->n; i++) {
        study_json_free(&j->kids[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->kids);
    free(j->keys);
    free(j->str);
    memset(j, 0, sizeof *j);
}

const struct study_json *study_json_get(const struct study_json *j, const char *key)
{
    if (!j || j->type != SJ_OBJECT)
        return NULL;
    for (int i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key))
            return &j->kids[i];
    return NULL;
}

struct reader {
    yaml_parser_t p;              /* libyaml parser                            */
    const char *path;             /* for messages                              */
    char *err;                    /* message buffer                            */
    int depth;                    /* nesting, bounded                          */
};

static int fail_at(struct reader *r, const yaml_mark_t *m, const char *msg)
{
    snprintf(r->err, STUDY_ERR_MAX, "%s:%zu:%zu: %s", r->path, m->line + 1, m->column + 1, msg);
    return -1;
}

static int next_event(struct reader *r, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&r->p, ev)) {
        snprintf(r->err, STUDY_ERR_MAX, "%s:%zu:%zu: not valid JSON: %s", r->path,
                 r->p.problem_mark.line + 1, r->p.problem_mark.column + 1,
                 r->p.problem ? r->p.problem : "syntax error");
        return -1;
    }
    return 0;
}

static int add_kid(struct study_json *j, char *key, struct study_json *kid)
{
    struct study_json *k = realloc(j->kids, (size_t)(j->n + 1) * sizeof *k);
    if (!k)
        return -1;
    j->kids = k;
    if (j->type == SJ_OBJECT) {
        char **ks = realloc(j->keys, (size_t)(j->n + 1) * sizeof *ks);
        if (!ks)
            return -1;
        j->keys = ks;
        ks[j->n] = key;
    }
    k[j->n++] = *kid;
    return 0;
}

/* Parse the value starting with event ev (consumed). */
static int value(struct reader *r, yaml_event_t *ev, struct study_json *out)
{
    memset(out, 0, sizeof *out);
    if (++r->depth > 64) {
        yaml_event_delete(ev);
        return fail_at(r, &ev->start_mark, "nested too deeply");
    }
    int rc = 0;
    if (ev->type == YAML_SCALAR_EVENT) {
        const char *s = (const char *)ev->data.scalar.value;
        if (ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
            ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE) {
            out->type = SJ_STRING;
        } else if (!strcmp(s, "null")) {
            out->type = SJ_NULL;
        } else if (!strcmp(s, "true") || !strcmp(s, "false")) {
            out->type = SJ_BOOL;
            out->num = s[0] == 't';
        } else {
            char *end;
            errno = 0;
            out->type = SJ_NUMBER;
            out->num = strtod(s, &end);
            if (*end || end == s)
                rc = fail_at(r, &ev->start_mark, "expected a number, string, null or boolean");
        }
        if (!rc && !(out->str = strdup(s)))
            rc = fail_at(r, &ev->start_mark, "out of memory");
        yaml_event_delete(ev);
    } else if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
        int obj = ev->type == YAML_MAPPING_START_EVENT;
        out->type = obj ? SJ_OBJECT : SJ_ARRAY;
        yaml_event_delete(ev);
        for (;;) {
            yaml_event_t e;
            if (next_event(r, &e)) {
                rc = -1;
                break;
            }
            if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&e);
                break;
            }
            char *key = NULL;
            if (obj) {
                if (e.type != YAML_SCALAR_EVENT) {
                    rc = fail_at(r, &e.start_mark, "expected a member name");
                    yaml_event_delete(&e);
                    break;
                }
                key = strdup((const char *)e.data.scalar.value);
                yaml_event_delete(&e);
                if (!key || next_event(r, &e)) {
                    free(key);
                    rc = -1;
                    break;
                }
            }
            struct study_json kid;
            if (value(r, &e, &kid) || add_kid(out, key, &kid)) {
                study_json_free(&kid);
                free(key);
                rc = -1;
                break;
            }
        }
    } else {
        rc = fail_at(r, &ev->start_mark, "expected a JSON value");
        yaml_event_delete(ev);
    }
    r->depth--;
    if (rc)
        study_json_free(out);
    return rc;
}

int study_json_load(const char *path, struct study_json *out, char err[STUDY_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, STUDY_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct reader r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.err = err;
    yaml_parser_initialize(&r.p);
    yaml_parser_set_input_file(&r.p, f);
    yaml_event_t ev;
    int rc = -1;
    /* stream start, document start, value, document end */
    if (next_event(&r, &ev))
        goto done;
    yaml_event_delete(&ev);
    if (next_event(&r, &ev))
        goto done;
    if (ev.type != YAML_DOCUMENT_START_EVENT) {
        fail_at(&r, &ev.start_mark, "empty file (expected a JSON document)");
        yaml_event_delete(&ev);
        goto done;
    }
    yaml_event_delete(&ev);
    if (next_event(&r, &ev))
        goto done;
    if (ev.type != YAML_MAPPING_START_EVENT && ev.type != YAML_SEQUENCE_START_EVENT) {
        fail_at(&r, &ev.start_mark, "expected a JSON object");
        yaml_event_delete(&ev);
        goto done;
    }
    rc = value(&r, &ev, out);
done:
    yaml_parser_delete(&r.p);
    fclose(f);
    return rc;
}
