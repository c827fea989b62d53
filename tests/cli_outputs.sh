#!/bin/bash
# cli_outputs.sh — outputs are atomic (issue #22): `-o`, `--timeline` and
# `export --accelsim` never leave a truncated file or destroy the previous
# one, every output path is checked before the run, and no output may be an
# input or another output.
#
# A full disk is simulated with the file-size limit (ulimit -f, RLIMIT_FSIZE):
# the kernel then fails every write past the limit with EFBIG, whatever
# writes it (stdio included, whose internal write() an LD_PRELOAD shim
# cannot intercept), and it needs no root, no tmpfs and no compiler.
# SIGXFSZ is ignored so that the write fails instead of killing smsim.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_outputs.sh /path/to/smsim}
SMSIM=$(cd "$(dirname "$SMSIM")" && pwd)/$(basename "$SMSIM")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
T=tests/data/trace/counts.trace

# full LIMIT_KB ARGS...: smsim ARGS with writes limited to LIMIT_KB KiB
full() {
    local kb=$1
    shift
    (trap '' XFSZ; ulimit -f "$kb"; exec "$SMSIM" "$@") >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# only_old DIR: DIR holds nothing but what the test put there (no *.tmp*)
no_temps() {
    local left
    left=$(find "$1" -name '*.tmp*' | head -n 3)
    [ -z "$left" ] || fail "temporary files left behind: $left"
}

# 1. -o on a full disk: the old report intact, nothing partial
mkdir -p "$TMP/o"
echo "OLD REPORT" >"$TMP/o/r.txt"
full 1 --config $C $T --format json -o "$TMP/o/r.txt"
[ $rc -ne 0 ] || fail "-o on a full disk: exit 0"
grep -q "cannot write '.*r\.txt': File too large" "$TMP/err" || fail "-o on a full disk: message '$(cat "$TMP/err")'"
[ "$(cat "$TMP/o/r.txt")" = "OLD REPORT" ] || fail "-o on a full disk destroyed the old report"
no_temps "$TMP/o"
# ... and with room, the report replaces it
run --config $C $T --format json -o "$TMP/o/r.txt"
[ $rc -eq 0 ] && grep -q '"kernels"\|"Kernel' "$TMP/o/r.txt" || fail "-o with room: exit $rc, $(head -c 100 "$TMP/o/r.txt")"
no_temps "$TMP/o"

# 2. --timeline and -o on a full disk: neither file changes
echo "OLD TIMELINE" >"$TMP/o/tl.json"
echo "OLD REPORT" >"$TMP/o/r.txt"
full 4 --config $C $T --timeline "$TMP/o/tl.json" -o "$TMP/o/r.txt"
[ $rc -ne 0 ] || fail "--timeline on a full disk: exit 0"
[ "$(cat "$TMP/o/tl.json")" = "OLD TIMELINE" ] || fail "--timeline on a full disk destroyed the old timeline"
[ "$(cat "$TMP/o/r.txt")" = "OLD REPORT" ] || fail "--timeline on a full disk: the old report changed"
no_temps "$TMP/o"

# 3. an unwritable -o is found before the run, and --timeline is not written
rm -f "$TMP/o/tl.json"
expect_err "^smsim: cannot write '.*nodir/r\.txt': No such file or directory$" \
    --config $C $T --timeline "$TMP/o/tl.json" -o "$TMP/o/nodir/r.txt"
[ -e "$TMP/o/tl.json" ] && fail "--timeline written although -o cannot be"
# before the run: a trace that would run for ever is not run at all
expect_err "^smsim: cannot write '.*nodir/r\.txt'" \
    --config $C tests/data/errors/insts_huge.trace --max-cycles 100000 -o "$TMP/o/nodir/r.txt"

# 4. no output may be an input or another output
cp $T "$TMP/o/t.trace"
cp $C "$TMP/o/c.yaml"
expect_err "^smsim: -o '.*t\.trace' is the input trace \(it would be overwritten\)$" \
    --config $C "$TMP/o/t.trace" -o "$TMP/o/t.trace"
expect_err "^smsim: -o '.*c\.yaml' is the configuration \(it would be overwritten\)$" \
    --config "$TMP/o/c.yaml" "$TMP/o/t.trace" -o "$TMP/o/../o/c.yaml"
expect_err "^smsim: --timeline and -o name the same file '.*x\.json'$" \
    --config $C "$TMP/o/t.trace" --timeline "$TMP/o/x.json" -o "$TMP/o/x.json"
cmp -s $T "$TMP/o/t.trace" || fail "the input trace changed"
cmp -s $C "$TMP/o/c.yaml" || fail "the configuration changed"

# 5. a link is followed (the file it names is replaced, the link stays) and
# a device is written in place (never renamed over)
echo old >"$TMP/o/real.txt"
ln -s real.txt "$TMP/o/link.txt"
run --config $C $T -o "$TMP/o/link.txt"
[ -L "$TMP/o/link.txt" ] && grep -q "Section" "$TMP/o/real.txt" || fail "-o through a link"
run --config $C $T -o /dev/null
[ $rc -eq 0 ] && [ -c /dev/null ] || fail "-o /dev/null: exit $rc"

# 6. export --accelsim on a full disk: the previous export intact, no
# truncated kernel file, no temporary file
mkdir -p "$TMP/x"
run export --accelsim "$TMP/x" traces/two_kernels.trace
[ $rc -eq 0 ] || fail "export: exit $rc ($(cat "$TMP/err"))"
cp -r "$TMP/x" "$TMP/x.before"
full 8 export --accelsim "$TMP/x" --seed 7 traces/two_kernels.trace
[ $rc -ne 0 ] || fail "export on a full disk: exit 0"
diff -r "$TMP/x.before" "$TMP/x" >/dev/null || fail "export on a full disk changed the previous export"
no_temps "$TMP/x"
# ... and into a new directory: no kernelslist.g naming missing kernels
full 8 export --accelsim "$TMP/y" traces/two_kernels.trace
[ $rc -ne 0 ] || fail "export to a new directory on a full disk: exit 0"
[ -e "$TMP/y/kernelslist.g" ] && fail "export on a full disk left kernelslist.g"
[ -n "$(ls -A "$TMP/y" 2>/dev/null)" ] && fail "export on a full disk left files: $(ls "$TMP/y")"

echo "cli_outputs: $fails failures"
[ $fails -eq 0 ]
