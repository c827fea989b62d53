#!/bin/bash
# cli_mix_calib.sh — the FMA datapath rules stay where kit9's interleaved
# pipe mixes put them (issue #18; docs/calibration.md, "FMA-heavy: IMAD.WIDE,
# VIADD and the ALU"): validate/calib_mix.py simulates calib_pipes' IMAD +
# IADD3, FFMA + IADD3 and FFMA + IMAD mixes from their SASS and compares the
# issue rate with ncu's (measured on an H100, the H200's SM).  Today: issue
# MAPE 4.3 %, max 11.9 %; bounds ~1.4x: MAPE <= 6 %, max <= 17 %.  With
# ALU and FMA-heavy as one datapath (--set pipes.fmaheavy.shares_alu=1) IMAD +
# IADD3 issues 0.50 per cycle where the GPU issues 0.80 (MAPE 13.1 %, max
# 37.3 %); with FP32 kept on FMA-lite alone (a mutation of eng_pipe.h)
# FFMA + IADD3 issues 0.83 against 0.67 (MAPE 16.2 %, max 23.2 %).  Needs python3 (standard library only); without it: skipped (77).
# Usage (from the repo root): bash tests/cli_mix_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_mix_calib.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

python3 validate/calib_mix.py --smsim "$SMSIM" >"$TMP/out" 2>"$TMP/err" ||
    { echo "FAIL: calib_mix.py: $(cat "$TMP/err")"; exit 1; }
cat "$TMP/out"
line=$(grep '^issue MAPE .* over 3 mixes' "$TMP/out") || { echo "FAIL: no summary line for 3 mixes"; exit 1; }
read -r mape max <<<"$(echo "$line" | sed -E 's/issue MAPE ([0-9.]+) % \(max ([0-9.]+)\).*/\1 \2/')"
check() { # name value bound
    awk -v v="$2" -v b="$3" 'BEGIN { exit !(v + 0 <= b + 0) }' || fail "$1 $2 > $3"
}
check "issue MAPE" "$mape" 6
check "issue max error" "$max" 17
[ "$fails" -eq 0 ] && echo "ok: issue MAPE $mape % (max $max)"
exit $((fails > 0))
