/* cli_compare_source.c — `smsim compare --source NCU.csv --config X TRACE`:
 * simulate one kernel with per-instruction counters (report_source.c) and
 * put them next to ncu's Source page export, row by row, joined by the
 * instruction's offset in the kernel's code (ncu's address minus its first
 * row's, against the trace's /\*ADDR*\/ addresses; the opcodes must agree).
 * Issued counts are compared exactly; stall samples as shares of the
 * kernel's samples (ncu samples at an interval, smsim counts every
 * warp-cycle).  docs/validation.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "ncu/ncu_source.h"
#include "report/report.h"
#include "stats/stats.h"
#include "trace/trace.h"

/* One joined instruction. */
struct srow {
    uint64_t off;              /* offset in the kernel's code                 */
    char opcode[48];           /* from ncu's Source cell                      */
    double n_issued;           /* ncu's Instructions Executed                 */
    double n_samples;          /* ncu's samples (all)                         */
    double n_state[WS_COUNT];  /* ncu's samples per modelled state            */
    const struct report_source_row *s; /* smsim's row, or NULL (never issued) */
};

static void src_observe_issue(void *ud, const struct tr_inst *in, uint32_t mask)
{
    report_source_issue(ud, in, mask);
}

static void src_observe_state(void *ud, const struct tr_inst *in, int state, uint64_t cycles)
{
    report_source_state(ud, in, state, cycles);
}

/* Opcode of an ncu "Source" cell: "  @P0 BRA 0x7f..." -> "BRA". */
static void cell_opcode(const char *s, char *op, size_t n)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '@') {
        while (*s && *s != ' ' && *s != '\t')
            s++;
        while (*s == ' ' || *s == '\t')
            s++;
    }
    size_t k = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != ';' && k + 1 < n)
        op[k++] = *s++;
    op[k] = '\0';
}

static uint64_t samples_of(const struct report_source_row *r)
{
    uint64_t a = 0;
    for (int s = 0; s < WS_COUNT; s++)
        a += r->state[s];
    return a;
}

