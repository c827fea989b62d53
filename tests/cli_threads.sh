#!/bin/bash
# cli_threads.sh — `--threads N` gives byte-identical reports for N = 1, 2, 3
# (the SMs run in epochs; docs/performance.md), and the same as a run with a
# picture (--grid uses the reference cycle-by-cycle loop on one thread).
# Usage: bash tests/cli_threads.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_threads.sh /path/to/smsim}
CFG=configs/h100.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# Small samples with several waves, ragged blocks, barriers, shared memory
# and DRAM traffic; vecadd is cut to 1/16 of its grid to stay quick.
sed "s/grid=(65536,1,1)/grid=(4096,1,1)/" traces/vecadd.trace >"$TMP/vecadd_small.trace"
for t in traces/seeds_32x12k.trace traces/spmv_ragged.trace "$TMP/vecadd_small.trace"; do
    for n in 1 2 3; do
        "$SMSIM" --config $CFG "$t" --format json --threads $n >"$TMP/j$n" 2>"$TMP/err" ||
            fail "$t --threads $n exited $? ($(head -c 300 "$TMP/err"))"
    done
    cmp -s "$TMP/j1" "$TMP/j2" || fail "$t: --threads 1 and 2 differ"
    cmp -s "$TMP/j1" "$TMP/j3" || fail "$t: --threads 1 and 3 differ"
    grep -q '"cycles"\|sm__cycles_elapsed' "$TMP/j1" || fail "$t: no cycles in the report"
done

# text report with a grid (reference loop) == text report of the epochs,
# once the grid lines are removed
t=traces/seeds_32x12k.trace
"$SMSIM" --config $CFG $t --threads 2 >"$TMP/plain" 2>/dev/null || fail "plain text run"
"$SMSIM" --config $CFG $t --grid 50 >"$TMP/grid" 2>/dev/null || fail "grid run"
head -c "$(wc -c <"$TMP/plain")" "$TMP/grid" | cmp -s - "$TMP/plain" ||
    fail "--grid run (reference loop) and --threads 2 disagree"

# bad values: one line, non-zero exit, nothing on stdout
for v in 0 -1 x 100000; do
    "$SMSIM" --config $CFG $t --threads "$v" >"$TMP/out" 2>"$TMP/err"
    [ $? -ne 0 ] || fail "--threads $v accepted"
    [ -s "$TMP/out" ] && fail "stdout not empty for --threads $v"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "expected one stderr line for --threads $v"
done

[ "$fails" -eq 0 ] || exit 1
echo "cli_threads: ok"
