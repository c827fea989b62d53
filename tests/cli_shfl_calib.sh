#!/bin/bash
# cli_shfl_calib.sh — SHFL's result latency (pipes.lsu.latency) stays where
# kit14's calib_pipes chains put it (docs/calibration.md, "SHFL"):
#  1. validate/calib_shfl.py derives the key from
#     validate/data/h100/kit14-2026-12-07 (one warp, one dependent SHFL.BFLY
#     chain: ncu 23.70 warp cycles per issued instruction) and configs/h200.yaml
#     and configs/h100.yaml hold exactly that value, on a line that cites the
#     kit;
#  2. with the configured value the simulated chain is within 1 % of ncu's;
#  3. mutation: the key's earlier value (4, the address-side guess) puts the
#     chain ~83 % fast, and step 2's check catches it;
#  4. a missing kit is one line on stderr and a non-zero exit.
# Needs python3 (standard library only); without it the test is skipped (77).
# Usage (from the repo root): bash tests/cli_shfl_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_shfl_calib.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
KIT=validate/data/h100/kit14-2026-12-07
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

python3 validate/calib_shfl.py "$KIT" --smsim "$SMSIM" --jobs 2 >"$TMP/out" 2>"$TMP/err" \
    || { echo "FAIL: calib_shfl.py: $(cat "$TMP/err")"; exit 1; }
cat "$TMP/out"
# configured (configs/h200.yaml): one-warp chain wcpi 23.72, ncu 23.70: +0.08 %
within1() { # the configured line of FILE: |error| <= 1 %
    local e
    e=$(sed -nE 's/^configured .*: ([-+][0-9.]+) %$/\1/p' "$1")
    [ -n "$e" ] && awk -v e="$e" 'BEGIN { exit !(e <= 1 && e >= -1) }'
}
within1 "$TMP/out" || fail "configured SHFL latency: one-warp chain not within 1 % of ncu"
for cfg in h200 h100; do
    want=$(sed -nE "s/^$cfg pipes\.lsu\.latency ([0-9]+)$/\1/p" "$TMP/out")
    line=$(awk '/^  lsu:/ { f = 1; next } f && /^    latency:/ { print; exit }' "configs/$cfg.yaml")
    got=$(echo "$line" | awk '{ print $2 }')
    [ -n "$want" ] && [ "$got" = "$want" ] \
        || fail "configs/$cfg.yaml pipes.lsu.latency is '$got', calib_shfl.py derives '$want'"
    case $line in *"$KIT/shfl/pipes.txt"*) ;; *) fail "configs/$cfg.yaml pipes.lsu.latency does not cite $KIT" ;; esac
done
# mutation: the earlier key value must fail step 2's check
python3 validate/calib_shfl.py "$KIT" --smsim "$SMSIM" --jobs 2 --set pipes.lsu.latency=4 >"$TMP/mut" 2>&1 \
    || fail "calib_shfl.py with --set pipes.lsu.latency=4: $(tail -n 1 "$TMP/mut")"
within1 "$TMP/mut" && fail "mutation not caught: pipes.lsu.latency=4 passes the 1 % check"
grep '^configured' "$TMP/mut"
# bad input: one line, non-zero exit, nothing on stdout
python3 validate/calib_shfl.py "$KIT/nonexistent" --smsim "$SMSIM" >"$TMP/o" 2>"$TMP/e" \
    && fail "calib_shfl.py accepted a missing kit"
[ "$(wc -l <"$TMP/e")" -eq 1 ] || fail "calib_shfl.py error is not one line: $(cat "$TMP/e")"
[ -s "$TMP/o" ] && fail "calib_shfl.py printed on stdout for a missing kit"
[ "$fails" -eq 0 ] && echo "ok: pipes.lsu.latency as derived, chain within 1 %, mutation caught"
exit $((fails > 0))
