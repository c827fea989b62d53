#!/bin/bash
# cli_sweep.sh — `smsim sweep` and `smsim merge`: the table in CSV and JSON,
# identical output for any --jobs, launch keys, bad input (one line on stderr,
# non-zero exit, nothing on stdout), --plot (and without gnuplot), and a
# distributed sweep (--emit-jobs, run with GNU parallel or xargs -P, merged)
# byte-identical to the local one.
# Usage: bash tests/cli_sweep.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sweep.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
CFG=configs/h100.yaml
TR=tests/data/study/ffma_ilp1.trace
BASE=(--config "$CFG" "$TR" --set gpu.sm_count=2)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# --- the table ---------------------------------------------------------------
expect_ok sweep "${BASE[@]}" --vary launch.blocks_per_sm=1:4:1 --vary pipes.fma.latency=4,8 --jobs 1
noprov "$TMP/out" >"$TMP/j1.csv"
[ "$(wc -l <"$TMP/j1.csv")" -eq 9 ] || fail "expected a header and 8 rows"
head -1 "$TMP/j1.csv" | grep -q '^launch.blocks_per_sm,pipes.fma.latency,launch__grid_size,' ||
    fail "header: $(head -c 100 "$TMP/j1.csv")"
# point order: the first --vary is the outer loop
[ "$(cut -d, -f1,2 "$TMP/j1.csv" | sed -n '2,4p' | tr '\n' ' ')" = "1,4 1,8 2,4 " ] ||
    fail "point order: $(cut -d, -f1,2 "$TMP/j1.csv" | tr '\n' ' ')"
# one warp per scheduler per block, FMA latency 4: issue rate = blocks / 4
col=$(head -1 "$TMP/j1.csv" | tr ',' '\n' | grep -nx 'smsp__issue_active.avg.per_cycle_active' | cut -d: -f1)
# (3 blocks per SM leave a 1-block tail wave of the 16 per SM: skipped)
awk -F, -v c="$col" 'NR > 1 && $2 == 4 && $1 != 3 { want = ($1 < 4 ? $1 / 4 : 1); if ($c < want * 0.97 || $c > want + 1e-9) exit 1 }' \
    "$TMP/j1.csv" || fail "issue rate is not min(blocks/4, 1) at latency 4"
expect_ok sweep "${BASE[@]}" --vary launch.blocks_per_sm=1:4:1 --vary pipes.fma.latency=4,8 --jobs 3
cmp -s "$TMP/out" <(grep '^# ' "$TMP/out"; cat "$TMP/j1.csv") || fail "--jobs 3 output differs from --jobs 1"
expect_ok sweep "${BASE[@]}" --vary launch.blocks_per_sm=1:4:1 --vary pipes.fma.latency=4,8 --format json --jobs 2
grep -q '"vary": \["launch.blocks_per_sm", "pipes.fma.latency"\]' "$TMP/out" || fail "json vary list"
grep -q '"vary": {"launch.blocks_per_sm": 4, "pipes.fma.latency": 8}' "$TMP/out" || fail "json point"
[ "$(grep -c '"point":' "$TMP/out")" -eq 8 ] || fail "json: 8 points"
# a string-valued key and a launch key
expect_ok sweep "${BASE[@]}" --vary scheduler.policy=gto,lrr --vary launch.threads=64,256 --jobs 2
grep -q '^lrr,256,32,256,' "$TMP/out" || fail "launch.threads sets the block size: $(sed -n 5p "$TMP/out" | head -c 60)"
expect_ok sweep "${BASE[@]}" --vary launch.regs=32,255
# 255 registers x 128 threads: one block per SM -> theoretical 4 warps
grep -q '^255,.*' "$TMP/out" || fail "launch.regs row"
# -o writes the file, nothing on stdout
run sweep "${BASE[@]}" --vary pipes.fma.latency=4 -o "$TMP/o.csv"
[ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] && [ -s "$TMP/o.csv" ] || fail "-o"
# --progress draws on stderr only
run sweep "${BASE[@]}" --vary pipes.fma.latency=4,5 --progress
[ "$rc" -eq 0 ] && grep -q 'sweep \[#' "$TMP/err" || fail "--progress bar"

# --- bad input ---------------------------------------------------------------
expect_err "^smsim: --vary 'sm.max_warps': expected key=a:b:step" sweep "${BASE[@]}" --vary sm.max_warps
expect_err "^smsim: --vary 'pipes.fma.latency=1:4': a range is a:b:step" sweep "${BASE[@]}" --vary pipes.fma.latency=1:4
expect_err "empty range \(8 > 4\)" sweep "${BASE[@]}" --vary pipes.fma.latency=8:4:1
expect_err "step must be positive" sweep "${BASE[@]}" --vary pipes.fma.latency=1:4:0
expect_err "empty value in the list" sweep "${BASE[@]}" --vary pipes.fma.latency=4,,8
expect_err "^smsim: sweep point 0 \(pipes.fma.bogus=1\): --set:2:1: unknown key 'pipes.fma.bogus'" \
    sweep "${BASE[@]}" --vary pipes.fma.bogus=1,2
