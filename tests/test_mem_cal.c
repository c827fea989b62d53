/* test_mem_cal.c — the calendar bandwidth server (sim/mem/mem_cal.c), with
 * hand-computed times at 10 bytes per cycle.
 * Mutation check: a FIFO server (start = max(arrival, free)) fails
 * test_early_arrival_visited_late (it would end at 110, not 5); a
 * full-cycle threshold of 1e-12 of the rate (FULL_EPS in mem_cal.c) fails
 * test_rounded_cycles_count_full (cycles keep ~1e-9 bytes of room), and
 * so does not following the skip pointers (next_open: every request then
 * walks the backlog from its arrival).  Slots of several cycles: serving
 * them per cycle (ignoring the slot width) fails test_slots, and so does
 * serving a slot's requests in arrival instead of visit order.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "mem/mem_cal.h"

/* arrivals in order are served like a FIFO of the same rate */
static void test_in_order_is_fifo(void **st)
{
    (void)st;
    struct mem_cal c;
    assert_int_equal(mem_cal_init(&c, 10.0, 1.0), 0);
    double s;
    assert_true(mem_cal_serve(&c, 0.0, 100.0, &s) == 10.0); /* 100 B / 10 B per cycle */
    assert_true(s == 0.0);
    assert_true(mem_cal_serve(&c, 5.0, 50.0, &s) == 15.0); /* queued behind: 10 .. 15 */
    assert_true(s == 10.0);
    assert_true(mem_cal_serve(&c, 40.0, 25.0, &s) == 42.5); /* idle server: at once */
    assert_true(s == 40.0);
    mem_cal_free(&c);
}

/* a late arrival visited first does not hold up an early one */
static void test_early_arrival_visited_late(void **st)
{
    (void)st;
    struct mem_cal c;
    assert_int_equal(mem_cal_init(&c, 10.0, 1.0), 0);
    assert_true(mem_cal_serve(&c, 100.0, 50.0, NULL) == 105.0);
    assert_true(mem_cal_serve(&c, 0.0, 50.0, NULL) == 5.0);
    /* and one that overlaps the late one's cycles fills around them */
    assert_true(mem_cal_serve(&c, 98.0, 50.0, NULL) == 108.0); /* 98-100, then 105-108 */
    mem_cal_free(&c);
}

/* far-ahead arrivals grow the ring; forgetting keeps later results */
static void test_grow_and_forget(void **st)
{
    (void)st;
    struct mem_cal c;
    assert_int_equal(mem_cal_init(&c, 10.0, 1.0), 0);
    assert_true(mem_cal_serve(&c, 5000.0, 10.0, NULL) == 5001.0);
    mem_cal_forget(&c, 4000);
    assert_true(mem_cal_serve(&c, 5000.0, 10.0, NULL) == 5002.0);
    assert_true(mem_cal_serve(&c, 4000.5, 10.0, NULL) == 4001.5);
    mem_cal_free(&c);
}

/* a slow server's calendar in slots of 10 cycles at 1 byte per cycle (10
 * bytes per slot): in order it is the same FIFO; within one slot requests
 * are served in the order they are visited, and a slot's work is one visit */
static void test_slots(void **st)
{
    (void)st;
    struct mem_cal c;
    assert_int_equal(mem_cal_init(&c, 1.0, 10.0), 0);
    double s;
    assert_true(mem_cal_serve(&c, 0.0, 32.0, &s) == 32.0); /* 32 B: cycles 0 .. 32 */
    assert_true(s == 0.0);
    assert_true(mem_cal_serve(&c, 40.0, 4.0, &s) == 44.0); /* idle: at once */
    assert_true(s == 40.0);
    /* in the slot 40..50 a request follows the bytes the slot holds (packed
     * from its start: 4 B -> 44) and not before it arrives: 45 .. 47; one
     * arriving at 41 but visited after it follows the slot's 6 bytes:
     * 46 .. 48 (per cycle it would start at 44, in the gap) */
    assert_true(mem_cal_serve(&c, 45.0, 2.0, &s) == 47.0);
    assert_true(mem_cal_serve(&c, 41.0, 2.0, &s) == 48.0);
    assert_true(s == 46.0);
    /* a 100-byte request looks at its 10 slots (and the one it starts in) */
    uint64_t v0 = c.visits;
    assert_true(mem_cal_serve(&c, 100.0, 100.0, NULL) == 200.0);
    assert_true(c.visits - v0 == 10);
    mem_cal_forget(&c, 195); /* the slot holding cycle 195 stays */
    assert_true(mem_cal_serve(&c, 195.0, 5.0, NULL) == 205.0);
    mem_cal_free(&c);
}

/* A backlog far from cycle 0 at a rate no double holds exactly (the
 * H200's 4600 GB/s at 1.98 GHz in one bank), where a cycle's remaining
 * time times the rate rounds off by ~1e-9 bytes: every cycle that took
 * its bytes counts as full,
 * so a request looks at a few cycles, not at the whole backlog.  Left open
 * for their rounding residue, such cycles were looked at again by every
 * later request (quadratic: 1 GiB of stores ran for hours). */
static void test_rounded_cycles_count_full(void **st)
{
    (void)st;
    struct mem_cal c;
    const double rate = 4600.0 / 1.98;
    assert_int_equal(mem_cal_init(&c, rate, 1.0), 0);
    double end = 0;
    for (int i = 0; i < 100000; i++)
        end = mem_cal_serve(&c, 20000.0, 128.0, NULL);
    /* 12.8 MB at 2323.23 B per cycle: 5509.57 cycles, the last partly */
    assert_true(end > 25509.56 && end < 25509.58);
    /* each request looks at the cycle where the previous one ended, and
     * at most one more per 128 bytes: 100000 + 5510, plus a few */
    assert_true(c.visits < 106000);
    mem_cal_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order_is_fifo),
        cmocka_unit_test(test_early_arrival_visited_late),
        cmocka_unit_test(test_grow_and_forget),
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_rounded_cycles_count_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
