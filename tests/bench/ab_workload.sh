#!/bin/bash
# ab_workload.sh — one `smsim bench` workload on several builds, runs
# alternating between the builds (docs/performance.md: on this VM only runs
# of the same minutes compare).  Prints per build the fastest and the median
# engine time of its runs.  Not part of ctest.
# Usage: bash tests/bench/ab_workload.sh ROUNDS WORKLOAD THREADS SMSIM...   (repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
R=${1:?usage: ab_workload.sh ROUNDS WORKLOAD THREADS SMSIM...}
W=${2:?usage: ab_workload.sh ROUNDS WORKLOAD THREADS SMSIM...}
T=${3:?usage: ab_workload.sh ROUNDS WORKLOAD THREADS SMSIM...}
shift 3
[ $# -ge 1 ] || { echo "usage: ab_workload.sh ROUNDS WORKLOAD THREADS SMSIM..." >&2; exit 2; }
declare -A res
for r in $(seq "$R"); do
    for b in "$@"; do
        s=$("$b" bench --only "$W" --threads "$T" | awk -v w="$W" '$1 == w { print $4 }')
        res[$b]="${res[$b]:-} $s"
    done
done
for b in "$@"; do
    echo "$b threads=$T $W: $(echo ${res[$b]} | tr ' ' '\n' | sort -n |
        awk '{ a[NR] = $1 } END { printf "min %.3f s, median %.3f s, %d runs", a[1], a[int((NR + 1) / 2)], NR }')"
done
