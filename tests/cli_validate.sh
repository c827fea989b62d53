#!/bin/bash
# cli_validate.sh — `smsim validate` on the tiny committed manifest
# (tests/data/validate: five launches of two cases on a 2-SM H200, measured
# values hand-made in ncu's raw CSV format): the text and JSON reports,
# identical output for any --jobs, --case, --max-insts, --thresholds, --plot,
# and bad input (one line on stderr, non-zero exit, nothing on stdout).
# Usage: bash tests/cli_validate.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_validate.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
D=tests/data/validate
BASE=(validate "$D" --manifest "$D/manifest.tsv" --set gpu.sm_count=2)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# --- text ----------------------------------------------------------------------
expect_ok "${BASE[@]}" --jobs 1
for want in '^smsim validate: 5 launches of tests/data/validate/manifest.tsv on ' \
    '^tiny-ilp1 +1 +1\.00 \| +6\.250 ' '^tiny-ilp4 +2 +2\.00 ' '^Top stall reasons' \
    '^Saturation' '^Summary' '^  smsp__issue_active.avg.per_cycle_active +5 ' \
    '^  top stall reason agrees: [0-9]+ of 5 launches'; do
    grep -Eq -- "$want" "$TMP/out" || fail "text report lacks /$want/"
done
# measured values as read: 1,900.50 cycles; 3.62 / 8 schedulers = 0.4525
grep -Eq '^tiny-ilp1 +2 .*\| +0\.4525 ' "$TMP/out" || fail "issue active of b=2 is not 3.62/8"
# the measured top 3 of b=4: wait 4.20, not_selected 0.45, branch_resolving 0.21
grep -Eq '^tiny-ilp1 +4  wait +4\.200 ' "$TMP/out" || fail "top reason of b=4"
grep -Eq '^ +4  not_selected +0\.4500 ' "$TMP/out" || fail "second reason of b=4"
# the traces are padded to the measured residency: no cap, no disagreement
grep -q '^Notes:' "$TMP/out" && fail "unexpected notes: $(sed -n '/^Notes:/,$p' "$TMP/out")"

# --- JSON: the required shape, identical for any --jobs ------------------------
expect_ok "${BASE[@]}" --format json --jobs 1
cp "$TMP/out" "$TMP/j1.json"
expect_ok "${BASE[@]}" --format json --jobs 3
cmp -s "$TMP/j1.json" "$TMP/out" || fail "JSON differs between --jobs 1 and --jobs 3"
noprov "$TMP/j1.json" | head -2 | tr -d '\n' | grep -q '^{  "metrics": {' || fail "JSON does not start with metrics"
for m in sm__warps_active.avg.pct_of_peak_sustained_active smsp__issue_active.avg.per_cycle_active \
    smsp__warps_eligible.avg.per_cycle_active smsp__average_warp_latency_per_inst_issued.ratio \
    sm__cycles_elapsed.avg; do
    grep -Eq "^    \"$m\": \\{\"mape_pct\": [-0-9.e]+, \"max_err_pct\": [-0-9.e]+, \"pearson_r\": [-0-9.e]+," \
        "$TMP/j1.json" || fail "JSON metrics lack $m"
done
# hit rates: the tiny CSV has none -> every launch missing, compared in pp
for m in l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct; do
    grep -Eq "^    \"$m\": \\{\"mean_abs_diff_pp\": null, \"max_abs_diff_pp\": null, \"within_pp\": 10, \"within\": 0, \"n\": 0, \"n_missing\": 5\\}" \
        "$TMP/j1.json" || fail "JSON hit_rates lack $m"
done
grep -Eq '"saturation": \{"max_abs_err_warps_per_scheduler": [0-9.e]+,' "$TMP/j1.json" ||
    fail "JSON lacks saturation.max_abs_err_warps_per_scheduler"
grep -q '"smsp__issue_active.avg.per_cycle_active": 0.4525' "$TMP/j1.json" ||
    fail "JSON measured issue active of b=2"
grep -q '"sm__cycles_elapsed.avg": 1900.5' "$TMP/j1.json" || fail "JSON measured cycles of b=2"
if command -v python3 >/dev/null; then
    python3 - "$TMP/j1.json" <<'EOF' || fail "JSON structure (python check)"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:3] == ["provenance", "metrics", "saturation"], list(d)
for k, v in d["metrics"].items():
    assert set(v) >= {"mape_pct", "max_err_pct", "pearson_r"}, k
assert isinstance(d["saturation"]["max_abs_err_warps_per_scheduler"], (int, float))
assert d["points"] == 5 and d["skipped"] == 0 and len(d["cases"]) == 5
sat = {c["case"]: c for c in d["saturation"]["cases"]}
# hand-made ncu curve of tiny-ilp1: 0.25, 0.4525, 0.50 at 1, 2, 4 warps/scheduler:
# 95 % of 0.50 = 0.475 is first reached at 4
assert sat["tiny-ilp1"]["measured"] == 4, sat
# tiny-ilp4: 0.84, 0.99 -> 2
assert sat["tiny-ilp4"]["measured"] == 2, sat
# stall pairs: 3 per launch
assert d["stalls_top3"]["n"] + d["stalls_top3"]["n_measured_zero"] == 15, d["stalls_top3"]
EOF
fi

