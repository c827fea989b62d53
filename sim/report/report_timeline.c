/* report_timeline.c — --timeline FILE.json: warp states and block lifetimes
 * as Chrome trace-event JSON ("X" complete events), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.  pid = SM, tid = warp slot
 * (smsp * slots + slot), event name = warp state; blocks sit on extra tids
 * of their SM, one lane per concurrently resident block.  Kernels follow one
 * another on one time axis; a "kernels" process shows their spans.
 *
 * Size is bounded: only cycles [from, to) of the selected SMs and at most
 * max_events events are kept; the document's otherData says what was kept.
 * Times are integer SM cycles: ts and dur are in the format's microseconds,
 * one cycle each, so every viewer converts them exactly (Perfetto turns a
 * fractional microsecond into nanoseconds by rounding ts and dur
 * separately, which at 1.98 GHz made neighbouring slices overlap).
 * Consecutive intervals of one warp in one state are merged into one event.
 * The engine delivers intervals in its own stepping order (one warp's in
 * time order, SMs interleaved by epoch), so the writer sorts them (by SM,
 * track, start).  When max_events cuts the recording, the events kept are
 * the first delivered (deterministic: pictures run on one thread).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

enum { TL_BLOCK_TID = 1000 }; /* first tid of the block lanes of an SM */

struct tl_warp {
    uint64_t from, to;  /* global cycles [from, to)            */
    uint32_t block;     /* block index in its kernel           */
    uint32_t warp;      /* warp index in the block             */
    int sm;             /* SM (pid)                            */
    int tid;            /* warp slot within the SM             */
    int state;          /* enum warp_state                     */
};

struct tl_block {
    uint64_t from, to;  /* global cycles [from, to)            */
    uint32_t block;     /* block index in its kernel           */
    int sm;             /* SM (pid)                            */
    int kernel;         /* kernel ordinal                      */
};

struct tl_kernel {
    char name[128];     /* kernel name                         */
    uint64_t from, to;  /* global cycles                       */
};

