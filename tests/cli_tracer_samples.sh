#!/bin/bash
# cli_tracer_samples.sh — the traces the tracer recorded on an H200 (traces/tracer/) run on
# configs/h200.yaml with the warp-instruction counts their reconstruction wrote, and `smsim
# compare --ncu` against the ncu row of the same launch shows them within 1 % of ncu's
# smsp__inst_executed.sum (trace_test and the Triton kernel exactly: every instruction between
# two records was determined).
# Usage (from the repo root): bash tests/cli_tracer_samples.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_tracer_samples.sh /path/to/smsim}
export SMSIM_NO_CAUTION=1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { # folder, expected warp-instructions, ncu's, tolerance %
    local d=traces/tracer/$1 want=$2 ncu=$3 tol=$4 got out
    got=$("$SMSIM" --config configs/h200.yaml "$d/kernelslist.g" --format csv 2>"$d.err.$$" |
          awk -F'","' '/^#/ { next } { n++ }
                       n == 1 { for (i = 1; i <= NF; i++) if ($i ~ /smsp__inst_executed.sum$/) c = i }
                       n == 3 && c { gsub(/"/, "", $c); print $c }')
    [ "$got" = "$want" ] || fail "$1: smsp__inst_executed.sum $got, the reconstruction wrote $want ($(head -c 300 "$d.err.$$"))"
    rm -f "$d.err.$$"
    out=$("$SMSIM" compare --ncu "$d/ncu.csv" --config configs/h200.yaml "$d/kernelslist.g" 2>&1) ||
        { fail "$1: smsim compare: $(echo "$out" | tail -n 2)"; return; }
    line=$(echo "$out" | grep -E '^ +smsp__inst_executed.sum ')
    [ -n "$line" ] || { fail "$1: compare prints no smsp__inst_executed.sum"; return; }
    set -- $line
    [ "$3" = "$want" ] && [ "$4" = "$ncu" ] || fail "$1: compare shows '$line', want $want vs $ncu"
    awk -v a="$want" -v b="$ncu" -v t="$tol" 'BEGIN { e = (a - b) / b * 100; if (e < 0) e = -e; exit !(e <= t) }' ||
        fail "$1: $want warp-instructions vs ncu's $ncu: more than $tol %"
}
check trace_test 356 356 0
check triton_sum 602112 602112 0
check cub_reduce 583680 584792 1
[ "$fails" -eq 0 ] && echo "ok: 3 tracer samples" || exit 1
