/* report_source.c — --source-csv FILE: per-instruction counters in the shape
 * of Nsight Compute's Source page export (`ncu -i R --page source --csv
 * --print-source sass`), which `smsim compare --source` diffs.
 *
 * One row per static instruction, keyed by its address (tr_inst.pc) when the
 * trace gives one, else by its trace line: the warp-instructions issued
 * there ("Instructions Executed"), their active lanes ("Thread Instructions
 * Executed"), and the warp-cycles spent in each state while that instruction
 * was the warp's next one (engine_observer.inst_state: ncu's warp-state
 * sampling charges a sample to the sampled warp's PC the same way).  smsim's
 * "samples" are every resident warp at every cycle, so they are proportional
 * to ncu's (which samples at an interval), not equal; stall_selected is the
 * issue count (one selected cycle per issue).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

/* The key of the row for "no instruction" (a stream that ended without
 * EXIT), after every address and line. */
#define SRC_NONE (UINT64_MAX - 1)
#define SRC_LINE (UINT64_C(1) << 32) /* keys of rows without an address: line | this */

struct src_kernel {
    char name[128];                /* kernel name                               */
    struct report_source_row *rows;/* sorted by key                             */
    size_t n;                      /* rows                                      */
};

struct report_source {
    struct report_source_row *t;   /* the running kernel's open-addressing table */
    size_t cap;                    /* slots (a power of two), 0 = none yet       */
    size_t used;                   /* slots taken                                */
    int oom;                       /* the table could not grow                   */
    struct src_kernel *k;          /* finished kernels                           */
    size_t nk, capk;
};

/* ncu's stall columns of the Source page, in its order, and the state each
 * counts (-1: a reason smsim does not model, written as 0). */
static const struct {
    const char *col;
    int ws;
} src_cols[] = {
    { "stall_barrier", WS_BARRIER },          { "stall_branch_resolving", WS_BRANCH_RESOLVING },
    { "stall_dispatch", WS_DISPATCH_STALL },  { "stall_drain", WS_DRAIN },
    { "stall_imc", WS_IMC_MISS },             { "stall_lg", WS_LG_THROTTLE },
    { "stall_long_sb", WS_LONG_SCOREBOARD },  { "stall_math", WS_MATH_PIPE_THROTTLE },
    { "stall_membar", WS_MEMBAR },            { "stall_mio", WS_MIO_THROTTLE },
    { "stall_misc", -1 },                     { "stall_no_inst", WS_NO_INSTRUCTION },
    { "stall_not_selected", WS_NOT_SELECTED }, { "stall_selected", WS_SELECTED },
    { "stall_short_sb", WS_SHORT_SCOREBOARD }, { "stall_sleep", -1 },
    { "stall_tex", -1 },                      { "stall_wait", WS_WAIT },
};
enum { SRC_NCOLS = (int)(sizeof src_cols / sizeof src_cols[0]) };

int report_source_columns(void)
{
    return SRC_NCOLS;
}

const char *report_source_column(int i, int *ws)
{
    if (i < 0 || i >= SRC_NCOLS)
        return NULL;
    *ws = src_cols[i].ws;
    return src_cols[i].col;
}

struct report_source *report_source_new(void)
{
    return calloc(1, sizeof(struct report_source));
}

static uint64_t key_of(const struct tr_inst *in)
{
    if (!in)
        return SRC_NONE;
    return in->has_pc ? in->pc : SRC_LINE | in->line;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    uint64_t h = key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (cap - 1);
}

