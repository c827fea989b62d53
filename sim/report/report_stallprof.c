/* report_stallprof.c — --stall-profile BIN: the warp states over time.
 *
 * Every state interval the engine reports ([from, to) of one warp in one
 * state, engine_observer.warp_state over the whole run) is cut at the bin
 * edges and added to its bins, so bin b of a kernel holds, per state, the
 * warp-cycles its resident warps spent in that state within cycles
 * [b*BIN, (b+1)*BIN), summed over every SM.  A bin's states therefore add
 * up to (resident warps x cycles) of that bin, and a kernel's bins to the
 * report's stall totals (the same intervals feed stats_smsp.state[]).
 *
 * Written as CSV (one row per bin, columns named as ncu names the stall
 * reasons, stats_state_name) and as a stacked-area SVG drawn here (no
 * external tool): average warps per SM in each state, kernels back to back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

struct sp_kernel {
    char name[128];          /* kernel name                                   */
    uint64_t cycles;         /* its elapsed cycles                            */
    size_t nbins;            /* bins of BIN cycles covering [0, cycles)       */
    uint64_t *c;             /* [nbins * WS_COUNT] warp-cycles per bin, state */
};

struct report_stallprof {
    uint64_t bin;            /* cycles per bin                                */
    int sm_count;            /* SMs of the GPU (the SVG's per-SM average)     */
    uint64_t *cur;           /* the running kernel's bins                     */
    size_t ncur, capcur;     /* bins used / allocated                         */
    int oom;                 /* a bin could not be allocated                  */
    struct sp_kernel *k;     /* finished kernels                              */
    size_t nk, capk;
};

struct report_stallprof *report_stallprof_new(const struct arch *a, uint64_t bin)
{
    struct report_stallprof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->bin = bin ? bin : 1;
    p->sm_count = a->sm_count > 0 ? a->sm_count : 1;
    return p;
}

/* Bins [0, n) of the running kernel exist (new ones zero); 0 or -1. */
static int cur_bins(struct report_stallprof *p, size_t n)
{
    if (n <= p->ncur)
        return 0;
    if (n > p->capcur) {
        size_t c = p->capcur ? p->capcur : 64;
        while (c < n)
            c *= 2;
        uint64_t *q = realloc(p->cur, c * WS_COUNT * sizeof *q);
        if (!q)
            return -1;
        p->cur = q;
        p->capcur = c;
    }
    memset(p->cur + p->ncur * WS_COUNT, 0, (n - p->ncur) * WS_COUNT * sizeof *p->cur);
    p->ncur = n;
    return 0;
}

void report_stallprof_warp_state(struct report_stallprof *p, uint64_t from, uint64_t to,
                                 int state)
{
    if (to <= from || state < 0 || state >= WS_COUNT || p->oom)
        return;
    size_t last = (size_t)((to - 1) / p->bin);
    if (cur_bins(p, last + 1)) {
        p->oom = 1;
        return;
    }
    for (size_t b = (size_t)(from / p->bin); b <= last; b++) {
        uint64_t lo = (uint64_t)b * p->bin, hi = lo + p->bin;
        uint64_t s = from > lo ? from : lo, e = to < hi ? to : hi;
        p->cur[b * WS_COUNT + (size_t)state] += e - s;
    }
}

int report_stallprof_end_kernel(struct report_stallprof *p, const char *name, uint64_t cycles)
{
    size_t n = cycles ? (size_t)((cycles - 1) / p->bin + 1) : 0;
    if (p->oom || cur_bins(p, n))
        return -1;
    if (p->nk == p->capk) {
        size_t c = p->capk ? 2 * p->capk : 4;
        struct sp_kernel *q = realloc(p->k, c * sizeof *q);
        if (!q)
            return -1;
        p->k = q;
        p->capk = c;
    }
    struct sp_kernel *k = &p->k[p->nk];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->cycles = cycles;
    /* (no interval ends past the kernel's last retirement, so n bins hold all) */
    k->nbins = p->ncur > n ? p->ncur : n;
    k->c = p->cur;
    p->nk++;
    p->cur = NULL;
    p->ncur = p->capcur = 0;
    return 0;
}

