#!/bin/bash
# cli_weak.sh — the caution after a run of a kernel class the validation
# marks weak (validate/weak.tsv, compiled in; docs/validation.md "Weak
# kernel classes"): one line on stderr after the answer, the answer itself
# unchanged, none with --quiet, none for other kernels, one line for several
# matching kernels; every row of the table compiles.
# Usage: bash tests/cli_weak.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_weak.sh /path/to/smsim}
C=configs/h100.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
unset SMSIM_NO_CAUTION # cli_lib.sh sets it for the other tests

# the table's first class, as the caution must name it
row=$(grep -v '^#' validate/weak.tsv | grep -v '^$' | head -n 1)
class=$(printf '%s' "$row" | cut -f1)
err=$(printf '%s' "$row" | cut -f3)
[ -n "$class" ] && [ -n "$err" ] || fail "validate/weak.tsv has no row"
caution="smsim: caution: kernel 'copy_float4' is of a class the validation marks weak ($class, validate/weak.tsv): $err; see docs/validation.md"

# run: the caution after the report; --quiet: none, the same report
SET=(--set gpu.sm_count=2)
run --config $C tests/data/weak/copy_small.trace "${SET[@]}" --format json
[ $rc -eq 0 ] || fail "run copy_float4: exit $rc"
[ "$(cat "$TMP/err")" = "$caution" ] || fail "run copy_float4: stderr '$(cat "$TMP/err")'"
cp "$TMP/out" "$TMP/with"
run --config $C tests/data/weak/copy_small.trace "${SET[@]}" --format json --quiet
[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] || fail "--quiet: exit $rc, stderr '$(cat "$TMP/err")'"
cmp -s "$TMP/out" "$TMP/with" || fail "the caution changed the report"
# -o: the caution still comes, the file has the report
run --config $C tests/data/weak/copy_small.trace "${SET[@]}" -o "$TMP/r.txt"
[ $rc -eq 0 ] && [ "$(cat "$TMP/err")" = "$caution" ] && [ -s "$TMP/r.txt" ] ||
    fail "-o: exit $rc, stderr '$(cat "$TMP/err")'"
# a kernel of no weak class: silent
expect_ok --config $C tests/data/study/ffma_ilp1.trace "${SET[@]}"
# the name is matched case-insensitively, mangled names too
sed 's/^kernel copy_float4 /kernel _Z11val_COPY_f4PK6float4PS_ /' tests/data/weak/copy_small.trace >"$TMP/m.trace"
run --config $C "$TMP/m.trace" "${SET[@]}"
grep -q "^smsim: caution: kernel '_Z11val_COPY_f4PK6float4PS_' is of a class" "$TMP/err" ||
    fail "mangled, upper-case name: '$(cat "$TMP/err")'"
# an error is one line, no caution after it
expect_err "^smsim: --kernel 5" --config $C tests/data/weak/copy_small.trace --kernel 5
# several matching kernels: one line, naming the first and counting the rest
cat tests/data/weak/copy_small.trace tests/data/weak/vecadd_small.trace >"$TMP/two.trace"
run --config $C "$TMP/two.trace" "${SET[@]}"
[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "two kernels: exit $rc, $(cat "$TMP/err")"
grep -q "^smsim: caution: kernel 'copy_float4' (and 1 more kernel) is of a class" "$TMP/err" ||
    fail "two kernels: '$(cat "$TMP/err")'"
# SMSIM_NO_CAUTION=1 (what the other tests set): none
SMSIM_NO_CAUTION=1 run --config $C tests/data/weak/copy_small.trace "${SET[@]}"
[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] || fail "SMSIM_NO_CAUTION=1: exit $rc, '$(cat "$TMP/err")'"
# sweep and saturate caution too
run sweep --config $C tests/data/weak/copy_small.trace --vary gpu.sm_count=1 --jobs 1
[ $rc -eq 0 ] && [ "$(cat "$TMP/err")" = "$caution" ] || fail "sweep: exit $rc, '$(cat "$TMP/err")'"
run saturate --config $C tests/data/weak/copy_small.trace --set gpu.sm_count=1 --jobs 1
[ $rc -eq 0 ] && [ "$(cat "$TMP/err")" = "$caution" ] || fail "saturate: exit $rc, '$(cat "$TMP/err")'"

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "cli_weak: all checks passed"
