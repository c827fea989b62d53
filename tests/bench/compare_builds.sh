#!/bin/bash
# compare_builds.sh — the `smsim bench` median line of several builds,
# alternating, each run from fresh copies of its file (docs/performance.md,
# "Measuring": on the development VM a byte-identical binary ran a workload
# 1.6x slower from one file than from its copies, so one file's runs say
# little).
# Prints one line per build: its runs (M warp-instructions/s) and their median.
# Not part of ctest.
# Usage: bash tests/bench/compare_builds.sh COPIES ROUNDS SMSIM... (repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
COPIES=${1:?usage: compare_builds.sh COPIES ROUNDS SMSIM...}
ROUNDS=${2:?usage: compare_builds.sh COPIES ROUNDS SMSIM...}
shift 2
[ $# -ge 1 ] || { echo "usage: compare_builds.sh COPIES ROUNDS SMSIM..." >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
nb=0
for b in "$@"; do
    for c in $(seq "$COPIES"); do cp "$b" "$TMP/bin$nb.$c"; done
    nb=$((nb + 1))
done
for r in $(seq "$ROUNDS"); do
    for c in $(seq "$COPIES"); do
        for i in $(seq 0 $((nb - 1))); do
            v=$("$TMP/bin$i.$c" bench | awk '$1 == "warp_instructions_per_second:" { print $2 / 1e6 }')
            echo "$i $v" >>"$TMP/runs"
        done
    done
done
i=0
for b in "$@"; do
    awk -v i="$i" -v b="$b" '$1 == i { v[n++] = $2 }
        END { for (a = 0; a < n; a++) for (c = a + 1; c < n; c++) if (v[c] < v[a]) { t = v[a]; v[a] = v[c]; v[c] = t }
              m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
              printf "%s:", b; for (a = 0; a < n; a++) printf " %.2f", v[a]; printf "  median %.2f\n", m }' "$TMP/runs"
    i=$((i + 1))
done
