#!/bin/bash
# run.sh — build and run the occupancy probe on the GPU of this machine.
#
#   bash validate/occupancy/run.sh OUTDIR
#
# Writes OUTDIR/occupancy.csv (one row per cudaOccupancyMaxActiveBlocksPerMultiprocessor
# query), OUTDIR/device.txt (device properties, driver and runtime versions),
# OUTDIR/kernels.csv (cudaFuncGetAttributes of every probe kernel) and
# OUTDIR/ptxas.log.  Environment: NVCC (default: nvcc on PATH, else
# /usr/local/cuda/bin/nvcc), OCC_ARCH (default sm_90, the H200's).
# For the H200 the results go to validate/data/h200/ and are replayed by
# tests/test_occ_h200.c.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail

OUT=${1:?usage: bash validate/occupancy/run.sh OUTDIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ARCH=${OCC_ARCH:-sm_90}
if [ -z "${NVCC:-}" ]; then
    if command -v nvcc >/dev/null 2>&1; then NVCC=nvcc; else NVCC=/usr/local/cuda/bin/nvcc; fi
fi
mkdir -p "$OUT"

echo "run.sh: building occ_probe for $ARCH with $NVCC"
"$NVCC" --version | tail -1
"$NVCC" -O2 -arch="$ARCH" -Xptxas -v -o "$OUT/occ_probe" "$HERE/occ_probe.cu" \
    2>"$OUT/ptxas.log" || { cat "$OUT/ptxas.log" >&2; exit 1; }

# The barriers column is known by construction (template argument B of
# heavy<R,S,B> / tiny<B>); check it against what ptxas reports.
awk '
    /Compiling entry function/ {
        name = $0; sub(/.*function .?/, "", name); sub(/.? for .*/, "", name)
        # the last "ILi<n>E" / "Li<n>E" of the mangled template arguments is B
        b = name; n = 0
        while (match(b, /Li[0-9]+E/)) { v = substr(b, RSTART + 2, RLENGTH - 3); b = substr(b, RSTART + RLENGTH); n++ }
        want = v
    }
    /Used [0-9]+ registers/ {
        got = 0
        if (match($0, /used [0-9]+ barriers/)) got = substr($0, RSTART + 5, RLENGTH - 14) + 0
        checked++
        if (got != want + 0) { printf "run.sh: %s: ptxas uses %d barriers, probe says %d\n", name, got, want; bad++ }
    }
    END {
        if (checked == 0) { print "run.sh: no kernels found in ptxas.log"; exit 1 }
        if (bad) exit 1
        printf "run.sh: barrier counts of %d kernels match ptxas\n", checked
    }' "$OUT/ptxas.log"

echo "run.sh: querying the runtime"
start=$(date +%s)
"$OUT/occ_probe" "$OUT/occupancy.csv" "$OUT/device.txt" "$OUT/kernels.csv"
echo "run.sh: $(($(wc -l <"$OUT/occupancy.csv") - 1)) rows in $(($(date +%s) - start)) s"
cat "$OUT/device.txt"
echo "run.sh: for the H200, copy occupancy.csv, device.txt and kernels.csv to validate/data/h200/"
