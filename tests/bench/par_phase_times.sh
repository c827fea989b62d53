#!/bin/bash
# par_phase_times.sh — where a multi-threaded run spends its time, per thread
# and phase (docs/performance.md, "Fifth round": stepping, gathering the
# outbox, waiting at the epoch-end barrier, the serial phase).  Builds a
# copy of the working tree with timers added to sim/engine/eng_par.c (a
# text patch; it stops if eng_par.c no longer has the lines it expects),
# profile-guided as scripts/bootstrap.sh does, then runs `smsim bench
# --only W --threads T` ROUNDS times and prints, per run, the bench line's
# seconds and the timers' `phases:` line.  THREADS is 1 or 2 (the second
# thread's sums are plain doubles).  The timers are not in the product: a
# clock read per phase and epoch.
# Not part of ctest.
# Usage: bash tests/bench/par_phase_times.sh WORKLOAD THREADS [ROUNDS]   (repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
W=${1:?usage: par_phase_times.sh WORKLOAD THREADS [ROUNDS]}
T=${2:?usage: par_phase_times.sh WORKLOAD THREADS [ROUNDS]}
ROUNDS=${3:-2}
case "$T" in 1|2) ;; *) echo "par_phase_times.sh: THREADS must be 1 or 2" >&2; exit 2 ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$TMP"
python3 - "$TMP/sim/engine/eng_par.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    if s.count(old) != 1:
        sys.exit("par_phase_times.sh: eng_par.c changed, cannot place the timer at: " + old.strip()[:60])
    s = s.replace(old, new)
rep('static uint64_t now_ns(void)\n{', '''static _Thread_local int ph_tid;
static double ph_step[2], ph_gather[2], ph_wait[2], ph_serial;
static long ph_epochs;
static uint64_t now_ns(void);
static double ph_s(uint64_t a, uint64_t b) { return (double)(b - a) * 1e-9; }
static uint64_t now_ns(void)
{''')
rep('''    gather(r, wk, e, end);
''', '''    uint64_t g0 = now_ns();
    gather(r, wk, e, end);
    ph_gather[ph_tid > 0] += ph_s(g0, now_ns());
''')
rep('''        run_range(c->r, w, c->e, c->end);
        bar_wait(&c->done, &w->s_done);''', '''        ph_tid = 1;
        uint64_t a0 = now_ns();
        run_range(c->r, w, c->e, c->end);
        uint64_t a1 = now_ns();
        bar_wait(&c->done, &w->s_done);
        ph_step[1] += ph_s(a0, a1);
        ph_wait[1] += ph_s(a1, now_ns());''')
rep('''        run_range(r, &wk[0], e, end);
        bar_wait(&c.done, &wk[0].s_done);''', '''        uint64_t a0 = now_ns();
        run_range(r, &wk[0], e, end);
        uint64_t a1 = now_ns();
        bar_wait(&c.done, &wk[0].s_done);
        uint64_t a2 = now_ns();
        ph_step[0] += ph_s(a0, a1);
        ph_wait[0] += ph_s(a1, a2);
        ph_epochs++;''')
rep('''        e = serial_phase(r, wk, started, e);''', '''        uint64_t a3 = now_ns();
        e = serial_phase(r, wk, started, e);
        ph_serial += ph_s(a3, now_ns());''')
rep('''    c.quit = 1;''', '''    fprintf(stderr, "phases: epochs %ld | thread 0: step %.3f s (gather %.3f) wait %.3f"
            " | thread 1: step %.3f s (gather %.3f) wait %.3f | serial %.3f s\\n",
            ph_epochs, ph_step[0], ph_gather[0], ph_wait[0], ph_step[1], ph_gather[1],
            ph_wait[1], ph_serial);
    c.quit = 1;''')
open(p, 'w').write(s)
PY
B="$TMP/build"
cmake -S "$TMP" -B "$B" -DCMAKE_BUILD_TYPE=Release -DSMSIM_PGO=generate >/dev/null
cmake --build "$B" -j"$(nproc)" --target smsim >/dev/null
(cd "$TMP" && sh scripts/pgo-train.sh "$B" >/dev/null 2>&1)
cmake -S "$TMP" -B "$B" -DSMSIM_PGO=use >/dev/null
cmake --build "$B" -j"$(nproc)" --target smsim >/dev/null 2>&1
for i in $(seq "$ROUNDS"); do
    "$B/smsim" bench --only "$W" --threads "$T" 2>"$TMP/phases" |
        awk -v w="$W" -v t="$T" '$1 == w { print w, t " thread(s):", $4 " s" }'
    grep '^phases:' "$TMP/phases"
done
