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
[ "$(grep -c '^    {"blocks_per_sm":' "$TMP/out")" -eq 16 ] || fail "16 points (1..16 blocks of 4 warps)"
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
# Partial last waves, by hand: 32 blocks on 2 SMs at b blocks/SM are 32/(2b)
# waves; whole at b = 1, 2, 4, 8, 16, partial at the 11 others (b = 3: 5
# waves of 6 and 2 blocks = 33.3 % of the last; b = 9: one wave of 18 and 14
# blocks = 77.8 %).  One recommended answer: 16 warps per SM (4 blocks), the
# others (Little's law 15.97, knee 16.55) their range, the saturating fit's
# 150 past the SM's 64 warps.
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --format json
for b in 1 2 4 8 16; do
    grep -q "^    {\"blocks_per_sm\": $b, .*\"waves_per_multiprocessor\": $((16 / b)), \"last_wave_partial\": false, \"last_wave_fill_pct\": 100}" "$TMP/out" ||
        fail "b=$b: not a whole number of waves"
done
[ "$(grep -c '"last_wave_partial": true, "last_wave_fill_pct"' "$TMP/out")" -eq 11 ] || fail "11 partial points expected"
grep -q '^    {"blocks_per_sm": 3, .*"waves_per_multiprocessor": 5.333333333333333, "last_wave_partial": true, "last_wave_fill_pct": 33.33333333333333}' "$TMP/out" ||
    fail "b=3: 5.33 waves, last 33 % full"
grep -q '^    {"blocks_per_sm": 9, .*"waves_per_multiprocessor": 1.7777777777777777, "last_wave_partial": true, "last_wave_fill_pct": 77.7777777777777[0-9]}' "$TMP/out" ||
    fail "b=9: 1.78 waves, last 78 % full"
grep -q '^  "recommended": {"warps_per_sm": 16, "blocks_per_sm": 4, "warps_per_scheduler": 4, "occupancy_pct": 25, "last_wave_partial": false, "estimates_warps_per_sm": {"littles_law": 15.9[0-9]*, "roofline_knee": 16.5[0-9]*, "saturating_fit": 150.[0-9]*}, "estimates_range_warps_per_sm": \[15.9[0-9]*, 16.5[0-9]*\]},$' "$TMP/out" ||
    fail "recommended: $(grep '"recommended"' "$TMP/out")"
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}"
grep -Eq '^ +3 +12 +3\.00 +18\.75 +[0-9.]+ +[0-9.]+ +5\.33 +33% \*$' "$TMP/out" || fail "text: b=3 partial"
grep -Eq '^ +4 +16 +4\.00 +25\.00 +[0-9.]+ +[0-9.]+ +4\.00 +full$' "$TMP/out" || fail "text: b=4 full"
grep -q "^\* partial last wave at 11 of 16 points: the grid's 32 blocks are not a whole number of waves of blocks/SM x 2 SMs" "$TMP/out" ||
    fail "text: partial-wave note"
grep -qx "recommended: 16 warps per SM (4 blocks, 4.00 per scheduler, 25.00 % occupancy), the first simulated point >= 0.95 x plateau; the other estimates span 16 .. 16.5 warps per SM (Little's law 16, knee of min(a x, p) 16.5); p x/(x+k) at the threshold: 150, past the SM's 64 warps" "$TMP/out" ||
    fail "text: $(grep '^recommended' "$TMP/out")"
[ "$(grep -c '^recommended' "$TMP/out")" -eq 1 ] || fail "text: one recommended answer"
expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --format csv
# the provenance block comes first, as '#' lines (docs/json.md), then the table
grep -q '^# schema: ' "$TMP/out" || fail "csv: no provenance block"
grep -v '^#' "$TMP/out" >"$TMP/csv" && mv "$TMP/csv" "$TMP/out"
[ "$(head -1 "$TMP/out")" = "blocks_per_sm,warps_per_sm,warps_per_scheduler,occupancy_pct,achieved_warps_per_sm,sm__inst_executed.avg.per_cycle_active,waves_per_multiprocessor,last_wave_partial,last_wave_fill_pct,recommended" ] ||
    fail "csv header: $(head -1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 17 ] || fail "csv: 16 points + header"
grep -Eq '^3,12,3,18\.75,[0-9.]+,[0-9.]+,5\.333333333333333,1,33\.33333333333333,0$' "$TMP/out" || fail "csv: b=3"
grep -Eq '^4,16,4,25,[0-9.]+,[0-9.]+,4,0,100,1$' "$TMP/out" || fail "csv: b=4 recommended"
[ "$(cut -d, -f10 "$TMP/out" | grep -c '^1$')" -eq 1 ] || fail "csv: one recommended row"

if command -v gnuplot >/dev/null; then
    expect_ok saturate --config "$CFG" "$D/ffma_ilp1.trace" "${FMA[@]}" --plot "$TMP/s.svg"
    grep -q '<svg' "$TMP/s.svg" 2>/dev/null || fail "--plot wrote no SVG"
fi

expect_err "^smsim: --metric 'nope': not a metric" saturate --config "$CFG" "$D/ffma_ilp1.trace" --metric nope
expect_err "^smsim: --threshold '1.5'" saturate --config "$CFG" "$D/ffma_ilp1.trace" --threshold 1.5
expect_err "^smsim: --threshold 'x'" saturate --config "$CFG" "$D/ffma_ilp1.trace" --threshold x
expect_err "^smsim: --format 'xml': expected text, json or csv$" saturate --config "$CFG" "$D/ffma_ilp1.trace" --format xml
expect_err "^smsim: missing TRACE" saturate --config "$CFG"
expect_err "^--set:1:" saturate --config "$CFG" "$D/ffma_ilp1.trace" --set bogus.key=1
expect_err "has 2 kernels" saturate --config "$CFG" traces/two_kernels.trace
expect_err "cannot open" saturate --config "$CFG" "$D/missing.trace"

[ "$fails" -eq 0 ] && echo "cli_saturate: all passed"
exit $((fails > 0))
