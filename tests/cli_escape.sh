#!/bin/bash
# cli_escape.sh — bytes a terminal would obey (escape sequences, other
# control bytes) are shown as \xHH in every message that quotes input, by
# one helper (arch_msg_escape) for every reader (issue #22: the trace
# reader did it; the ncu CSV reader and the configuration showed '?', and
# merge and validate printed what their files held).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_escape.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
# has ESCAPED_TEXT: stderr holds the text (fixed string) and no raw control byte
has() {
    grep -qF -- "$1" "$TMP/err" || fail "stderr '$(cat -v "$TMP/err")' lacks '$1' for: $LAST"
    LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/err" && fail "raw control bytes on stderr for: $LAST"
}
# the ncu CSV reader: a cell, a column name and a unit
run compare --ncu tests/data/errors/ncu_ctl_escape.csv --config $C tests/data/validate/tiny_ilp1_b1.trace
has "sm__cycles_elapsed.avg: '1\x1b[2J2' is not a number"
printf '"ID","Kernel Name","sm__cycles_elapsed.avg"\n"","","cy\x07cle"\n"0","k","12"\n' >"$TMP/unit.csv"
run compare --ncu "$TMP/unit.csv" --config $C tests/data/validate/tiny_ilp1_b1.trace
has "unknown unit 'cy\x07cle'"
printf '"ID","Kernel Name","x"\n"0","k","1"x\x1b\n' >"$TMP/after.csv"
run compare --ncu "$TMP/after.csv" --config $C tests/data/validate/tiny_ilp1_b1.trace
has "unexpected 'x' after a quoted field"
printf '"ID","Kernel Name","x"\n"0","k","1"\0\n' >"$TMP/nul.csv"
run compare --ncu "$TMP/nul.csv" --config $C tests/data/validate/tiny_ilp1_b1.trace
has "unexpected '\x00' after a quoted field"
# the configuration: an override's key
run config --config $C --set $'gpu.na\x1bme=1'
has "unknown key 'gpu.na\x1bme'"
# merge: a string from a job's JSON (\u001b decodes to the byte)
mkdir -p "$TMP/jd"
"$SMSIM" sweep --config $C tests/data/trace/counts.trace --vary gpu.sm_count=1 \
    --emit-jobs "$TMP/jobs.txt" --job-dir "$TMP/jd" >/dev/null 2>&1 || fail "--emit-jobs failed"
printf '{"config": "H\\u001b[2J", "kernels": [{"name": "k", "metrics": {"a": 1}}]}\n' >"$TMP/jd/point-0.json"
run merge --sweep-manifest "$TMP/jd/manifest.json" "$TMP/jd/point-0.json"
has "config 'H\x1b[2J' is not the manifest's"
# validate: a manifest's trace path
printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\nc\t1\tno\033[2Jpe.trace\ttests/data/validate/tiny.raw.csv\t0\n' >"$TMP/m.tsv"
run validate tests/data/validate --manifest "$TMP/m.tsv"
has "no\x1b[2Jpe.trace"
echo "cli_escape: $fails failures"
[ $fails -eq 0 ]