int report_stallprof_csv(const struct report_stallprof *p, FILE *f)
{
    fputs("kernel,cycle_from,cycle_to", f);
    for (int s = 0; s < WS_COUNT; s++)
        fprintf(f, ",%s", stats_state_name(s));
    fputc('\n', f);
    for (size_t i = 0; i < p->nk; i++) {
        const struct sp_kernel *k = &p->k[i];
        for (size_t b = 0; b < k->nbins; b++) {
            uint64_t lo = (uint64_t)b * p->bin, hi = lo + p->bin;
            if (hi > k->cycles && k->cycles > lo)
                hi = k->cycles;
            fprintf(f, "%zu,%llu,%llu", i, (unsigned long long)lo, (unsigned long long)hi);
            for (int s = 0; s < WS_COUNT; s++)
                fprintf(f, ",%llu", (unsigned long long)k->c[b * WS_COUNT + (size_t)s]);
            fputc('\n', f);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* Text as XML character data. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
}

/* Fill colours of the states, in enum order: issue in greens, dependency
 * waits in blues, throttles in oranges, synchronisation in purples, the
 * front end in greys. */
static const char *const sp_colour[WS_COUNT] = {
    "#1a9850", "#91cf60", "#c6dbef", "#2166ac", "#6baed6", "#fdae61", "#f46d43",
    "#d73027", "#762a83", "#c2a5cf", "#969696", "#525252", "#fee08b", "#000000",
    "#bdbdbd"
};

/* A round step of about span/5 for axis ticks: 1, 2 or 5 x 10^k. */
static double nice_step(double span)
{
    if (span <= 0)
        return 1;
    double raw = span / 5, p = 1;
    while (p * 10 <= raw)
        p *= 10;
    while (p > raw)
        p /= 10;
    double m = raw / p;
    return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
}

/* SVG: x = cycle (kernels back to back), y = average warps per SM in each
 * state, stacked in enum order (selected at the bottom); states that never
 * occur are left out of the picture and the legend. */
int report_stallprof_svg(const struct report_stallprof *p, const char *title, FILE *f)
{
    enum { W = 900, H = 420, L = 70, R = 190, T = 40, B = 50 };
    const double pw = W - L - R, ph = H - T - B;
    uint64_t total = 0;
    double ymax = 0;
    int used[WS_COUNT] = { 0 };
    for (size_t i = 0; i < p->nk; i++) {
        const struct sp_kernel *k = &p->k[i];
        total += k->cycles;
        for (size_t b = 0; b < k->nbins; b++) {
            uint64_t lo = (uint64_t)b * p->bin, hi = lo + p->bin;
            if (hi > k->cycles && k->cycles > lo)
                hi = k->cycles;
            double sum = 0;
            for (int s = 0; s < WS_COUNT; s++) {
                uint64_t v = k->c[b * WS_COUNT + (size_t)s];
                used[s] |= v != 0;
                sum += (double)v;
            }
            sum /= (double)(hi - lo) * p->sm_count;
            if (sum > ymax)
                ymax = sum;
        }
    }
    if (total == 0)
        total = 1;
    double ystep = nice_step(ymax > 0 ? ymax : 1);
    double ytop = ystep;
    while (ytop < ymax)
        ytop += ystep;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"14\">", L);
    xml_text(f, title);
    fputs("</text>\n", f);
    /* the stacked layers: one polygon per state, steps at the bin edges */
    for (int s = 0; s < WS_COUNT; s++) {
        if (!used[s])
            continue;
        fprintf(f, "<polygon fill=\"%s\" stroke=\"none\" points=\"", sp_colour[s]);
        for (int pass = 0; pass < 2; pass++) {
            /* pass 0: the layer's top, left to right; pass 1: its bottom, back */
            size_t nk = p->nk;
            for (size_t ii = 0; ii < nk; ii++) {
                size_t i = pass ? nk - 1 - ii : ii;
                const struct sp_kernel *k = &p->k[i];
                uint64_t base = 0;
                for (size_t j = 0; j < i; j++)
                    base += p->k[j].cycles;
                for (size_t bb = 0; bb < k->nbins; bb++) {
                    size_t b = pass ? k->nbins - 1 - bb : bb;
                    uint64_t lo = (uint64_t)b * p->bin, hi = lo + p->bin;
                    if (hi > k->cycles && k->cycles > lo)
                        hi = k->cycles;
                    if (hi <= lo)
                        continue;
                    double below = 0, upto;
                    for (int q = 0; q < s; q++)
                        below += (double)k->c[b * WS_COUNT + (size_t)q];
                    upto = below + (double)k->c[b * WS_COUNT + (size_t)s];
                    double norm = (double)(hi - lo) * p->sm_count;
                    double y = T + ph - (pass ? below : upto) / norm / ytop * ph;
                    double x0 = L + pw * (double)(base + lo) / (double)total;
                    double x1 = L + pw * (double)(base + hi) / (double)total;
                    if (pass)
                        fprintf(f, "%.1f,%.1f %.1f,%.1f ", x1, y, x0, y);
                    else
                        fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
                }
            }
        }
        fprintf(f, "\"><title>%s</title></polygon>\n", stats_state_name(s));
    }
    /* axes, ticks and labels */
    fprintf(f, "<g stroke=\"black\" fill=\"none\"><rect x=\"%d\" y=\"%d\" width=\"%.0f\" "
               "height=\"%.0f\"/></g>\n", L, T, pw, ph);
    for (double v = 0; v <= ytop + ystep / 2; v += ystep) {
        double y = T + ph - v / ytop * ph;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                L - 4, y, L, y, L - 6, y + 4, v);
    }
    double xstep = nice_step((double)total);
    for (double v = 0; v <= (double)total + xstep / 2 && v <= (double)total; v += xstep) {
        double x = L + pw * v / (double)total;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"black\"/>"
                   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n",
                x, T + ph, x, T + ph + 4, x, T + ph + 18, v);
    }
    /* kernel boundaries */
    uint64_t at = 0;
    for (size_t i = 0; i + 1 < p->nk; i++) {
        at += p->k[i].cycles;
        double x = L + pw * (double)at / (double)total;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"black\" "
                   "stroke-dasharray=\"4 3\"/>\n", x, T, x, T + ph);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">cycle (bins of %llu cycles"
               "%s)</text>\n", L + pw / 2, H - 10, (unsigned long long)p->bin,
            p->nk > 1 ? "; kernels back to back" : "");
    fprintf(f, "<text transform=\"translate(18 %.0f) rotate(-90)\" text-anchor=\"middle\">"
               "warps per SM (average over %d SMs)</text>\n", T + ph / 2, p->sm_count);
    /* legend, top of the stack first */
    int row = 0;
    for (int s = WS_COUNT - 1; s >= 0; s--) {
        if (!used[s])
            continue;
        double y = T + 6 + 18 * row++;
        fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%.0f\">%s</text>\n",
                W - R + 14, y, sp_colour[s], W - R + 32, y + 10, stats_state_name(s));
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

size_t report_stallprof_kernels(const struct report_stallprof *p)
{
    return p->nk;
}

void report_stallprof_free(struct report_stallprof *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nk; i++)
        free(p->k[i].c);
    free(p->k);
    free(p->cur);
    free(p);
}
