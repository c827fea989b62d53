/* mem_cal.c — the calendar bandwidth server (mem_cal.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mem/mem_cal.h"

int mem_cal_init(struct mem_cal *c, double rate, double slot)
{
    memset(c, 0, sizeof *c);
    c->w = slot >= 1.0 ? slot : 1.0;
    c->rate = rate * c->w;
    c->n = 1024;
    c->used = calloc((size_t)c->n, sizeof *c->used);
    c->skip = calloc((size_t)c->n, sizeof *c->skip);
    return c->used && c->skip ? 0 : -1;
}

void mem_cal_free(struct mem_cal *c)
{
    free(c->used);
    free(c->skip);
    memset(c, 0, sizeof *c);
}

/* the slot of cycle k (base <= k < base + n) */
static double *slot(struct mem_cal *c, uint64_t k)
{
    return &c->used[(c->head + (int)(k - c->base)) % c->n];
}

/* the skip entry of cycle k (base <= k < base + n) */
static uint64_t *skip_of(struct mem_cal *c, uint64_t k)
{
    return &c->skip[(c->head + (int)(k - c->base)) % c->n];
}

/* from cycle k, the first cycle not known to be full: follow the skips
 * (full cycles point past themselves) and shorten the path taken */
static uint64_t next_open(struct mem_cal *c, uint64_t k)
{
    uint64_t j = k;
    while (j < c->base + (uint64_t)c->n && *skip_of(c, j))
        j = *skip_of(c, j);
    for (uint64_t i = k; i < c->base + (uint64_t)c->n && *skip_of(c, i) && *skip_of(c, i) < j;) {
        uint64_t nx = *skip_of(c, i);
        *skip_of(c, i) = j;
        i = nx;
    }
    return j;
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
    uint64_t *sk = calloc((size_t)nn, sizeof *sk);
    if (!u || !sk) {
        free(u);
        free(sk);
        return -1;
    }
    for (int i = 0; i < c->n; i++) {
        u[i] = c->used[(c->head + i) % c->n];
        sk[i] = c->skip[(c->head + i) % c->n];
    }
    free(c->used);
    free(c->skip);
    c->used = u;
    c->skip = sk;
    c->head = 0;
    c->n = nn;
    return 0;
}

/* A cycle with less than a millionth of its bytes free counts as full.  The
 * bytes are sums of doubles, so a cycle filled exactly can keep a few 1e-9
 * of room that no request can use (it starts after the cycle's end); left
 * open, such cycles were scanned again by every later request, and a long
 * DRAM backlog (a 1 GiB store stream) made the stage quadratic. */
#define FULL_EPS 1e-6

static void mark_full(struct mem_cal *c, uint64_t k)
{
    *skip_of(c, k) = k + 1;
}

double mem_cal_serve(struct mem_cal *c, double t, double bytes, double *start)
{
    t /= c->w; /* in slots from here on (exact for w = 1) */
    uint64_t k = t > (double)c->base ? (uint64_t)floor(t) : c->base;
    double first = -1.0, end = t;
    for (;; k++) {
        k = next_open(c, k); /* stops at the ring's end: reach grows it */
        if (reach(c, k) != 0)
            return -1e300;
        double *u = slot(c, k);
        c->visits++;
        double room = c->rate - *u;
        if (room <= c->rate * FULL_EPS) {
            mark_full(c, k);
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
        if (c->rate - *u <= c->rate * FULL_EPS)
            mark_full(c, k);
        if (bytes <= 0)
            break;
    }
    if (start)
        *start = first * c->w;
    return end * c->w;
}

void mem_cal_forget(struct mem_cal *c, uint64_t t)
{
    t = (uint64_t)((double)t / c->w); /* the slot holding cycle t */
    if (t <= c->base)
        return;
    uint64_t drop = t - c->base;
    if (drop >= (uint64_t)c->n) {
        memset(c->used, 0, (size_t)c->n * sizeof *c->used);
        memset(c->skip, 0, (size_t)c->n * sizeof *c->skip);
        c->head = 0;
    } else {
        for (uint64_t i = 0; i < drop; i++) {
            c->used[c->head] = 0;
            c->skip[c->head] = 0;
            c->head = (c->head + 1) % c->n;
        }
    }
    c->base = t;
}
