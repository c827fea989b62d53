/* mem_cal.c — the calendar bandwidth server (mem_cal.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mem/mem_cal.h"

int mem_cal_init(struct mem_cal *c, double rate)
{
    memset(c, 0, sizeof *c);
    c->rate = rate;
    c->n = 1024;
    c->used = calloc((size_t)c->n, sizeof *c->used);
    return c->used ? 0 : -1;
}

void mem_cal_free(struct mem_cal *c)
{
    free(c->used);
    memset(c, 0, sizeof *c);
}

/* the slot of cycle k (base <= k < base + n) */
static double *slot(struct mem_cal *c, uint64_t k)
{
    return &c->used[(c->head + (int)(k - c->base)) % c->n];
}

/* room for cycle k: grow the ring (unrolled to start at head 0) */
static int reach(struct mem_cal *c, uint64_t k)
{
    if (k < c->base + (uint64_t)c->n)
        return 0;
    int nn = c->n;
    while (k >= c->base + (uint64_t)nn)
        nn *= 2;
    double *u = calloc((size_t)nn, sizeof *u);
    if (!u)
        return -1;
    for (int i = 0; i < c->n; i++)
        u[i] = c->used[(c->head + i) % c->n];
    free(c->used);
    c->used = u;
    c->head = 0;
    c->n = nn;
    return 0;
}

double mem_cal_serve(struct mem_cal *c, double t, double bytes, double *start)
{
    uint64_t k = t > (double)c->base ? (uint64_t)floor(t) : c->base;
    if (k < c->full)
        k = c->full;
    double first = -1.0, end = t;
    for (;; k++) {
        if (reach(c, k) != 0)
            return -1e300;
        double *u = slot(c, k);
        double room = c->rate - *u;
        if (room <= c->rate * 1e-12) {
            if (k == c->full)
                c->full = k + 1;
            continue;
        }
        /* in this cycle the request follows what the cycle already holds
         * (a FIFO within the cycle), and not before it arrived */
        double at = (double)k + *u / c->rate;
        if (at < t)
            at = t;
        /* what is left of the cycle after `at` */
        double left = ((double)(k + 1) - at) * c->rate;
        if (room > left)
            room = left;
        if (room <= 0)
            continue;
        double take = bytes < room ? bytes : room;
        if (first < 0)
            first = at;
        *u += take;
        bytes -= take;
        end = at + take / c->rate;
        if (c->rate - *u <= c->rate * 1e-12 && k == c->full)
            c->full = k + 1;
        if (bytes <= 0)
            break;
    }
    if (start)
        *start = first;
    return end;
}

void mem_cal_forget(struct mem_cal *c, uint64_t t)
{
    if (t <= c->base)
        return;
    uint64_t drop = t - c->base;
    if (drop >= (uint64_t)c->n) {
        memset(c->used, 0, (size_t)c->n * sizeof *c->used);
        c->head = 0;
    } else {
        for (uint64_t i = 0; i < drop; i++) {
            c->used[c->head] = 0;
            c->head = (c->head + 1) % c->n;
        }
    }
    c->base = t;
    if (c->full < t)
        c->full = t;
}
