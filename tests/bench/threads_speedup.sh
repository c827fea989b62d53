#!/bin/bash
# threads_speedup.sh — two-thread speed-up of each `smsim bench` workload
# (docs/performance.md, "Current numbers").  For ROUNDS rounds, each workload
# runs on 1 then on 2 threads; each (workload, threads) pair keeps its
# fastest engine time, because this VM's speed moves by +-15 % between
# minutes and the fastest run is the one least disturbed.  Not part of ctest.
# Usage: bash tests/bench/threads_speedup.sh /path/to/smsim [ROUNDS]   (repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SMSIM=${1:?usage: threads_speedup.sh /path/to/smsim [ROUNDS]}
ROUNDS=${2:-5}
WL="stream_copy ffma_ilp1 ffma_ilp4 dram_chain gemm_tile accelsim"
declare -A best
for r in $(seq "$ROUNDS"); do
    for w in $WL; do
        for th in 1 2; do
            s=$("$SMSIM" bench --only "$w" --threads "$th" | awk -v w="$w" '$1 == w { print $4 }')
            k="$w.$th"
            if [ -z "${best[$k]:-}" ] || awk -v a="$s" -v b="${best[$k]}" 'BEGIN { exit !(a < b) }'; then
                best[$k]=$s
            fi
        done
    done
done
printf '%-12s %9s %9s %8s\n' workload 1thread_s 2threads_s speedup
for w in $WL; do
    awk -v w="$w" -v a="${best[$w.1]}" -v b="${best[$w.2]}" \
        'BEGIN { printf "%-12s %9.3f %9.3f %7.2fx\n", w, a, b, a / b }'
done