# --- --case, --max-insts ---------------------------------------------------------
expect_ok "${BASE[@]}" --format json --case 'ilp4$'
grep -q '"points": 2,' "$TMP/out" || fail "--case 'ilp4\$' did not select 2 launches"
# warp-instructions: ilp1 3,216 x b, ilp4 6,416 x b -> above 10,000: ilp1 b=4, ilp4 b=2
expect_ok "${BASE[@]}" --max-insts 10000
grep -q '(2 skipped: above --max-insts)' "$TMP/out" || fail "--max-insts 10000 did not skip 2"
grep -Eq '^  tiny-ilp1 b=4: 12864 warp-instructions' "$TMP/out" || fail "skipped list lacks ilp1 b=4"
grep -Eq '^tiny-ilp4 +[0-9]+ +[0-9]+\.[0-9]+ +[0-9.]+ +- ' "$TMP/out" &&
    fail "tiny-ilp4 has a saturation point from a single point"
grep -Eq '^tiny-ilp4 +1 +- +- +-  \(partial sweep\)' "$TMP/out" || fail "partial sweep not marked"

# --- thresholds ---------------------------------------------------------------------
printf 'metric\tstat\tlimit\nsmsp__issue_active.avg.per_cycle_active\tmape_pct\t1000\nsaturation\tmax_abs_err_warps_per_scheduler\t100\n' >"$TMP/ok.tsv"
expect_ok "${BASE[@]}" --thresholds "$TMP/ok.tsv"
printf 'smsp__issue_active.avg.per_cycle_active\tmape_pct\t0\nsm__cycles_elapsed.avg\tpearson_r\t1.5\n' >"$TMP/strict.tsv"
run "${BASE[@]}" --format json --thresholds "$TMP/strict.tsv"
[ "$rc" -eq 3 ] || fail "failed thresholds: exit $rc, want 3"
[ -s "$TMP/out" ] || fail "failed thresholds: no report on stdout"
[ "$(grep -c 'accuracy below threshold' "$TMP/err")" -eq 2 ] || fail "failed thresholds: $(cat "$TMP/err")"
printf 'smsp__issue_active.avg.per_cycle_active\tmedian\t1\n' >"$TMP/bad.tsv"
expect_err "bad.tsv:1:[0-9]+: unknown statistic 'median'" "${BASE[@]}" --thresholds "$TMP/bad.tsv"

# --- --plot ---------------------------------------------------------------------------
if command -v gnuplot >/dev/null; then
    expect_ok "${BASE[@]}" --plot "$TMP/v.svg"
    grep -q '<svg' "$TMP/v.svg" 2>/dev/null || fail "--plot wrote no SVG"
    # every launch of tiny-ilp4 over --max-insts: its panel is empty and says
    # so (an empty data block used to stop gnuplot: "x range is invalid")
    expect_ok "${BASE[@]}" --max-insts 5000 --plot "$TMP/s.svg"
    grep -q 'no launch simulated' "$TMP/s.svg" 2>/dev/null || fail "--plot --max-insts: no empty panel"
fi
expect_err "^smsim: --plot 'x.pdf': expected a .svg or .png file name" "${BASE[@]}" --plot x.pdf

# --- bad input: one line, exit != 0, nothing on stdout ----------------------------------
expect_err "^$TMP/none.tsv: cannot open the manifest: No such file" \
    validate "$D" --manifest "$TMP/none.tsv"
expect_err "^smsim: --case '\(': bad regular expression: " "${BASE[@]}" --case '('
expect_err "^smsim: --case 'nomatch' matches no case of $D/manifest.tsv" "${BASE[@]}" --case nomatch
expect_err "^smsim: missing DIR" validate --manifest "$D/manifest.tsv"
expect_err "^smsim: $D/nodir: not a directory" validate "$D/nodir" --manifest "$D/manifest.tsv"
expect_err "no launch of the manifest is measured under validate/data/h200" \
    validate validate/data/h200 --manifest "$D/manifest.tsv"
expect_err "^smsim: --format 'xml': expected text or json" "${BASE[@]}" --format xml
expect_err "^smsim: --jobs '0': expected an integer in 1..1024" "${BASE[@]}" --jobs 0
expect_err "^smsim: unknown option '--bogus'" "${BASE[@]}" --bogus
H=$(printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id')
printf '%s\ntiny-ilp1\t1\t%s/tiny_ilp1_b1.trace\t%s/tiny.raw.csv\t99\n' "$H" "$D" "$D" >"$TMP/row.tsv"
expect_err "^$TMP/row.tsv:2:[0-9]+: ncu_id '99': $D/tiny.raw.csv has no row with that ID \(5 rows\)" \
    validate "$D" --manifest "$TMP/row.tsv" --set gpu.sm_count=2
printf '%s\ntiny-ilp1\t1\t%s/nothere.trace\t%s/tiny.raw.csv\t0\n' "$H" "$D" "$D" >"$TMP/tr.tsv"
expect_err "^$TMP/tr.tsv:2:13: trace '$D/nothere.trace': No such file" \
    validate "$D" --manifest "$TMP/tr.tsv" --set gpu.sm_count=2
printf '%s\ntiny-ilp1\t1\t%s/tiny_ilp1_b1.trace\t%s/nothere.csv\t0\n' "$H" "$D" "$D" >"$TMP/csv.tsv"
expect_err "^$TMP/csv.tsv:2:[0-9]+: ncu_csv '$D/nothere.csv': No such file" \
    validate "$D" --manifest "$TMP/csv.tsv" --set gpu.sm_count=2
printf '%s\ntiny-ilp1\t1\t%s/tiny_ilp1_b1.trace\ttests/data/ncu/bad-quote.csv\t0\n' "$H" "$D" >"$TMP/bq.tsv"
expect_err "^tests/data/ncu/bad-quote.csv:4:[0-9]+: " validate tests/data --manifest "$TMP/bq.tsv"
printf 'case\tblocks_per_sm\n' >"$TMP/hdr.tsv"
expect_err "^$TMP/hdr.tsv:1:1: header has no column 'trace'" validate "$D" --manifest "$TMP/hdr.tsv"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cli_validate: all checks passed"
