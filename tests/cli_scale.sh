#!/bin/bash
# cli_scale.sh — a trace of many small kernels (Accel-Sim lists have tens of
# thousands) runs in memory that does not grow with the kernel count
# (issue #22: each kernel's counters were kept until the end, ~90 KB per
# kernel; 5,000 one-instruction kernels took 450 MB).  5,000 kernels must
# run within a 120 MB address-space limit and give one CSV row each.
# docs/performance.md ("Many kernels") has the measured numbers.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_scale.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
N=5000
LIMIT_KB=120000

awk -v n=$N 'BEGIN { for (i = 0; i < n; i++)
    printf "kernel k%d grid=(1,1,1) block=(32,1,1) regs=16 smem_static=0 smem_dynamic=0 {\n  EXIT\n}\n", i }' \
    >"$TMP/many.trace"
limited() { (ulimit -v $LIMIT_KB; exec timeout 120 "$SMSIM" "$@") >"$TMP/out" 2>"$TMP/err"; rc=$?; }

# a sanitizer build reserves terabytes of address space: no limit then
limited --config $C tests/data/trace/counts.trace
if [ $rc -ne 0 ]; then
    echo "note: the binary does not run under ulimit -v (a sanitizer build?): no memory limit"
    limited() { timeout 120 "$SMSIM" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
fi
limited --config $C "$TMP/many.trace" --format csv
[ $rc -eq 0 ] || fail "$N kernels: exit $rc ($(head -c 300 "$TMP/err"))"
rows=$(grep -vc '^# ' "$TMP/out") # the lines after the provenance
[ "$rows" -eq $((N + 2)) ] || fail "$N kernels: $rows CSV lines, want $((N + 2))"
# the last kernel's row names it: the kernels are all there, in order
tail -n 1 "$TMP/out" | grep -q "^\"k$((N - 1))\"," || fail "the last row is not kernel k$((N - 1))"

echo "cli_scale: $fails failures"
[ $fails -eq 0 ]
