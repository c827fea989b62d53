#!/bin/bash
# cli_order_calib.sh — the scheduler policy grr against kit15's calib_order
# (docs/calibration.md, "Scheduler order across blocks"):
#  1. validate/calib_order.py on validate/data/h100/kit15-2026-12-07 with
#     configs/h100.yaml: on every point whose warps start together, grr's
#     first-end / last-end ratio is within 0.01 of the H100's (every warp
#     ends together);
#  2. the configured policy (gob) is not: at 4 warps per SMSP of 4 blocks
#     (b=4 W=4) its two oldest warps finish at ~54 % of the span, as the
#     docs say — if gob ever matched, the docs' "no policy fits both" and the
#     configs' comments would be stale;
#  3. mutation: grr run as gto (--set scheduler.policy=gto for the grr
#     column's check) misses b=4 W=4 by more than 0.4;
#  4. a missing kit is one line on stderr and a non-zero exit.
# Needs python3 (standard library only); without it the test is skipped (77).
# Usage (from the repo root): bash tests/cli_order_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_order_calib.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
KIT=validate/data/h100/kit15-2026-12-07
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# column k (1 = measured, 2 = configured, 3 = the first --policies entry) of
# every point row: "b=.. W=.. C=..  m span  c span  p span   file:line"
col() { awk -v k="$2" '/^b=[0-9]+ W=[0-9]+ +C=[0-9]+ / { print $1, $2, $(2 + 2 * k) }' "$1"; }
maxdiff() { # FILE K: the largest |column K - measured| over the points
    paste <(col "$1" 1) <(col "$1" "$2") | awk '{ d = $3 - $6; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3f\n", m + 0 }'
}
python3 validate/calib_order.py "$KIT" --smsim "$SMSIM" --config configs/h100.yaml \
    --policies grr --jobs 2 >"$TMP/out" 2>"$TMP/err" \
    || { echo "FAIL: calib_order.py: $(cat "$TMP/err")"; exit 1; }
cat "$TMP/out"
[ "$(col "$TMP/out" 1 | wc -l)" -ge 6 ] || fail "calib_order.py printed fewer than 6 points"
d=$(maxdiff "$TMP/out" 3)
awk -v d="$d" 'BEGIN { exit !(d <= 0.01) }' || fail "grr: largest |ratio difference| $d > 0.01"
g=$(col "$TMP/out" 2 | awk '$1 == "b=4" && $2 == "W=4" { print $3 }')
awk -v g="$g" 'BEGIN { exit !(g != "" && g < 0.6) }' \
    || fail "configured gob at b=4 W=4: ratio '$g', the docs say ~0.54"
# mutation: the grr column computed with gto instead must miss by > 0.4
python3 validate/calib_order.py "$KIT" --smsim "$SMSIM" --config configs/h100.yaml \
    --policies gto --jobs 2 >"$TMP/mut" 2>&1 || fail "calib_order.py --policies gto: $(tail -n 1 "$TMP/mut")"
m=$(maxdiff "$TMP/mut" 3)
awk -v d="$m" 'BEGIN { exit !(d > 0.4) }' || fail "mutation not caught: gto's largest difference is $m"
# bad input: one line, non-zero exit, nothing on stdout
python3 validate/calib_order.py "$KIT/nonexistent" --smsim "$SMSIM" >"$TMP/o" 2>"$TMP/e" \
    && fail "calib_order.py accepted a missing kit"
[ "$(wc -l <"$TMP/e")" -eq 1 ] || fail "calib_order.py error is not one line: $(cat "$TMP/e")"
[ -s "$TMP/o" ] && fail "calib_order.py printed on stdout for a missing kit"
[ "$fails" -eq 0 ] && echo "ok: grr within 0.01 of kit15 on every point, gob off at b=4 W=4, mutation caught"
exit $((fails > 0))