struct report_timeline {
    struct report_timeline_opts o; /* limits (o.sms points into sms)   */
    int *sms;                      /* the recorded SMs, ascending      */
    int nsel;                      /* their count                      */
    int *sel;                      /* [sm_count]: index in sms, or -1  */
    double mhz;                    /* SM clock, cycles per microsecond */
    int smsps, slots;              /* slot layout per SM               */
    int sm_count;                  /* SMs of the GPU (pid of "kernels") */
    uint64_t offset;               /* global cycle of this kernel's 0  */
    int kernel;                    /* ordinal of the running kernel    */
    int truncated;                 /* max_events was reached           */
    struct tl_warp *w;             /* warp events                      */
    size_t nw, capw;
    struct tl_block *b;            /* block events                     */
    size_t nb, capb;
    struct tl_kernel *k;           /* kernel spans                     */
    size_t nk, capk;
    long *last;                    /* per (sm, smsp, slot): index into w of its
                                      last event this kernel, or -1       */
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static void forget_last(struct report_timeline *t)
{
    size_t n = (size_t)t->nsel * (size_t)t->smsps * (size_t)t->slots;
    for (size_t i = 0; i < n; i++)
        t->last[i] = -1;
}

struct report_timeline *report_timeline_new(const struct arch *a,
                                            const struct report_timeline_opts *o)
{
    struct report_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->o = *o;
    t->sm_count = a->sm_count > 0 ? a->sm_count : 0;
    t->sel = malloc(((size_t)t->sm_count + 1) * sizeof *t->sel);
    t->sms = malloc(((size_t)o->nsms + 1) * sizeof *t->sms);
    if (!t->sel || !t->sms) {
        free(t->sel);
        free(t->sms);
        free(t);
        return NULL;
    }
    for (int i = 0; i < t->sm_count; i++)
        t->sel[i] = -1;
    for (int i = 0; i < o->nsms; i++)
        if (o->sms[i] >= 0 && o->sms[i] < t->sm_count && t->sel[o->sms[i]] < 0) {
            t->sel[o->sms[i]] = t->nsel;
            t->sms[t->nsel++] = o->sms[i];
        }
    t->o.sms = t->sms;
    t->o.nsms = t->nsel;
    t->mhz = a->sm_clock_mhz > 0 ? a->sm_clock_mhz : 1.0;
    t->smsps = a->subpartitions > 0 ? a->subpartitions : 1;
    t->slots = (a->max_warps_per_sm + t->smsps - 1) / t->smsps;
    if (t->slots < 1)
        t->slots = 1;
    size_t n = (size_t)t->nsel * (size_t)t->smsps * (size_t)t->slots;
    t->last = malloc((n ? n : 1) * sizeof *t->last);
    if (!t->last) {
        free(t->sel);
        free(t->sms);
        free(t);
        return NULL;
    }
    forget_last(t);
    return t;
}

uint64_t report_timeline_until(const struct report_timeline *t)
{
    return t->o.to > t->offset ? t->o.to - t->offset : 1;
}

static int room(struct report_timeline *t)
{
    if (t->nw + t->nb >= t->o.max_events) {
        t->truncated = 1;
        return 0;
    }
    return 1;
}

void report_timeline_warp_state(struct report_timeline *t, int sm, int smsp, int slot,
                                uint32_t block, uint32_t warp, uint64_t from,
                                uint64_t to, int state)
{
    if (sm < 0 || sm >= t->sm_count || t->sel[sm] < 0 || smsp < 0 || smsp >= t->smsps ||
        slot < 0 || slot >= t->slots || to <= from)
        return;
    from += t->offset;
    to += t->offset;
    if (from >= t->o.to || to <= t->o.from)
        return;
    if (from < t->o.from)
        from = t->o.from;
    if (to > t->o.to)
        to = t->o.to;
    int tid = smsp * t->slots + slot;
    long *last = &t->last[((size_t)t->sel[sm] * (size_t)t->smsps + (size_t)smsp) *
                          (size_t)t->slots + (size_t)slot];
    if (*last >= 0) {
        struct tl_warp *e = &t->w[*last];
        if (e->to == from && e->state == state && e->block == block && e->warp == warp) {
            e->to = to;
            return;
        }
    }
    if (!room(t) || grow((void **)&t->w, &t->capw, t->nw + 1, sizeof *t->w)) {
        t->truncated = 1;
        return;
    }
    t->w[t->nw] = (struct tl_warp){ from, to, block, warp, sm, tid, state };
    *last = (long)t->nw++;
}

void report_timeline_block_life(struct report_timeline *t, int sm, uint32_t block,
                                uint64_t from, uint64_t to)
{
    if (sm < 0 || sm >= t->sm_count || t->sel[sm] < 0 || to <= from)
        return;
    from += t->offset;
    to += t->offset;
    if (from >= t->o.to || to <= t->o.from)
        return;
    if (from < t->o.from)
        from = t->o.from;
    if (to > t->o.to)
        to = t->o.to;
    if (!room(t) || grow((void **)&t->b, &t->capb, t->nb + 1, sizeof *t->b)) {
        t->truncated = 1;
        return;
    }
    t->b[t->nb++] = (struct tl_block){ from, to, block, sm, t->kernel };
}

void report_timeline_end_kernel(struct report_timeline *t, const char *name,
                                uint64_t cycles)
{
    if (grow((void **)&t->k, &t->capk, t->nk + 1, sizeof *t->k) == 0) {
        struct tl_kernel *k = &t->k[t->nk++];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->from = t->offset;
        k->to = t->offset + cycles;
    } else {
        t->truncated = 1;
    }
    t->offset += cycles;
    t->kernel++;
    forget_last(t);
}

/* Blocks by SM, then start, then kernel and index: a total order, so the
 * lane assignment below is deterministic. */
static int cmp_block(const void *pa, const void *pb)
{
    const struct tl_block *a = pa, *b = pb;
    if (a->sm != b->sm) return a->sm < b->sm ? -1 : 1;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->kernel != b->kernel) return a->kernel < b->kernel ? -1 : 1;
    if (a->block != b->block) return a->block < b->block ? -1 : 1;
    return a->to < b->to ? -1 : a->to > b->to;
}

/* Warp events by SM, track (tid), then start: one track at a time, in
 * time order.  (One track's events never share a start.) */
