#!/bin/bash
# cli_compare.sh — `smsim compare`: a kernel's predicted metrics next to a
# tiny committed ncu raw page (tests/data/ncu/compare.raw.csv, two launches),
# in text, JSON and CSV, and bad input (one line on stderr, non-zero exit,
# nothing on stdout).
# Usage: bash tests/cli_compare.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_compare.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
CSV=tests/data/ncu/compare.raw.csv
TR=tests/data/validate/tiny_ilp1_b1.trace
BASE=(compare --ncu "$CSV" --config configs/h200.yaml "$TR")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# --- CSV: one row per metric smsim reports that the export has a value for -----
expect_ok "${BASE[@]}" --ncu-id 1 --format csv
noprov "$TMP/out" >"$TMP/csv" && mv "$TMP/csv" "$TMP/out" # tests/cli_prov.sh checks it
[ "$(head -1 "$TMP/out")" = '"Metric Name","Metric Unit","Predicted","Measured","Error %"' ] ||
    fail "CSV header: $(head -1 "$TMP/out")"
# 10 of the export's metrics are smsim's with a value (l1tex hit rate is n/a,
# the misc stall and the schedulers attribute are not smsim metrics)
[ "$(wc -l <"$TMP/out")" -eq 11 ] || fail "expected 10 metric rows, got $(($(wc -l <"$TMP/out") - 1))"
for want in '"launch__grid_size","","4","4","0"' '"launch__block_size","","128","128","0"' \
    '"launch__registers_per_thread","register/thread","16","16","0"' \
    '"launch__occupancy_limit_shared_mem","block","1","1","0"' '"launch__sm_count","SM","132","132","0"'; do
    grep -qxF "$want" "$TMP/out" || fail "CSV lacks $want"
done
# measured values as read: 2,300 cycles; 1,160 ns; issue active 131.50 / 528
grep -Eq '^"sm__cycles_elapsed.avg","cycle","[0-9.]+","2300","' "$TMP/out" || fail "measured cycles"
grep -Eq '^"gpu__time_duration.sum","nsecond","[0-9.]+","1160","' "$TMP/out" || fail "measured duration"
grep -Eq '^"smsp__issue_active.avg.per_cycle_active","","[0-9.]+","0.2490530303030303","' "$TMP/out" ||
    fail "measured issue active (131.50 / 528)"
grep -q 'l1tex__t_sector_hit_rate' "$TMP/out" && fail "an n/a value was compared"
grep -q 'stalled_misc' "$TMP/out" && fail "a metric smsim does not report was compared"
# error % = (predicted - measured) / measured
awk -F'"' 'NR > 1 { p = $6; m = $8; e = $10; if (m != 0 && (e - 100 * (p - m) / m > 1e-6 || 100 * (p - m) / m - e > 1e-6)) exit 1 }' \
    "$TMP/out" || fail "an error % is not 100 (predicted - measured) / measured"

# --- text and JSON ---------------------------------------------------------------------
expect_ok "${BASE[@]}" --ncu-id 0
grep -q "vs ncu ID 0 'tiny_ilp1(float \*, float, float)'" "$TMP/out" || fail "text header"
grep -Eq '^  sm__cycles_elapsed.avg +cycle +[0-9]+ +2281.50 ' "$TMP/out" || fail "text cycles row"
expect_ok "${BASE[@]}" --ncu-id=0 --format json
grep -q '"ncu_id": "0",' "$TMP/out" || fail "JSON ncu_id"
grep -q '{"name": "launch__grid_size", "unit": "", "predicted": 4, "measured": 4, "err_pct": 0}' \
    "$TMP/out" || fail "JSON grid size row"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["metrics"]) == 10' \
        "$TMP/out" || fail "JSON does not parse or has not 10 metrics"
fi

# --- bad input ---------------------------------------------------------------------------
expect_err "^smsim: $CSV: 2 launches: choose one with --ncu-id ID" "${BASE[@]}"
expect_err "^smsim: $CSV: no launch with ID 7 \(2 launches: IDs 0-1 'tiny_ilp1'\)$" "${BASE[@]}" --ncu-id 7
expect_err "^smsim: missing --ncu REPORT.csv" compare --config configs/h200.yaml "$TR"
expect_err "^smsim: missing --config CFG.yaml" compare --ncu "$CSV" "$TR"
expect_err "^smsim: missing TRACE file" compare --ncu "$CSV" --config configs/h200.yaml
expect_err "^tests/data/ncu/bad-quote.csv:4:[0-9]+: unexpected " \
    compare --ncu tests/data/ncu/bad-quote.csv --config configs/h200.yaml "$TR"
expect_err "^tests/data/ncu/nothere.csv: cannot open: No such file" \
    compare --ncu tests/data/ncu/nothere.csv --config configs/h200.yaml "$TR"
expect_err "^smsim: --kernel 3: the trace has 1 kernel \(0..0\)" "${BASE[@]}" --ncu-id 0 --kernel 3
expect_err "^smsim: --format 'xml': expected text, json or csv" "${BASE[@]}" --ncu-id 0 --format xml
expect_err "^smsim: unknown option '--bogus'" "${BASE[@]}" --bogus
expect_err "^smsim: tests/data/ncu/bad-width.csv|bad-width.csv:4:" \
    compare --ncu tests/data/ncu/bad-width.csv --config configs/h200.yaml "$TR"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cli_compare: all checks passed"
