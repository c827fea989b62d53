#!/bin/bash
# cli_hangs.sh — inputs that once made smsim run for ever (issue #22): each
# must end, with an error or a report, well inside a time limit.  The large
# inputs are generated here, not committed.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_hangs.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
LIMIT=${LIMIT:-20} # seconds; each case takes well under one when it does not hang

# ends RC_WANTED REGEX ARGS...: smsim ARGS ends within LIMIT seconds with exit
# status RC_WANTED (0 or "fail" for any non-zero) and, for a failure, one
# line on stderr matching REGEX.
ends() {
    local want=$1 re=$2
    shift 2
    timeout "$LIMIT" "$SMSIM" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -eq 124 ]; then
        fail "still running after ${LIMIT}s: smsim $*"
        return
    fi
    if [ "$want" = 0 ]; then
        [ $rc -eq 0 ] || fail "exit $rc for: smsim $* ($(head -c 300 "$TMP/err"))"
        return
    fi
    [ $rc -ne 0 ] || fail "exit 0 for: smsim $*"
    [ -s "$TMP/out" ] && fail "stdout not empty for: smsim $*"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line on stderr for: smsim $* ($(head -c 300 "$TMP/err"))"
    grep -Eq -- "$re" "$TMP/err" || fail "stderr '$(head -c 300 "$TMP/err")' does not match '$re' for: smsim $*"
}

# 1. /dev/zero as the trace: the format probe looped on NUL "lines".
ends fail '^/dev/zero:1:1: NUL byte in line' --config $C /dev/zero
# ... and as a validate manifest's trace
printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\ntiny\t1\t/dev/zero\ttests/data/validate/tiny.raw.csv\t0\n' >"$TMP/zero.tsv"
ends fail '/dev/zero:1:1: NUL byte in line' validate tests/data --manifest "$TMP/zero.tsv"
# ... and a regular file of NUL bytes with no newline: a line-length error,
# not a buffer that grows with the file
head -c 300000 /dev/zero >"$TMP/nul.trace"
ends fail 'nul\.trace:1:1: NUL byte in line' --config $C "$TMP/nul.trace"
head -c 300000 /dev/zero | tr '\0' 'x' >"$TMP/long.trace"
ends fail 'long\.trace:1:1: line longer than 65535 bytes' --config $C "$TMP/long.trace"

# 2. A YAML flow nested 200,000 deep inside the 1 MB cap: libyaml's time
# grows with the square of the depth (hours); the depth is now bounded.
{ printf 'gpu: '; head -c 200000 /dev/zero | tr '\0' '['; head -c 200000 /dev/zero | tr '\0' ']'; echo; } >"$TMP/deep.yaml"
ends fail 'deep\.yaml:1:[0-9]+: YAML nested deeper than 64 levels' config --config "$TMP/deep.yaml"
{ printf 'gpu: '; head -c 200000 /dev/zero | tr '\0' '{'; } >"$TMP/deep2.yaml"
ends fail 'deep2\.yaml:1:[0-9]+: YAML nested deeper than 64 levels' --config "$TMP/deep2.yaml" tests/data/trace/counts.trace

# 3. A trace of about 2^69 warp-instructions: refused before the run.
ends fail "kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 " \
    --config $C tests/data/errors/insts_huge.trace
ends fail "kernel 'huge' executes 2\^64 or more warp-instructions, more than 1000 " \
    --config $C tests/data/errors/insts_huge.trace --max-insts 1000 --max-cycles 5
# an explicit --max-cycles bounds the run instead
ends fail "simulation passed max_cycles \(1000\)" --config $C tests/data/errors/insts_huge.trace --max-cycles 1000

# 4. --max-cycles 2^64-1 once wrapped to 0 ("max_cycles + 1") and the loop
# never advanced: the run must end with its report.
ends 0 '' --config $C tests/data/trace/counts.trace --max-cycles 18446744073709551615
ends 0 '' --config $C tests/data/trace/counts.trace --max-cycles 18446744073709551615 --threads 2

echo "cli_hangs: $fails failures"
[ $fails -eq 0 ]