expect_err "unknown launch key 'launch.grid'" sweep "${BASE[@]}" --vary launch.grid=1,2
expect_err "^smsim: sweep point 1 \(pipes.fma.latency=0\): --set:2:.*out of range" \
    sweep "${BASE[@]}" --vary pipes.fma.latency=4,0
expect_err "^smsim: sweep point 1 \(pipes.fma.latency=-1\): " sweep "${BASE[@]}" --vary pipes.fma.latency=4,-1
expect_err "^smsim: sweep point 1 \(launch.threads=4096\): block of 4096 threads" \
    sweep "${BASE[@]}" --vary launch.threads=128,4096
expect_err "key 'pipes.fma.latency' is already varied" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --vary pipes.fma.latency=8
expect_err "^smsim: missing --vary" sweep "${BASE[@]}"
expect_err "^smsim: unknown option '--bogus'" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --bogus
expect_err "^smsim: --format 'text': expected csv or json" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --format text
expect_err "^smsim: --plot 'x.pdf'" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --plot x.pdf
expect_err "has 2 kernels: choose one with --kernel" sweep --config "$CFG" traces/two_kernels.trace --vary pipes.fma.latency=4
expect_err "^smsim: --jobs '0'" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --jobs 0

# --- plot ----------------------------------------------------------------------
if command -v gnuplot >/dev/null; then
    expect_ok sweep "${BASE[@]}" --vary launch.blocks_per_sm=1:3:1 --plot "$TMP/p.svg"
    grep -q '<svg' "$TMP/p.svg" 2>/dev/null || fail "--plot wrote no SVG"
    expect_err "no such metric" sweep "${BASE[@]}" --vary launch.blocks_per_sm=1:2:1 --plot "$TMP/q.svg" --plot-metric nope
fi
# without gnuplot: one line, non-zero, empty stdout -- only when --plot is asked
mkdir "$TMP/bin"
PATH="$TMP/bin" "$SMSIM" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --plot "$TMP/p2.svg" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
    grep -q '^smsim: gnuplot not found' "$TMP/err" || fail "no gnuplot: rc $rc, $(cat "$TMP/err")"
PATH="$TMP/bin" "$SMSIM" sweep "${BASE[@]}" --vary pipes.fma.latency=4 >"$TMP/out" 2>"$TMP/err" &&
    [ -s "$TMP/out" ] || fail "no gnuplot, no --plot: must still work"

# --- distributed sweep: --emit-jobs, run the jobs, merge -----------------------
for shape in "--vary launch.blocks_per_sm=1:3:1 --vary pipes.fma.latency=4,6" \
             "--vary launch.threads=64,128 --vary scheduler.policy=gto,lrr"; do
    rm -rf "$TMP/jobs"
    # shellcheck disable=SC2086
    run sweep "${BASE[@]}" $shape --emit-jobs "$TMP/jobs.txt" --job-dir "$TMP/jobs"
    [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] || fail "--emit-jobs ($shape): $(cat "$TMP/err")"
    [ -s "$TMP/jobs/manifest.json" ] || fail "no manifest ($shape)"
    # GNU parallel when installed (first shape), else xargs -P
    if command -v parallel >/dev/null && [ "${shape#*threads}" = "$shape" ]; then
        parallel -j 2 <"$TMP/jobs.txt" || fail "parallel ($shape)"
    else
        xargs -P 2 -I{} sh -c '{}' <"$TMP/jobs.txt" || fail "xargs -P ($shape)"
    fi
    # shellcheck disable=SC2086
    "$SMSIM" sweep "${BASE[@]}" $shape --jobs 2 >"$TMP/local.csv" || fail "local sweep"
    # shellcheck disable=SC2086
    "$SMSIM" sweep "${BASE[@]}" $shape --jobs 2 --format json >"$TMP/local.json" || fail "local json"
    expect_ok merge --sweep-manifest "$TMP/jobs/manifest.json" "$TMP"/jobs/*.json
    cmp -s <(noprov "$TMP/out") <(noprov "$TMP/local.csv") || fail "merged CSV differs from the local sweep ($shape)"
    expect_ok merge --format json --sweep-manifest "$TMP/jobs/manifest.json" "$TMP"/jobs/*.json
    cmp -s <(noprov "$TMP/out") <(noprov "$TMP/local.json") || fail "merged JSON differs from the local sweep ($shape)"
done
expect_err "point 1 given twice" merge --sweep-manifest "$TMP/jobs/manifest.json" "$TMP"/jobs/*.json "$TMP/jobs/point-1.json"
rm "$TMP/jobs/point-2.json"
expect_err "point 2 \(point-2.json\) has no output" merge --sweep-manifest "$TMP/jobs/manifest.json" "$TMP"/jobs/*.json
expect_err "not a sweep manifest" merge --sweep-manifest "$TMP/local.json" "$TMP"/jobs/*.json
expect_err "^smsim: missing --sweep-manifest" merge "$TMP"/jobs/*.json
expect_err "^smsim: --emit-jobs writes jobs" sweep "${BASE[@]}" --vary pipes.fma.latency=4 --emit-jobs "$TMP/j" -o x

[ "$fails" -eq 0 ] && echo "cli_sweep: all passed"
exit $((fails > 0))
