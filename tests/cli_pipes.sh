#!/bin/bash
# cli_pipes.sh — a trace read from a pipe, a FIFO, <(...) or `-` (standard
# input) gives the same report as the file itself (issue #22: the format
# probe used to consume the first stdio buffer of such input, so a kernel
# could vanish with exit 0; sweep and saturate opened it a second time).
# The traces are larger than one 4 KB buffer.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_pipes.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml

# small kernels (quick to simulate) in files larger than one buffer: one
# kernel after 5 KB of comments, and three kernels with comments between
pad() { for i in $(seq 80); do echo "# padding line $i: more than one 4 KB stdio buffer in all"; done; }
{ pad; cat tests/data/trace/counts.trace; } >"$TMP/one.trace"
for k in a b c; do pad; sed "s/^kernel counts/kernel counts_$k/" tests/data/trace/counts.trace; done >"$TMP/three.trace"
for t in "$TMP/one.trace" "$TMP/three.trace"; do
    "$SMSIM" --config $C "$t" --format json >"$TMP/want.json" 2>"$TMP/err" ||
        fail "the file itself failed: $t ($(head -c 300 "$TMP/err"))"
    check() { # check HOW: the report in $TMP/got.json equals the file's
        cmp -s <(noprov "$TMP/want.json") <(noprov "$TMP/got.json") ||
            fail "$1: report differs from the file's for $t ($(head -c 200 "$TMP/err"))"
    }
    cat "$t" | timeout 20 "$SMSIM" --config $C /dev/stdin --format json >"$TMP/got.json" 2>"$TMP/err"
    check "a pipe as /dev/stdin"
    cat "$t" | timeout 20 "$SMSIM" --config $C - --format json >"$TMP/got.json" 2>"$TMP/err"
    check "a pipe as -"
    timeout 20 "$SMSIM" --config $C - --format json <"$t" >"$TMP/got.json" 2>"$TMP/err"
    check "a file redirected to -"
    timeout 20 "$SMSIM" --config $C <(cat "$t") --format json >"$TMP/got.json" 2>"$TMP/err"
    check "<(cat ...)"
    rm -f "$TMP/fifo"
    mkfifo "$TMP/fifo"
    cat "$t" >"$TMP/fifo" &
    timeout 20 "$SMSIM" --config $C "$TMP/fifo" --format json >"$TMP/got.json" 2>"$TMP/err"
    wait
    check "a FIFO"
done

# sweep and saturate read the trace once too (they used to open it again
# for the points: a pipe then had nothing left)
for sub in "sweep --vary gpu.sm_count=1,2 --format json --jobs 2" "saturate --format json --jobs 2"; do
    t="$TMP/one.trace"
    "$SMSIM" $sub --config $C "$t" >"$TMP/want.json" 2>"$TMP/err" ||
        fail "$sub on the file failed ($(head -c 300 "$TMP/err"))"
    cat "$t" | timeout 60 "$SMSIM" $sub --config $C - >"$TMP/got.json" 2>"$TMP/err"
    cmp -s <(noprov "$TMP/want.json") <(noprov "$TMP/got.json") ||
        fail "$sub from a pipe differs from the file's ($(head -c 200 "$TMP/err"))"
    timeout 60 "$SMSIM" $sub --config $C <(cat "$t") >"$TMP/got.json" 2>"$TMP/err"
    cmp -s <(noprov "$TMP/want.json") <(noprov "$TMP/got.json") ||
        fail "$sub from <(cat ...) differs from the file's ($(head -c 200 "$TMP/err"))"
done
# messages name standard input as <stdin>
printf 'kernel k grid=(1,1,1) block=(32,1,1) regs=16 smem_static=0 smem_dynamic=0 {\n  FFMAX R1, R2, R3, R4\n' >"$TMP/bad.trace"
LAST="- <bad.trace"
"$SMSIM" --config $C - <"$TMP/bad.trace" >"$TMP/out" 2>"$TMP/err"
grep -Eqx "<stdin>:2:3: unknown opcode 'FFMAX'" "$TMP/err" || fail "stdin message: $(cat "$TMP/err")"
# an Accel-Sim trace cannot come from a pipe (it is read by offset): said so
cat tests/data/errors/bad_version.traceg | "$SMSIM" --config $C - >"$TMP/out" 2>"$TMP/err"
grep -Eqx "<stdin>: an Accel-Sim trace must be a regular file \(it is read by offset\), not a pipe or device" "$TMP/err" ||
    fail "Accel-Sim from a pipe: $(cat "$TMP/err")"

echo "cli_pipes: $fails failures"
[ $fails -eq 0 ]
