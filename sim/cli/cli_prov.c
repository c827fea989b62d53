/* cli_prov.c — provenance: what made an output.  Every JSON document a
 * subcommand writes carries a top-level "provenance" object, and every CSV
 * table the same fields as leading "# key: value" lines (pandas reads such a
 * file with read_csv(comment='#')), so a kept result says which smsim,
 * configuration, overrides, seed and trace produced it (docs/json.md).
 *
 * Nothing that may differ between two runs of the same inputs goes in: no
 * time, no host, no --threads or --jobs (the outputs are identical on any
 * thread count, and so is their provenance).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "report/report.h"
#include "smsim_describe.h" /* SMSIM_DESCRIBE, written by scripts/version.cmake */

const char *cli_prov_version(void)
{
    return SMSIM_DESCRIBE;
}

/* FNV-1a, 64 bits (offset basis and prime of the published definition). */
static uint64_t fnv1a64(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int cli_prov_hash(const struct arch *a, char out[CLI_PROV_HASH_MAX])
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    arch_print_yaml(a, f);
    if (fclose(f)) {
        free(buf);
        return -1;
    }
    snprintf(out, CLI_PROV_HASH_MAX, "fnv1a64:%016" PRIx64, fnv1a64(buf, len));
    free(buf);
    return 0;
}

int cli_prov_init(struct cli_prov *p, const char *subcommand, const struct cli_common *c,
                  const struct arch *a)
{
    memset(p, 0, sizeof *p);
    p->subcommand = subcommand;
    if (c) {
        p->config = c->config;
        p->ov = c->ov;
        p->nov = c->nov;
        p->has_seed = (c->has & CLI_C_SEED) != 0;
        p->seed = c->seed;
        p->trace = (c->has & CLI_C_POS) && c->pos_name && !strcmp(c->pos_name, "trace")
                       ? c->pos : NULL;
    }
    if (a && cli_prov_hash(a, p->config_hash))
        return -1;
    return 0;
}

void cli_prov_add(struct cli_prov *p, const char *key, const char *value)
{
    if (p->nextra < CLI_PROV_EXTRA) {
        p->extra[p->nextra][0] = key;
        p->extra[p->nextra][1] = value;
        p->nextra++;
    }
}

/* A value on a "# key: value" line: bytes below 0x20 and DEL as \xHH, so a
 * file name cannot end the comment line. */
static void csv_value(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\x%02X", ch);
        else
            fputc(ch, f);
    }
}

static void json_or_null(FILE *f, const char *s)
{
    if (s)
        report_json_string(f, s);
    else
        fputs("null", f);
}

/* The object, on one line: {"schema": 1, ...}. */
static void write_json(FILE *f, const struct cli_prov *p)
{
    fprintf(f, "{\"schema\": %d, \"smsim\": ", CLI_PROV_SCHEMA);
    report_json_string(f, SMSIM_DESCRIBE);
    fputs(", \"subcommand\": ", f);
    report_json_string(f, p->subcommand);
    fputs(", \"config_path\": ", f);
    json_or_null(f, p->config);
    fputs(", \"config_hash\": ", f);
    json_or_null(f, p->config_hash[0] ? p->config_hash : NULL);
    fputs(", \"overrides\": [", f);
    for (int i = 0; i < p->nov; i++) {
        if (i)
            fputs(", ", f);
        report_json_string(f, p->ov[i].text);
    }
    fputs("], \"seed\": ", f);
    if (p->has_seed)
        fprintf(f, "%" PRIu64, p->seed);
    else
        fputs("null", f);
    fputs(", \"trace\": ", f);
    json_or_null(f, p->trace);
    for (int i = 0; i < p->nextra; i++) {
        fputs(", ", f);
        report_json_string(f, p->extra[i][0]);
        fputs(": ", f);
        json_or_null(f, p->extra[i][1]);
    }
    fputc('}', f);
}

static void write_csv(FILE *f, const struct cli_prov *p)
{
    fprintf(f, "# schema: %d\n# smsim: %s\n# subcommand: %s\n", CLI_PROV_SCHEMA,
            SMSIM_DESCRIBE, p->subcommand);
    if (p->config) {
        fputs("# config_path: ", f);
        csv_value(f, p->config);
        fputc('\n', f);
    }
    if (p->config_hash[0])
        fprintf(f, "# config_hash: %s\n", p->config_hash);
    for (int i = 0; i < p->nov; i++) {
        fputs("# set: ", f);
        csv_value(f, p->ov[i].text);
        fputc('\n', f);
    }
    if (p->has_seed)
        fprintf(f, "# seed: %" PRIu64 "\n", p->seed);
    if (p->trace) {
        fputs("# trace: ", f);
        csv_value(f, p->trace);
        fputc('\n', f);
    }
    for (int i = 0; i < p->nextra; i++)
        if (p->extra[i][1]) {
            fprintf(f, "# %s: ", p->extra[i][0]);
            csv_value(f, p->extra[i][1]);
            fputc('\n', f);
        }
}

int cli_prov_apply(const struct cli_prov *p, int format, char **buf, size_t *len)
{
    if (format != REPORT_JSON && format != REPORT_CSV)
        return 0;
    /* every JSON document of smsim opens with "{\n" (tests/cli_prov.sh) */
    size_t skip = 0;
    if (format == REPORT_JSON) {
        if (*len < 2 || memcmp(*buf, "{\n", 2))
            return -1;
        skip = 2;
    }
    char *nb = NULL;
    size_t nl = 0;
    FILE *f = open_memstream(&nb, &nl);
    if (!f)
        return -1;
    if (format == REPORT_JSON) {
        fputs("{\n  \"provenance\": ", f);
        write_json(f, p);
        /* an object with nothing else ("{\n}") takes no comma */
        fputs(*len - skip > 0 && (*buf)[skip] != '}' ? ",\n" : "\n", f);
    } else {
        write_csv(f, p);
    }
    fwrite(*buf + skip, 1, *len - skip, f);
    if (fclose(f)) {
        free(nb);
        return -1;
    }
    free(*buf);
    *buf = nb;
    *len = nl;
    return 0;
}

void cli_prov_title(const struct cli_prov *p, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->nov && at + 1 < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s", i ? ", " : " [", p->ov[i].text);
        if (w < 0)
            break;
        at += (size_t)w < n - at ? (size_t)w : n - at - 1;
    }
    if (p->nov && at + 2 < n) {
        buf[at++] = ']';
        buf[at] = '\0';
    }
}
