#!/bin/bash
# cli_frontend_calib.sh — the front-end keys (instruction and constant
# caches, issue #18) cannot drift from their calibration data:
# validate/calib_frontend.py re-derives them from
# validate/data/h200/kit3-2026-12-01/icache/ and const/ (twice: the same
# bytes), and configs/h200.yaml holds exactly those values, each line citing
# the data and the script; configs/h100.yaml has none of them (no data).
# Needs python3 (standard library only); without it the test is skipped (77).
# Usage (from the repo root): bash tests/cli_frontend_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_frontend_calib.sh /path/to/smsim}
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
KIT=validate/data/h200/kit3-2026-12-01
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

python3 validate/calib_frontend.py "$KIT" >"$T/r1" 2>"$T/err" || { echo "FAIL: calib_frontend.py: $(cat "$T/err")"; exit 1; }
python3 validate/calib_frontend.py "$KIT" >"$T/r2" 2>&1
cmp -s "$T/r1" "$T/r2" || fail "calib_frontend.py is not deterministic"
python3 validate/calib_frontend.py "$KIT/nonexistent" >"$T/out" 2>"$T/err" && fail "calib_frontend.py accepted a missing kit"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "calib_frontend.py error is not one line: $(cat "$T/err")"
"$SMSIM" config --config configs/h200.yaml >"$T/printed" 2>"$T/err" || fail "smsim config: $(cat "$T/err")"
n=0
while read -r tag key want; do
    [ "$tag" = h200 ] || continue
    k=${key#scheduler.}
    got=$(awk -v k="$k:" '/^[a-z]/ { in_s = ($1 == "scheduler:") } in_s && $1 == k { print $2 }' "$T/printed")
    [ -n "$got" ] && [ "$got" = "$want" ] || fail "configs/h200.yaml: $key is '$got', validate/calib_frontend.py derives $want"
    grep -E "^  $k: " configs/h200.yaml | grep -Eq "$KIT/(icache|const)/.*validate/calib_frontend.py" ||
        fail "configs/h200.yaml: $key does not cite $KIT/icache|const/ and validate/calib_frontend.py"
    grep -Eq "^  $k: " configs/h100.yaml && fail "configs/h100.yaml sets $key (no H100 front-end data)"
    n=$((n + 1))
done <"$T/r1"
[ "$n" -eq 11 ] || fail "expected 11 derived keys, got $n"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok: $n front-end keys match $KIT/icache and const/"
