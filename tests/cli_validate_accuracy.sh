#!/bin/bash
# cli_validate_accuracy.sh — the accuracy gate: `smsim validate` on the
# committed H200 measurements (validate/data/h200, offline, no GPU) must stay
# within the limits of validate/thresholds.tsv, the ONE place they are kept
# (docs/validation.md quotes them).  The test runs the CI subset: launches of
# at most `ci max_insts` warp-instructions (the row of the same file), which
# finishes in a few minutes on 2 cores; the full run is documented in
# docs/validation.md.
# Skipped (exit 77) only while validate/traces/manifest.tsv does not exist,
# i.e. before the validation traces were generated (validate/gen-traces.sh).
# Usage: bash tests/cli_validate_accuracy.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_validate_accuracy.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
M=validate/traces/manifest.tsv
T=validate/thresholds.tsv
if [ ! -f "$M" ]; then
    echo "SKIP: $M is absent: generate the validation traces first (bash validate/gen-traces.sh)"
    exit 77
fi
[ -f "$T" ] || { echo "FAIL: $T is missing"; exit 1; }
MAX=$(awk -F'\t' '$1 == "ci" && $2 == "max_insts" { print $3 }' "$T")
case $MAX in '' | *[!0-9]*) echo "FAIL: $T has no 'ci<TAB>max_insts<TAB>N' row"; exit 1 ;; esac
JOBS=$(nproc 2>/dev/null || echo 2)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)
"$SMSIM" validate validate/data/h200 --format json --max-insts "$MAX" --jobs "$JOBS" \
    --thresholds "$T" >"$TMP/out.json" 2>"$TMP/err"
rc=$?
echo "smsim validate validate/data/h200 --format json --max-insts $MAX --jobs $JOBS --thresholds $T:" \
    "exit $rc after $(($(date +%s) - start)) s"
# the summary, so a failing run shows where the model stands
grep -E '^    "[a-z0-9_.]+": \{"(mape_pct|mean_abs_diff_pp)"|^  "(saturation|stalls_top3|top_stall_agree|points|skipped)"' \
    "$TMP/out.json" | cut -c1-160
if [ "$rc" -ne 0 ]; then
    cat "$TMP/err"
    echo "FAIL: accuracy below the limits of $T (exit $rc)"
    exit 1
fi
echo "cli_validate_accuracy: every limit of $T is met"
