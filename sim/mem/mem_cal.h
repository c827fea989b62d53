/* mem_cal.h — a bandwidth server that takes requests out of arrival order.
 *
 * The globally ordered memory stage visits requests by issue cycle, but a
 * request can reach L2 or DRAM much later than it issued (it waited in its
 * SM's L1 stage for a miss-table entry or store credits).  A FIFO server
 * (start = max(arrival, free)) would make every later-visited request that
 * arrives earlier wait behind it.  This server keeps, per cycle, the bytes
 * already taken (a calendar): a request arriving at t takes the first
 * cycles from t on that still have room, so arrivals in order are served
 * exactly as by a FIFO of the same rate, and an early arrival visited late
 * fills the gaps before a late one instead of queueing behind it.  A slow
 * server keeps its calendar in slots of several cycles (within a slot,
 * requests are served in the order they were visited): the work per
 * request is then the slots it spans, not the cycles.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_MEM_CAL_H
#define SMSIM_MEM_CAL_H

#include <stdint.h>

struct mem_cal {
    double *used;          /* [n] bytes taken in each cycle (a ring)            */
    uint64_t base;         /* cycle of used[head]                               */
    int head, n;           /* ring start and size                               */
    double rate;           /* bytes per slot                                    */
    double w;              /* cycles per slot (>= 1)                            */
    uint64_t *skip;        /* [n] 0, or a later cycle to try: this one is full  */
    uint64_t visits;       /* cycles looked at by mem_cal_serve (its work)      */
};

/* A server of `rate` bytes per cycle (> 0) whose calendar slots last
 * `slot` cycles (>= 1; 1 = per cycle); -1 when out of memory. */
int mem_cal_init(struct mem_cal *c, double rate, double slot);
void mem_cal_free(struct mem_cal *c);
/* Serve `bytes` arriving at t (>= the last mem_cal_forget): returns the
 * time the last byte is served and, in *start, when the first was; -1e300
 * when out of memory. */
double mem_cal_serve(struct mem_cal *c, double t, double bytes, double *start);
/* No request will arrive before cycle t any more: forget what lies before. */
void mem_cal_forget(struct mem_cal *c, uint64_t t);

#endif
