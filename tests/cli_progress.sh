#!/bin/bash
# cli_progress.sh — the progress line of a long run (issue #21): shown on a
# terminal (here a pseudo-terminal made by script(1)) with a percentage and
# an ETA, erased at the end; silent when stderr is not a terminal, with
# --quiet, and with a JSON report on stdout; never a byte of difference in
# the outputs.  SMSIM_PROGRESS_DELAY=0 shows it at once (2 s by default).
# SPDX-License-Identifier: GPL-3.0-or-later
SMSIM=${1:-build/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
T=validate/traces/smem-tile/b1.trace   # 3.3 M warp-instructions, ~1000 epochs
C=configs/h200.yaml
export SMSIM_PROGRESS_DELAY=0

# 1. not a terminal: nothing on stderr, whatever the delay
run --config $C "$T"
[ "$rc" -eq 0 ] || fail "plain run: exit $rc"
[ -s "$TMP/err" ] && fail "progress written to a stderr that is not a terminal: $(head -c 200 "$TMP/err")"
cp "$TMP/out" "$TMP/plain.txt"

if ! script -qec true /dev/null >/dev/null 2>&1; then
    echo "script(1) cannot make a pseudo-terminal here: the terminal cases are skipped"
else
    # 2. on a terminal: "\rsmsim:  NN% (X of Y warp-instructions), T, ETA E\033[K",
    #    erased by "\r\033[K" at the end; the report is the plain run's
    script -qec "'$SMSIM' --config $C $T -o '$TMP/tty.txt'" /dev/null >"$TMP/tty.log" 2>&1
    grep -aEq $'\rsmsim: +[0-9]+% \\([0-9.]+ [kMG]? ?of 3\\.3 M warp-instructions\\), [0-9.]+ s, ETA [0-9.]+ s\033\\[K' \
        "$TMP/tty.log" || fail "no progress line on a terminal: $(od -c "$TMP/tty.log" | head -5)"
    [ "$(tail -c 4 "$TMP/tty.log" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
        fail "the progress line is not erased at the end: $(tail -c 20 "$TMP/tty.log" | od -c)"
    cmp -s "$TMP/tty.txt" "$TMP/plain.txt" || fail "the report differs when progress is shown"
    # 3. --quiet, and JSON on stdout: silent on the terminal too
    script -qec "'$SMSIM' --config $C $T --quiet -o '$TMP/q.txt'" /dev/null >"$TMP/q.log" 2>&1
    [ -s "$TMP/q.log" ] && fail "--quiet printed on the terminal: $(od -c "$TMP/q.log" | head -3)"
    script -qec "'$SMSIM' --config $C $T --format json 2>&1 >'$TMP/j.json'" /dev/null >"$TMP/j.log" 2>&1
    grep -aq 'warp-instructions' "$TMP/j.log" && fail "progress shown while JSON goes to stdout"
    # (JSON to a file, -o: the terminal shows progress again)
    script -qec "'$SMSIM' --config $C $T --format json -o '$TMP/j2.json'" /dev/null >"$TMP/j2.log" 2>&1
    grep -aq 'ETA' "$TMP/j2.log" || fail "no progress with --format json -o FILE"
fi

# 4. the delay: with the default 2 s a run this short shows nothing
unset SMSIM_PROGRESS_DELAY
if script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "'$SMSIM' --config configs/h100.yaml tests/data/trace/counts.trace -o '$TMP/d.txt'" \
        /dev/null >"$TMP/d.log" 2>&1
    [ -s "$TMP/d.log" ] && fail "a run under 2 s showed progress: $(od -c "$TMP/d.log" | head -3)"
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
