/* cli_progress.c — the progress line of a long run on a terminal.
 *
 * The engine reports the warp-instructions issued so far every 256 epochs
 * (engine_opts.progress); once the run has lasted `delay` seconds, a line on
 * stderr shows how far it is and, when the kernels' instruction totals are
 * known up front, when it will end.  It is redrawn in place at most four
 * times a second and erased at the end, so nothing of it stays in the
 * terminal, and it is never written where it could end up in a file (the
 * caller enables it only for a terminal, cli_progress_wanted).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_progress_wanted(int quiet, int json_to_stdout)
{
    return !quiet && !json_to_stdout && isatty(STDERR_FILENO);
}

double cli_progress_delay(void)
{
    /* SMSIM_PROGRESS_DELAY: seconds before the line appears (tests) */
    const char *e = getenv("SMSIM_PROGRESS_DELAY");
    char *end = NULL;
    double d = e && *e ? strtod(e, &end) : 2.0;
    return e && *e && (*end || d < 0) ? 2.0 : d;
}

/* "1.23 G", "456.7 M", "12.3 k", "999". */
static void amount(char *buf, size_t n, uint64_t v)
{
    double x = (double)v;
    if (x >= 1e9)
        snprintf(buf, n, "%.2f G", x / 1e9);
    else if (x >= 1e6)
        snprintf(buf, n, "%.1f M", x / 1e6);
    else if (x >= 1e4)
        snprintf(buf, n, "%.1f k", x / 1e3);
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* "4.2 s", "3 min 05 s", "2 h 07 min". */
static void duration(char *buf, size_t n, double s)
{
    if (s < 60)
        snprintf(buf, n, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

size_t cli_progress_format(char *buf, size_t n, uint64_t done, uint64_t total, double elapsed,
                           int kernel, int nkernels)
{
    char d[32], t[32], e[32], r[32], k[48] = "";
    amount(d, sizeof d, done);
    duration(e, sizeof e, elapsed);
    if (nkernels > 1)
        snprintf(k, sizeof k, ", kernel %d of %d", kernel + 1, nkernels);
    int w;
    if (total && done <= total) {
        amount(t, sizeof t, total);
        double frac = (double)done / (double)total;
        if (done > 0) {
            duration(r, sizeof r, elapsed * (double)(total - done) / (double)done);
            w = snprintf(buf, n, "smsim: %3.0f%% (%s of %s warp-instructions%s), %s, ETA %s",
                         100 * frac, d, t, k, e, r);
        } else {
            w = snprintf(buf, n, "smsim: %3.0f%% (%s of %s warp-instructions%s), %s", 100 * frac,
                         d, t, k, e);
        }
    } else {
        w = snprintf(buf, n, "smsim: %s warp-instructions%s, %s", d, k, e);
    }
    return w < 0 ? 0 : (size_t)w;
}

void cli_progress_start(struct cli_progress *p, uint64_t total, int nkernels, double delay)
{
    memset(p, 0, sizeof p[0]);
    p->total = total;
    p->nkernels = nkernels;
    p->delay = delay;
    p->t0 = now_s();
}

void cli_progress_kernel(struct cli_progress *p, int kernel, uint64_t done_before)
{
    p->kernel = kernel;
    p->before = done_before;
}

void cli_progress_update(void *ud, uint64_t issued)
{
    struct cli_progress *p = ud;
    double t = now_s(), el = t - p->t0;
    if (el < p->delay || (p->shown && t - p->last < 0.25))
        return;
    char line[200];
    cli_progress_format(line, sizeof line, p->before + issued, p->total, el, p->kernel,
                        p->nkernels);
    /* \r and erase-to-end-of-line: redrawn in place */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->shown = 1;
    p->last = t;
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = 0;
    }
}
