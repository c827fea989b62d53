#!/bin/bash
# cli_tracer_check.sh — the tracer's CPU-side checks that need no GPU: the .smev reader
# validate/tracer/test/check_trace.py (its own cases: a good file and ten broken ones) and, on the
# H200 recording of the tracer's test kernel (validate/data/h200/tracer-2026-12-02/trace_test),
# the hand-counted expectation (100 records, the odd-lane load's mask, the never-taken load
# absent, every pc a matching instruction of cuobjdump's listing) and the global sectors ncu
# measured for that launch (ld 80, st 16).  Needs python3; skipped (77) without it.
# Usage (from the repo root): bash tests/cli_tracer_check.sh
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
D=validate/data/h200/tracer-2026-12-02/trace_test
python3 validate/tracer/test/test_check_trace.py || { echo "FAIL: test_check_trace.py"; exit 1; }
out=$(python3 validate/tracer/test/check_trace.py "$D/launch-0.smev" --sass "$D/module-0.sass" --expect trace_test) ||
    { echo "$out" | tail -n 5; echo "FAIL: check_trace.py on the H200 recording"; exit 1; }
echo "$out" | grep -q '^check_trace: expectation met$' || { echo "FAIL: expectation not met"; exit 1; }
echo "$out" | grep -q '^global sectors: ld 80 st 16 ' || { echo "$out" | grep 'global sectors'; echo "FAIL: sectors differ from ncu's (ld 80, st 16)"; exit 1; }
echo "ok: tracer checks"