static int cmp_warp(const void *pa, const void *pb)
{
    const struct tl_warp *a = pa, *b = pb;
    if (a->sm != b->sm) return a->sm < b->sm ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

/* A time: whole cycles, one per trace-event microsecond. */
static void us(FILE *f, const struct report_timeline *t, uint64_t cycles)
{
    (void)t;
    fprintf(f, "%llu", (unsigned long long)cycles);
}

static void meta(FILE *f, int *first, const char *what, int pid, int tid, const char *name)
{
    fprintf(f, "%s    {\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
            *first ? "" : ",\n", what, pid, tid);
    report_json_string(f, name);
    fputs("}}", f);
    *first = 0;
}

int report_timeline_write(const struct report_timeline *t, const char *config, FILE *f)
{
    struct tl_block *b = NULL;
    struct tl_warp *w = NULL;
    if (t->nb) {
        b = malloc(t->nb * sizeof *b);
        if (!b)
            return -1;
        memcpy(b, t->b, t->nb * sizeof *b);
        qsort(b, t->nb, sizeof *b, cmp_block);
    }
    if (t->nw) {
        w = malloc(t->nw * sizeof *w);
        if (!w) {
            free(b);
            return -1;
        }
        memcpy(w, t->w, t->nw * sizeof *w);
        qsort(w, t->nw, sizeof *w, cmp_warp);
    }
    int kpid = t->sm_count; /* the "kernels" process follows every SM */
    fputs("{\n  \"traceEvents\": [\n", f);
    int first = 1;
    char name[64];
    for (int i = 0; i < t->nsel; i++) {
        int sm = t->sms[i];
        snprintf(name, sizeof name, "SM %d", sm);
        meta(f, &first, "process_name", sm, 0, name);
        for (int p = 0; p < t->smsps; p++)
            for (int s = 0; s < t->slots; s++) {
                snprintf(name, sizeof name, "SMSP %d warp slot %d", p, s);
                meta(f, &first, "thread_name", sm, p * t->slots + s, name);
            }
    }
    meta(f, &first, "process_name", kpid, 0, "kernels");
    for (size_t i = 0; i < t->nk; i++) {
        uint64_t kf = t->k[i].from > t->o.from ? t->k[i].from : t->o.from;
        uint64_t kt = t->k[i].to < t->o.to ? t->k[i].to : t->o.to;
        if (kt <= kf)
            continue; /* outside the window */
        fprintf(f, "%s    {\"name\": ", first ? "" : ",\n");
        first = 0;
        report_json_string(f, t->k[i].name);
        fprintf(f, ", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": %d, \"tid\": 0, \"ts\": ", kpid);
        us(f, t, kf);
        fputs(", \"dur\": ", f);
        us(f, t, kt - kf);
        fprintf(f, ", \"args\": {\"kernel\": %zu, \"cycle\": %llu, \"cycles\": %llu}}", i,
                (unsigned long long)t->k[i].from,
                (unsigned long long)(t->k[i].to - t->k[i].from));
    }
    for (size_t i = 0; i < t->nw; i++) {
        const struct tl_warp *e = &w[i];
        fprintf(f, ",\n    {\"name\": \"%s\", \"cat\": \"warp\", \"ph\": \"X\", \"pid\": %d, "
                "\"tid\": %d, \"ts\": ", stats_state_name(e->state), e->sm, e->tid);
        us(f, t, e->from);
        fputs(", \"dur\": ", f);
        us(f, t, e->to - e->from);
        fprintf(f, ", \"args\": {\"block\": %u, \"warp\": %u, \"cycle\": %llu, \"cycles\": %llu}}",
                e->block, e->warp, (unsigned long long)e->from,
                (unsigned long long)(e->to - e->from));
    }
    /* Greedy lanes: a block takes the lowest lane of its SM free at its start. */
    uint64_t *lane_end = NULL;
    size_t nlanes = 0, caplanes = 0;
    int lane_sm = -1;
    int ok = 0;
    for (size_t i = 0; i < t->nb; i++) {
        if (b[i].sm != lane_sm) {
            lane_sm = b[i].sm;
            nlanes = 0;
        }
        size_t lane = 0;
        while (lane < nlanes && lane_end[lane] > b[i].from)
            lane++;
        if (lane == nlanes) {
            if (grow((void **)&lane_end, &caplanes, nlanes + 1, sizeof *lane_end))
                goto out;
            nlanes++;
        }
        lane_end[lane] = b[i].to;
        fprintf(f, ",\n    {\"name\": \"block %u\", \"cat\": \"block\", \"ph\": \"X\", "
                "\"pid\": %d, \"tid\": %zu, \"ts\": ", b[i].block, b[i].sm, TL_BLOCK_TID + lane);
        us(f, t, b[i].from);
        fputs(", \"dur\": ", f);
        us(f, t, b[i].to - b[i].from);
        fprintf(f, ", \"args\": {\"kernel\": %d, \"block\": %u, \"cycle\": %llu, \"cycles\": %llu}}",
                b[i].kernel, b[i].block, (unsigned long long)b[i].from,
                (unsigned long long)(b[i].to - b[i].from));
    }
    fputs("\n  ],\n  \"otherData\": {\n    \"generator\": \"smsim\",\n    \"config\": ", f);
    report_json_string(f, config);
    fprintf(f, ",\n    \"time_unit\": \"ts and dur in SM cycles (one cycle per trace-event "
            "microsecond; the SM clock is %.3f MHz); args.cycle: the event's first cycle\",\n"
            "    \"sm_clock_mhz\": %.3f,\n"
            "    \"recorded\": \"cycles %llu..%llu of the selected SMs (--timeline-from, "
            "--timeline-to, --timeline-sms)\",\n"
            "    \"from\": %llu,\n    \"to\": %llu,\n    \"sms\": [",
            t->mhz, t->mhz, (unsigned long long)t->o.from,
            (unsigned long long)(t->o.to ? t->o.to - 1 : 0), (unsigned long long)t->o.from,
            (unsigned long long)t->o.to);
    for (int i = 0; i < t->nsel; i++)
        fprintf(f, "%s%d", i ? ", " : "", t->sms[i]);
    fprintf(f, "],\n    \"max_events\": %zu,\n    \"truncated\": %s", t->o.max_events,
            t->truncated ? "true" : "false");
    fputs("\n  }\n}\n", f);
    ok = 1;
out:
    free(lane_end);
    free(w);
    free(b);
    if (!ok)
        return -1;
    return ferror(f) ? -1 : 0;
}

void report_timeline_free(struct report_timeline *t)
{
    if (!t)
        return;
    free(t->w);
    free(t->b);
    free(t->k);
    free(t->last);
    free(t->sel);
    free(t->sms);
    free(t);
}
