#!/bin/bash
# cli_saturate.sh — `smsim saturate`: the text and JSON reports on synthetic
# traces with known saturation points (tests/data/study), the plot, and bad
# input (one line on stderr, non-zero exit, nothing on stdout).
# Usage: bash tests/cli_saturate.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_saturate.sh /path/to/smsim}
CFG=configs/h100.yaml
D=tests/data/study
FMA=(--set gpu.sm_count=2 --set pipes.fma.latency=4 --set pipes.fma.issue_interval=1)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
# jkey KEY: the value of a top-level JSON key of $TMP/out (one key per line)
jkey() { sed -n "s/^  \"$1\": \\([^,]*\\),\$/\\1/p" "$TMP/out"; }

# FFMA chain, latency 4: 4 warps per scheduler = 16 per SM = 25 % occupancy
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --format json --jobs 2
[ "$(jkey saturation_warps_per_sm)" = 16 ] || fail "ilp1 saturation: $(jkey saturation_warps_per_sm)"
[ "$(jkey saturation_warps_per_scheduler)" = 4 ] || fail "ilp1 per scheduler"
[ "$(jkey saturation_occupancy_pct)" = 25 ] || fail "ilp1 occupancy"
[ "$(jkey peak_then_decline)" = false ] || fail "ilp1 decline"
case $(jkey littles_law_warps_per_sm) in 15.9*|16|16.0*) ;; *) fail "ilp1 Little: $(jkey littles_law_warps_per_sm)" ;; esac
grep -q '"hidden_latency": "FMA pipe", "latency_cycles": 4, ' "$TMP/out" || fail "ilp1 hidden latency"
grep -q '"hidden_by": "TLP"' "$TMP/out" || fail "ilp1 TLP"
[ "$(grep -c '"blocks_per_sm":' "$TMP/out")" -eq 16 ] || fail "16 points (1..16 blocks of 4 warps)"
# ILP 4: one warp per scheduler, hidden by ILP
expect_ok saturate --config "$CFG" "$D/ffma_ilp4.trace" "${FMA[@]}" --format json
[ "$(jkey saturation_warps_per_scheduler)" = 1 ] || fail "ilp4 saturation: $(jkey saturation_warps_per_scheduler)"
grep -q '"hidden_by": "ILP"' "$TMP/out" || fail "ilp4 ILP"
# load chain, L1 latency 32, 4 instructions per load: 32/4 = 8 per scheduler
expect_ok saturate --config "$CFG" "$D/load_chain.trace" --set gpu.sm_count=2 \
    --set memory.l1_latency=32 --set memory.l1_bytes_per_clk=65536 \
    --set pipes.alu.issue_interval=1 --set pipes.lsu.issue_interval=1 --format json
[ "$(jkey saturation_warps_per_scheduler)" = 8 ] || fail "load chain saturation: $(jkey saturation_warps_per_scheduler)"
grep -q '"hidden_latency": "L1 hit", "latency_cycles": 32,' "$TMP/out" || fail "load chain latency"
[ "$(jkey peak_then_decline)" = true ] || fail "GTO over-subscription decline not flagged"
# text report; --metric; threshold 0.45 saturates at 8 warps (2 of the 4 inst/cycle)
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}"
grep -q '^saturation: 16 warps per SM (4.00 per scheduler, 25.00 % occupancy)' "$TMP/out" || fail "text saturation line"
grep -q '^hiding: FMA pipe latency (4 cycles) is hidden by TLP' "$TMP/out" || fail "text hiding line"
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --threshold 0.45 --format json
[ "$(jkey saturation_warps_per_sm)" = 8 ] || fail "threshold 0.45: $(jkey saturation_warps_per_sm)"
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --metric smsp__issue_active.avg.pct_of_peak_sustained_active --format json
[ "$(jkey saturation_warps_per_sm)" = 16 ] || fail "--metric issue active %"
if command -v gnuplot >/dev/null; then
    expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --plot "$TMP/s.svg"
    grep -q '<svg' "$TMP/s.svg" 2>/dev/null || fail "--plot wrote no SVG"
fi

expect_err "^smsim: --metric 'nope': not a metric" saturate --config "$CFG" "$D/ffma_ilp1.trace" --metric nope
expect_err "^smsim: --threshold '1.5'" saturate --config "$CFG" "$D/ffma_ilp1.trace" --threshold 1.5
expect_err "^smsim: --threshold 'x'" saturate --config "$CFG" "$D/ffma_ilp1.trace" --threshold x
expect_err "^smsim: --format 'csv'" saturate --config "$CFG" "$D/ffma_ilp1.trace" --format csv
expect_err "^smsim: missing TRACE" saturate --config "$CFG"
expect_err "^--set:1:" saturate --config "$CFG" "$D/ffma_ilp1.trace" --set bogus.key=1
expect_err "has 2 kernels" saturate --config "$CFG" traces/two_kernels.trace
expect_err "cannot open" saturate --config "$CFG" "$D/missing.trace"

[ "$fails" -eq 0 ] && echo "cli_saturate: all passed"
exit $((fails > 0))
