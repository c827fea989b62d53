/* report_grid.c — --grid N: what every warp slot of SM 0 did in each of the
 * first N cycles, one letter per cycle (stats_state_letter), rows grouped by
 * scheduler (SMSP).  Built from engine_observer.warp_state intervals.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

enum { GRID_BAND = 100, GRID_EMPTY = '.' };

struct report_grid {
    uint64_t cycles;   /* columns: cycles [0, cycles)                   */
    int smsps;         /* SMSPs per SM                                  */
    int slots;         /* warp slots per SMSP                           */
    char *cell;        /* [smsps * slots][cycles] letters, '.' = empty  */
};

struct report_grid *report_grid_new(const struct arch *a, uint64_t cycles)
{
    struct report_grid *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cycles = cycles;
    g->smsps = a->subpartitions > 0 ? a->subpartitions : 1;
    /* A scheduler holds at most max_warps / subpartitions warps (rounded up). */
    g->slots = (a->max_warps_per_sm + g->smsps - 1) / g->smsps;
    if (g->slots < 1)
        g->slots = 1;
    size_t n = (size_t)g->smsps * (size_t)g->slots * (size_t)cycles;
    g->cell = malloc(n ? n : 1);
    if (!g->cell) {
        free(g);
        return NULL;
    }
    report_grid_reset(g);
    return g;
}

void report_grid_reset(struct report_grid *g)
{
    memset(g->cell, GRID_EMPTY, (size_t)g->smsps * (size_t)g->slots * (size_t)g->cycles);
}

void report_grid_warp_state(struct report_grid *g, int sm, int smsp, int slot,
                            uint32_t block, uint32_t warp, uint64_t from,
                            uint64_t to, int state)
{
    if (sm != 0 || smsp < 0 || smsp >= g->smsps || slot < 0 || slot >= g->slots)
        return;
    char *row = g->cell + ((size_t)smsp * (size_t)g->slots + (size_t)slot) * g->cycles;
    char c = stats_state_letter(state);
    for (uint64_t t = from; t < to && t < g->cycles; t++)
        row[t] = c;
}

static int row_used(const struct report_grid *g, const char *row)
{
    for (uint64_t t = 0; t < g->cycles; t++)
        if (row[t] != GRID_EMPTY)
            return 1;
    return 0;
}

static void legend(FILE *f)
{
    fputs("  legend:", f);
    for (int s = 0; s < WS_COUNT; s++)
        fprintf(f, "%s%c %s", s % 5 == 0 ? "\n    " : "  ", stats_state_letter(s),
                s == WS_NOT_SELECTED ? "eligible, not selected" : stats_state_name(s));
    fprintf(f, "\n    %c no warp in the slot\n", GRID_EMPTY);
}

void report_grid_print(const struct report_grid *g, const char *title, FILE *f)
{
    fprintf(f, "  Warp-state grid: %s, SM 0, cycles 0..%llu (row = SMSP/slot, column = cycle)\n",
            title, (unsigned long long)(g->cycles ? g->cycles - 1 : 0));
    legend(f);
    for (uint64_t b = 0; b < g->cycles; b += GRID_BAND) {
        uint64_t e = b + GRID_BAND < g->cycles ? b + GRID_BAND : g->cycles;
        /* Ruler: the cycle number and a '|' above every tenth column
         * (numbers that do not fit before the band's end are left out). */
        char num[GRID_BAND + 1], bar[GRID_BAND + 1];
        size_t w = (size_t)(e - b), nl = 0, bl = 0;
        memset(num, ' ', w);
        memset(bar, ' ', w);
        for (uint64_t t = b; t < e; t += 10) {
            char d[24];
            size_t len = (size_t)snprintf(d, sizeof d, "%llu", (unsigned long long)t);
            size_t at = (size_t)(t - b);
            if (at + len <= w) {
                memcpy(num + at, d, len);
                nl = at + len;
            }
            bar[at] = '|';
            bl = at + 1;
        }
        fprintf(f, "\n            %.*s\n            %.*s\n", (int)nl, num, (int)bl, bar);
        for (int p = 0; p < g->smsps; p++) {
            for (int s = 0; s < g->slots; s++) {
                const char *row = g->cell + ((size_t)p * (size_t)g->slots + (size_t)s) * g->cycles;
                if (!row_used(g, row))
                    continue;
                fprintf(f, "  smsp%d w%02d ", p, s);
                fwrite(row + b, 1, (size_t)(e - b), f);
                fputc('\n', f);
            }
        }
    }
    fputc('\n', f);
}

void report_grid_free(struct report_grid *g)
{
    if (!g)
        return;
    free(g->cell);
    free(g);
}
