#!/bin/bash
# cli_launch_calib.sh — the block-launch keys cannot drift from their
# calibration data (issue #19):
#  1. validate/calib_launch.py re-derives them from
#     validate/data/h200/kit-2026-12-01/launch/ (twice: the same bytes), and
#     configs/h200.yaml holds exactly those values, each line citing the data
#     and the script;
#  2. the engine's own life of the lone one-warp block is what the script
#     subtracts (ENGINE_LONE_WARP), so a change there shows up here;
#  3. the calibration set (validate/gen-launch-traces.py makes exactly the
#     committed traces) stays within validate/calib-traces/launch-thresholds.tsv.
# Needs python3 (standard library only); without it the test is skipped (77).
# Usage (from the repo root): bash tests/cli_launch_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_launch_calib.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
KIT=validate/data/h200/kit-2026-12-01
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# --- 1. derive, and the config holds it ---------------------------------------
python3 validate/calib_launch.py "$KIT" >"$T/r1" 2>"$T/err" || { echo "FAIL: calib_launch.py: $(cat "$T/err")"; exit 1; }
python3 validate/calib_launch.py "$KIT" >"$T/r2" 2>&1
cmp -s "$T/r1" "$T/r2" || fail "calib_launch.py is not deterministic"
grep -q "$KIT/seed" "$T/r1" && fail "calib_launch.py cites validation data (seed/)"
"$SMSIM" config --config configs/h200.yaml >"$T/printed" 2>"$T/err" || fail "smsim config: $(cat "$T/err")"
n=0
while read -r tag key want; do
    [ "$tag" = h200 ] || continue
    sec=${key%%.*} k=${key#*.}
    got=$(awk -v s="$sec:" -v k="$k:" '/^[a-z]/ { in_s = ($1 == s) } in_s && $1 == k { print $2 }' "$T/printed")
    awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' \
        || fail "configs/h200.yaml: $key is '$got', validate/calib_launch.py derives $want"
    grep -E "^  $k: " configs/h200.yaml | grep -q "$KIT/launch/.*validate/calib_launch.py" \
        || fail "configs/h200.yaml: $key does not cite $KIT/launch/ and validate/calib_launch.py"
    n=$((n + 1))
done <"$T/r1"
[ "$n" -eq 9 ] || fail "expected 9 derived keys, got $n"

# --- 2. the engine's lone warp ------------------------------------------------
want=$(sed -n 's/^ENGINE_LONE_WARP = \([0-9]*\)$/\1/p' validate/calib_launch.py)
got=$("$SMSIM" --config configs/h200.yaml validate/calib-traces/launch/launch-w0-t32-d0-1bw.trace \
      --set scheduler.icache_cold=0 --set scheduler.launch_start=0 --set scheduler.launch_drain=0 \
      --set scheduler.dispatch_retire=0 --set scheduler.warp_release=0 --format csv 2>"$T/err" | grep -v '^# ' |
      awk -F'","' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sm__cycles_elapsed.avg") c = i }
                   NR == 3 && c { v = $c; gsub(/"/, "", v); print v }')
[ -n "$want" ] && [ "$got" = "$want" ] || fail "lone one-warp block: engine $got cycles, calib_launch.py assumes $want"

# --- 2b. kernel time as ncu reports it: gpu__time_duration.sum of the lone
# block = its elapsed cycles (start and drain included) / gpu.sm_clock_mhz
# (1980: 3027 cycles -> 1528.79 ns; ncu measured 1568 ns at its 1.934 GHz,
# launch-ncu.raw.csv:45)
mhz=$(awk '/^[a-z]/ { in_g = ($1 == "gpu:") } in_g && $1 == "sm_clock_mhz:" { print $2 }' "$T/printed")
"$SMSIM" --config configs/h200.yaml validate/calib-traces/launch/launch-w0-t32-d0-1bw.trace --format csv \
    >"$T/lone.raw" 2>"$T/err" || fail "lone block: $(cat "$T/err")"
grep -v '^# ' "$T/lone.raw" >"$T/lone.csv" # the table without the provenance lines
awk -F'","' -v mhz="$mhz" '
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "sm__cycles_elapsed.avg") e = i; if ($i == "gpu__time_duration.sum") d = i } }
    NR == 3 { ev = $e; dv = $d; gsub(/"/, "", ev); gsub(/"/, "", dv)
              want = ev * 1000 / mhz
              exit !(mhz > 0 && ev > 0 && dv - want < 1e-6 * want && want - dv < 1e-6 * want) }' "$T/lone.csv" \
    || fail "lone block: gpu__time_duration.sum is not sm__cycles_elapsed.avg / $mhz MHz"

# --- 3. the calibration set ---------------------------------------------------
python3 validate/gen-launch-traces.py "$T/ct" >/dev/null 2>"$T/err" || fail "gen-launch-traces.py: $(cat "$T/err")"
for f in validate/calib-traces/launch/*.trace; do
    cmp -s "$f" "$T/ct/launch/${f##*/}" || fail "$f is not what validate/gen-launch-traces.py makes"
done
[ "$(ls "$T"/ct/launch/*.trace | wc -l)" -eq "$(ls validate/calib-traces/launch/*.trace | wc -l)" ] ||
    fail "number of calibration traces differs"
sed "s#$T/ct#validate/calib-traces#" "$T/ct/launch-manifest.tsv" | cmp -s - validate/calib-traces/launch-manifest.tsv ||
    fail "validate/calib-traces/launch-manifest.tsv is not what validate/gen-launch-traces.py makes"
TH=validate/calib-traces/launch-thresholds.tsv
MAX=$(awk -F'\t' '$1 == "ci" && $2 == "max_insts" { print $3 }' "$TH")
"$SMSIM" validate "$KIT/launch" --manifest validate/calib-traces/launch-manifest.tsv --format json \
    --max-insts "$MAX" --jobs "$(nproc 2>/dev/null || echo 2)" --thresholds "$TH" >"$T/out.json" 2>"$T/err" \
    || fail "calibration set outside $TH: $(head -3 "$T/err")"
grep -E '^    "sm__(cycles_elapsed|warps_active)[a-z_.]*": \{"mape_pct"' "$T/out.json" | cut -c1-140

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok: $n launch keys match $KIT/launch/; lone warp $got cycles; calibration set within $TH"