/* Slots hold key + 1 in .key (0 = empty) while the kernel runs. */
static struct report_source_row *find(struct report_source *s, const struct tr_inst *in)
{
    if (s->oom)
        return NULL;
    if (2 * (s->used + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        struct report_source_row *nt = calloc(nc, sizeof *nt);
        if (!nt) {
            s->oom = 1;
            return NULL;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->t[i].key) {
                size_t j = slot_of(s->t[i].key - 1, nc);
                while (nt[j].key)
                    j = (j + 1) & (nc - 1);
                nt[j] = s->t[i];
            }
        free(s->t);
        s->t = nt;
        s->cap = nc;
    }
    uint64_t key = key_of(in);
    size_t j = slot_of(key, s->cap);
    while (s->t[j].key && s->t[j].key != key + 1)
        j = (j + 1) & (s->cap - 1);
    struct report_source_row *r = &s->t[j];
    if (!r->key) {
        r->key = key + 1;
        s->used++;
        if (in) {
            r->has_pc = in->has_pc;
            r->pc = in->pc;
            r->line = in->line;
            snprintf(r->opcode, sizeof r->opcode, "%s", in->opcode);
        }
    }
    return r;
}

void report_source_issue(struct report_source *s, const struct tr_inst *in, uint32_t mask)
{
    struct report_source_row *r = find(s, in);
    if (!r)
        return;
    r->issued++;
    r->thread_inst += (uint64_t)tr_lanes(mask);
    r->state[WS_SELECTED]++;
}

void report_source_state(struct report_source *s, const struct tr_inst *in, int state,
                         uint64_t cycles)
{
    if (state < 0 || state >= WS_COUNT)
        return;
    struct report_source_row *r = find(s, in);
    if (r)
        r->state[state] += cycles;
}

static int cmp_row(const void *pa, const void *pb)
{
    const struct report_source_row *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

int report_source_end_kernel(struct report_source *s, const char *name)
{
    if (s->oom)
        return -1;
    if (s->nk == s->capk) {
        size_t c = s->capk ? 2 * s->capk : 4;
        struct src_kernel *q = realloc(s->k, c * sizeof *q);
        if (!q)
            return -1;
        s->k = q;
        s->capk = c;
    }
    struct report_source_row *rows = malloc((s->used ? s->used : 1) * sizeof *rows);
    if (!rows)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->t[i].key) {
            rows[n] = s->t[i];
            rows[n].key--;
            n++;
        }
    qsort(rows, n, sizeof *rows, cmp_row);
    struct src_kernel *k = &s->k[s->nk++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->rows = rows;
    k->n = n;
    free(s->t);
    s->t = NULL;
    s->cap = s->used = 0;
    return 0;
}

size_t report_source_kernels(const struct report_source *s)
{
    return s->nk;
}

const struct report_source_row *report_source_rows(const struct report_source *s, size_t kernel,
                                                   size_t *n)
{
    if (kernel >= s->nk) {
        *n = 0;
        return NULL;
    }
    *n = s->k[kernel].n;
    return s->k[kernel].rows;
}

static void qfield(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    report_csv_string(f, s, 1);
}

static void qnum(FILE *f, uint64_t v)
{
    fprintf(f, ",\"%llu\"", (unsigned long long)v);
}

int report_source_csv(const struct report_source *s, FILE *f)
{
    for (size_t i = 0; i < s->nk; i++) {
        const struct src_kernel *k = &s->k[i];
        /* ncu's first line names the kernel (and ends in a comma) */
        qfield(f, "Kernel Name", 1);
        qfield(f, k->name, 0);
        fputs(",\n", f);
        qfield(f, "Address", 1);
        qfield(f, "Source", 0);
        qfield(f, "Warp Stall Sampling (All Samples)", 0);
        qfield(f, "# Samples", 0);
        qfield(f, "Instructions Executed", 0);
        qfield(f, "Thread Instructions Executed", 0);
        for (int c = 0; c < SRC_NCOLS; c++)
            qfield(f, src_cols[c].col, 0);
        qfield(f, "Trace Line", 0);
        fputc('\n', f);
        for (size_t j = 0; j < k->n; j++) {
            const struct report_source_row *r = &k->rows[j];
            char addr[24];
            if (r->key == SRC_NONE || !r->has_pc)
                snprintf(addr, sizeof addr, "-");
            else
                snprintf(addr, sizeof addr, "0x%04x", r->pc);
            qfield(f, addr, 1);
            qfield(f, r->key == SRC_NONE ? "(stream ended without EXIT)" : r->opcode, 0);
            uint64_t all = 0;
            for (int st = 0; st < WS_COUNT; st++)
                all += r->state[st];
            qnum(f, all);
            qnum(f, all);
            qnum(f, r->issued);
            qnum(f, r->thread_inst);
            for (int c = 0; c < SRC_NCOLS; c++)
                qnum(f, src_cols[c].ws >= 0 ? r->state[src_cols[c].ws] : 0);
            if (r->key == SRC_NONE)
                fputs(",\"-\"\n", f);
            else
                fprintf(f, ",\"%u\"\n", r->line);
        }
    }
    return ferror(f) ? -1 : 0;
}

void report_source_free(struct report_source *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nk; i++)
        free(s->k[i].rows);
    free(s->k);
    free(s->t);
    free(s);
}