/* The state with most samples other than selected, or -1 when none. */
static int top_stall(const double *v)
{
    int best = -1;
    for (int s = 0; s < WS_COUNT; s++)
        if (s != WS_SELECTED && v[s] > 0 && (best < 0 || v[s] > v[best]))
            best = s;
    return best;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

int cli_compare_source(const struct cli_common *c, const char *source)
{
    struct arch arch;
    struct ncu_table t;
    int have_t = 0;
    struct trace_file *tf = NULL;
    struct report_source *rs = NULL;
    struct srow *rows = NULL;
    char *rep = NULL;
    size_t replen = 0;
    char kname[256], err[NCU_ERR_MAX];
    int rc = 1;
    const char *const outs[][2] = { { "-o", c->out } };
    const char *const ins[][2] = { { "input trace", c->pos }, { "configuration", c->config },
                                   { "ncu Source CSV", source } };
    if (cli_check_outputs(outs, 1, ins, 3))
        goto done;
    if (cli_load_arch(c->config, c->ov, c->nov, &arch))
        goto done;
    if (ncu_source_load(source, &t, kname, err)) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    have_t = 1;
    int acol = ncu_col(&t, "Address"), scol = ncu_col(&t, "Source");
    int ecol = ncu_col(&t, "Instructions Executed");
    int wcol = ncu_col(&t, "Warp Stall Sampling (All Samples)");
    if (scol < 0 || ecol < 0 || wcol < 0) {
        fprintf(stderr, "smsim: %s: no '%s' column (export the SourceCounters section: ncu -i R "
                "--page source --csv --print-source sass)\n", source,
                scol < 0 ? "Source" : ecol < 0 ? "Instructions Executed"
                                               : "Warp Stall Sampling (All Samples)");
        goto done;
    }
    if (t.nrows == 0) {
        fprintf(stderr, "smsim: %s: no instruction rows\n", source);
        goto done;
    }
    char terr[TRACE_ERR_MAX];
    tf = trace_open(c->pos, terr);
    if (!tf) {
        fprintf(stderr, "%s\n", terr);
        goto done;
    }
    int kernel = c->kernel;
    if (cli_pick_kernel(c->pos, tf->nkernels, &kernel))
        goto done;
    struct trace_kernel *k = tf->kernels[kernel];
    rc = 2;
    rs = report_source_new();
    rows = calloc((size_t)t.nrows, sizeof *rows);
    if (!rs || !rows)
        goto nomem;
    struct engine_observer obs = { rs, NULL, NULL, 0, src_observe_issue, src_observe_state };
    struct engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.seed = c->seed;
    eo.blocks_per_sm_cap = c->cap;
    eo.carveout_pct = c->carveout;
    eo.threads = c->threads;
    eo.obs = &obs;
    struct stats_kernel st;
    char eerr[512];
    if (engine_run(&arch, k, &eo, &st, eerr)) {
        stats_kernel_free(&st);
        fprintf(stderr, "smsim: %s: kernel %d: %s\n", c->pos, kernel, eerr);
        rc = 1;
        goto done;
    }
    stats_kernel_free(&st);
    if (report_source_end_kernel(rs, k->launch.name))
        goto nomem;
    size_t ns;
    const struct report_source_row *sr = report_source_rows(rs, 0, &ns);
    rc = 1;
    int any_pc = 0;
    for (size_t i = 0; i < ns; i++)
        any_pc |= sr[i].has_pc;
    if (!any_pc) {
        fprintf(stderr, "smsim: %s: the trace gives no instruction addresses (a '/*ADDR*/' "
                "comment before each instruction, as sass2trace writes it), so its "
                "instructions cannot be joined with %s\n", c->pos, source);
        goto done;
    }
    /* join: ncu's rows in their order, by offset from the first address */
    uint64_t base = 0;
    double n_total = 0, s_total = 0;
    for (int i = 0; i < t.nrows; i++) {
        const char *a = ncu_cell(&t, i, acol);
        char *end = NULL;
        unsigned long long v = a ? strtoull(a, &end, 16) : 0;
        if (!a || end == a || *end) {
            fprintf(stderr, "%s:%d:%d: Address '%s' is not a hexadecimal address\n", source,
                    t.line[(size_t)i * (size_t)t.ncols + (size_t)acol],
                    t.col[(size_t)i * (size_t)t.ncols + (size_t)acol], a ? a : "");
            goto done;
        }
        if (i == 0)
            base = v;
        if (v < base) {
            fprintf(stderr, "%s:%d:1: address %s is below the first row's (not one kernel's "
                    "code in address order)\n", source,
                    t.line[(size_t)i * (size_t)t.ncols], a);
            goto done;
        }
        struct srow *r = &rows[i];
        r->off = v - base;
        cell_opcode(ncu_cell(&t, i, scol), r->opcode, sizeof r->opcode);
        const char *e = ncu_cell(&t, i, ecol);
        if (!ncu_parse_number(e ? e : "", &r->n_issued))
            r->n_issued = 0; /* "-" or empty: never executed */
        const char *w = ncu_cell(&t, i, wcol);
        if (!ncu_parse_number(w ? w : "", &r->n_samples))
            r->n_samples = 0;
        for (int col = 0; col < report_source_columns(); col++) {
            int ws;
            const char *name = report_source_column(col, &ws);
            int cc = ncu_col(&t, name);
            double v2;
            const char *cell = cc >= 0 ? ncu_cell(&t, i, cc) : NULL;
            if (ws >= 0 && cell && ncu_parse_number(cell, &v2))
                r->n_state[ws] += v2;
        }
        n_total += r->n_samples;
        for (size_t j = 0; j < ns; j++)
            if (sr[j].has_pc && sr[j].pc == r->off)
                r->s = &sr[j];
        if (r->s) {
            size_t l = strlen(r->s->opcode);
            int same = l + 1 == sizeof r->s->opcode ? !strncmp(r->s->opcode, r->opcode, l)
                                                     : !strcmp(r->s->opcode, r->opcode);
            if (!same) {
                fprintf(stderr, "smsim: offset 0x%04llx is '%s' in %s but '%s' in %s:%u "
                        "(another kernel or binary?)\n", (unsigned long long)r->off, r->opcode,
                        source, r->s->opcode, c->pos, r->s->line);
                goto done;
            }
        }
    }
    for (size_t j = 0; j < ns; j++) {
        int found = 0;
        for (int i = 0; i < t.nrows && !found; i++)
            found = rows[i].s == &sr[j];
        if (!found && sr[j].issued) {
            if (sr[j].has_pc)
                fprintf(stderr, "smsim: %s:%u: offset 0x%04x ('%s') is not in %s (another "
                        "kernel?)\n", c->pos, sr[j].line, sr[j].pc, sr[j].opcode, source);
            else
                fprintf(stderr, "smsim: %s:%u: '%s' has no address, so it cannot be joined "
                        "with %s\n", c->pos, sr[j].line, sr[j].opcode, source);
            goto done;
        }
        s_total += (double)samples_of(&sr[j]);
    }

    /* totals and the summary */
    int agree = 0;
    double n_iss = 0, s_iss = 0, n_st[WS_COUNT] = { 0 }, s_st[WS_COUNT] = { 0 };
    for (int i = 0; i < t.nrows; i++) {
        const struct srow *r = &rows[i];
        double si = r->s ? (double)r->s->issued : 0;
        agree += si == r->n_issued;
        n_iss += r->n_issued;
        s_iss += si;
        for (int s = 0; s < WS_COUNT; s++) {
            n_st[s] += r->n_state[s];
            s_st[s] += r->s ? (double)r->s->state[s] : 0;
        }
    }
    rc = 2;
    FILE *f = open_memstream(&rep, &replen);
    if (!f)
        goto nomem;
    if (c->format == REPORT_TEXT) {
        fprintf(f, "%s: kernel %d '%s' (smsim, Config %s) vs ncu Source '%s' (%s)\n", c->pos,
                kernel, k->launch.name, arch.name, kname, source);
        fprintf(f, "  issued: %d of %d instructions agree exactly (smsim %.0f, ncu %.0f "
                   "warp-instructions)\n", agree, t.nrows, s_iss, n_iss);
        fputs("  stall reasons, % of the kernel's samples (smsim: warp-cycles; ncu: samples):\n",
              f);
        for (int s = 0; s < WS_COUNT; s++)
            if (s_st[s] > 0 || n_st[s] > 0)
                fprintf(f, "    %-20s %6.1f %6.1f\n", stats_state_name(s), pct(s_st[s], s_total),
                        pct(n_st[s], n_total));
        fprintf(f, "\n  %-8s %-16s %12s %12s %9s %9s  %-18s %s\n", "Address", "Opcode",
                "Issued", "ncu", "Samples%", "ncu", "Top stall", "ncu");
        for (int i = 0; i < t.nrows; i++) {
            const struct srow *r = &rows[i];
            double sv[WS_COUNT] = { 0 };
            for (int s = 0; s < WS_COUNT && r->s; s++)
                sv[s] = (double)r->s->state[s];
            int ts = top_stall(sv), tn = top_stall(r->n_state);
            char addr[24];
            snprintf(addr, sizeof addr, "0x%04llx", (unsigned long long)r->off);
            fprintf(f, "  %-8s %-16.16s %12.0f %12.0f %9.2f %9.2f  %-18s %s%s\n", addr,
                    r->opcode, r->s ? (double)r->s->issued : 0, r->n_issued,
                    pct(r->s ? (double)samples_of(r->s) : 0, s_total),
                    pct(r->n_samples, n_total), ts >= 0 ? stats_state_name(ts) : "-",
                    tn >= 0 ? stats_state_name(tn) : "-",
                    (r->s ? (double)r->s->issued : 0) == r->n_issued ? "" : "  (issued differ)");
        }
    } else if (c->format == REPORT_JSON) {
        fputs("{\n  \"config\": ", f);
        report_json_string(f, arch.name);
        fputs(",\n  \"trace\": ", f);
        report_json_string(f, c->pos);
        fprintf(f, ",\n  \"kernel\": %d,\n  \"name\": ", kernel);
        report_json_string(f, k->launch.name);
        fputs(",\n  \"ncu_source\": ", f);
        report_json_string(f, source);
        fputs(",\n  \"ncu_kernel\": ", f);
        report_json_string(f, kname);
        fprintf(f, ",\n  \"issued_agree\": %d,\n  \"instructions\": %d,\n  \"stall_pct\": {",
                agree, t.nrows);
        for (int s = 0; s < WS_COUNT; s++) {
            fprintf(f, "%s\n    \"%s\": {\"smsim\": ", s ? "," : "", stats_state_name(s));
            report_json_number(f, pct(s_st[s], s_total));
            fputs(", \"ncu\": ", f);
            report_json_number(f, pct(n_st[s], n_total));
            fputc('}', f);
        }
        fputs("\n  },\n  \"rows\": [", f);
        for (int i = 0; i < t.nrows; i++) {
            const struct srow *r = &rows[i];
            fprintf(f, "%s\n    {\"address\": \"0x%04llx\", \"opcode\": ", i ? "," : "",
                    (unsigned long long)r->off);
            report_json_string(f, r->opcode);
            fputs(", \"issued\": ", f);
            report_json_number(f, r->s ? (double)r->s->issued : 0);
            fputs(", \"issued_ncu\": ", f);
            report_json_number(f, r->n_issued);
            fputs(", \"samples_pct\": ", f);
            report_json_number(f, pct(r->s ? (double)samples_of(r->s) : 0, s_total));
            fputs(", \"samples_pct_ncu\": ", f);
            report_json_number(f, pct(r->n_samples, n_total));
            fputc('}', f);
        }
        fputs("\n  ]\n}\n", f);
    } else {
        fputs("\"Address\",\"Opcode\",\"Issued\",\"Issued ncu\",\"Samples %\",\"Samples % ncu\","
              "\"Top stall\",\"Top stall ncu\"\n", f);
        for (int i = 0; i < t.nrows; i++) {
            const struct srow *r = &rows[i];
            double sv[WS_COUNT] = { 0 };
            for (int s = 0; s < WS_COUNT && r->s; s++)
                sv[s] = (double)r->s->state[s];
            int ts = top_stall(sv), tn = top_stall(r->n_state);
            char num[4][REPORT_NUM_MAX];
            report_format_number(num[0], r->s ? (double)r->s->issued : 0);
            report_format_number(num[1], r->n_issued);
            report_format_number(num[2], pct(r->s ? (double)samples_of(r->s) : 0, s_total));
            report_format_number(num[3], pct(r->n_samples, n_total));
            fprintf(f, "\"0x%04llx\",", (unsigned long long)r->off);
            report_csv_string(f, r->opcode, 1);
            fprintf(f, ",\"%s\",\"%s\",\"%s\",\"%s\",\"%s\",\"%s\"\n", num[0], num[1], num[2],
                    num[3], ts >= 0 ? stats_state_name(ts) : "",
                    tn >= 0 ? stats_state_name(tn) : "");
        }
    }
    if (fclose(f))
        goto nomem;
    struct cli_prov prov;
    if (cli_prov_init(&prov, "compare", c, &arch))
        goto nomem;
    cli_prov_add(&prov, "ncu_source_csv", source);
    if (cli_prov_apply(&prov, c->format, &rep, &replen))
        goto nomem;
    rc = cli_write_out(c->out, rep, replen, "comparison");
    goto done;
nomem:
    fputs("smsim: out of memory\n", stderr);
    rc = 2;
done:
    free(rep);
    free(rows);
    report_source_free(rs);
    if (tf)
        trace_close(tf);
    if (have_t)
        ncu_table_free(&t);
    return rc;
}
