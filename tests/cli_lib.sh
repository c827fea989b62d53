#!/bin/bash
# cli_lib.sh — helpers shared by the shell tests tests/cli_*.sh; not a test
# itself (tests/CMakeLists.txt leaves it out).  A test sets SMSIM (the
# binary), TMP (a scratch directory) and fails=0, then sources this file:
#   source "$(dirname "$0")/cli_lib.sh"
# SPDX-License-Identifier: GPL-3.0-or-later

# The sample kernels include streaming ones, of a class the validation marks
# weak: no caution line on their stderr (tests/cli_weak.sh checks it).
export SMSIM_NO_CAUTION=1

# fail MESSAGE...: report one failed assertion and count it in $fails
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# noprov FILE: FILE without its provenance (the JSON "provenance" line and
# the CSV "# key: value" lines), to compare outputs of different inputs
noprov() {
    grep -v -e '^  "provenance": ' -e '^# ' "$1"
}

# run ARGS...: stdout -> $TMP/out, stderr -> $TMP/err, status -> $rc,
# the arguments -> $LAST
run() {
    LAST="$*"
    "$SMSIM" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}

# expect_ok ARGS...: exit 0, stderr empty, stdout not empty.
expect_ok() {
    run "$@"
    [ "$rc" -eq 0 ] || fail "exit $rc for: $* ($(head -c 300 "$TMP/err"))"
    [ -s "$TMP/err" ] && fail "stderr not empty for: $* ($(head -c 300 "$TMP/err"))"
    [ -s "$TMP/out" ] || fail "stdout empty for: $*"
}

# expect_err REGEX ARGS...: exit != 0, stdout empty, stderr one line matching.
expect_err() {
    local re=$1
    shift
    run "$@"
    [ "$rc" -ne 0 ] || fail "exit 0 for bad input: $*"
    [ -s "$TMP/out" ] && fail "stdout not empty for bad input: $*"
    local lines
    lines=$(wc -l <"$TMP/err")
    [ "$lines" -eq 1 ] || fail "stderr has $lines lines (want 1) for: $* ($(head -c 300 "$TMP/err"))"
    grep -Eq -- "$re" "$TMP/err" || fail "stderr '$(cat "$TMP/err")' does not match '$re' for: $*"
}
