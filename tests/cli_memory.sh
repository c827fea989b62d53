#!/bin/bash
# cli_memory.sh — memory bounded by what the inputs hold, not by their
# line count (issue #22: a 200,000-row ncu CSV took 510 MB, one malloc'd
# string per cell; a 2,000,000-line native trace 283 MB, one 136-byte
# instruction per line).  Both now run within a 150 MB address-space
# limit: the ncu cells share one text block (16 bytes of index per cell),
# and a kernel keeps one copy of each distinct instruction (16 + 4 bytes
# per line).  docs/performance.md ("Memory") has the measured numbers.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_memory.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
LIMIT_KB=150000
limited() { (ulimit -v $LIMIT_KB; exec timeout 300 "$SMSIM" "$@") >"$TMP/out" 2>"$TMP/err"; rc=$?; }
# a sanitizer build reserves terabytes of address space: no limit then
limited --config $C tests/data/trace/counts.trace
if [ $rc -ne 0 ]; then
    echo "note: the binary does not run under ulimit -v (a sanitizer build?): no memory limit"
    limited() { timeout 300 "$SMSIM" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
fi

# 1. a native trace of 2,000,000 lines (5 distinct instructions, unrolled)
awk 'BEGIN {
    print "kernel big grid=(1,1,1) block=(32,1,1) regs=32 smem_static=0 smem_dynamic=0 {"
    split("FFMA R0, R1, R2, R3|IADD3 R4, R5, R6, RZ|MOV R9, R10|ISETP.GE.AND P0, PT, R0, R1, PT|LDG.E R8, desc[UR4][R2.64]", op, "|")
    for (i = 0; i < 1999998; i++) print "  " op[i % 5 + 1]
    print "  EXIT"; print "}" }' >"$TMP/big.trace"
# parsed in full, then stopped at the first cycle (the run is not the point)
limited --config $C "$TMP/big.trace" --max-cycles 1
grep -q "kernel 'big': simulation passed max_cycles (1)" "$TMP/err" ||
    fail "2,000,000-line trace under ${LIMIT_KB} KB: exit $rc ($(head -c 300 "$TMP/err"))"

# 2. an ncu raw page of 200,000 launches (14 columns, 2.8 M cells)
awk 'BEGIN {
    print "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"smsp__issue_active.avg.per_cycle_active\",\"sm__cycles_elapsed.avg\""
    print "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"inst/cycle\",\"cycle\""
    for (i = 0; i < 200000; i++)
        printf "\"%d\",\"1234\",\"app\",\"host\",\"kern_%d\",\"1\",\"7\",\"(256, 1, 1)\",\"(1024, 1, 1)\",\"0\",\"9.0\",\"%d.%02d\",\"0.%02d\",\"%d\"\n", i, i % 7, i % 100, i % 97, i % 100, 1000 + i }' >"$TMP/big.csv"
limited compare --ncu "$TMP/big.csv" --ncu-id 199999 --config $C tests/data/trace/counts.trace --format csv
[ $rc -eq 0 ] && grep -q '"sm__cycles_elapsed.avg","cycle",.*"200999"' "$TMP/out" ||
    fail "200,000-row ncu CSV under ${LIMIT_KB} KB: exit $rc ($(head -c 300 "$TMP/err"))"

echo "cli_memory: $fails failures"
[ $fails -eq 0 ]
