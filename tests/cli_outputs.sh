#!/bin/bash
# cli_outputs.sh — outputs are atomic (issue #22): `-o`, `--timeline`,
# `--plot`, `--emit-jobs` (and its manifest) and `export --accelsim` never
# leave a truncated file or destroy the previous one, every output path of
# every subcommand is checked before the run, no output may be an input or
# another output, and a plot that fails keeps the table written with -o
# and shows gnuplot's own message.
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

# 7. sweep: -o on a full disk, -o and --plot checked before the run, -o
# equal to the trace refused
S=(sweep --config $C $T --vary gpu.sm_count=1,2 --jobs 1)
echo "OLD TABLE" >"$TMP/o/s.csv"
full 1 "${S[@]}" -o "$TMP/o/s.csv"
[ $rc -ne 0 ] || fail "sweep -o on a full disk: exit 0"
[ "$(cat "$TMP/o/s.csv")" = "OLD TABLE" ] || fail "sweep -o on a full disk destroyed the old table"
no_temps "$TMP/o"
expect_err "^smsim: cannot write '.*nodir/s\.csv': No such file or directory$" \
    sweep --config $C tests/data/errors/insts_huge.trace --vary gpu.sm_count=1 --max-cycles 100000 \
    -o "$TMP/o/nodir/s.csv"
expect_err "^smsim: cannot write '.*nodir/p\.svg': No such file or directory$" \
    sweep --config $C tests/data/errors/insts_huge.trace --vary gpu.sm_count=1 --max-cycles 100000 \
    --plot "$TMP/o/nodir/p.svg"
expect_err "^smsim: -o '.*t\.trace' is the input trace \(it would be overwritten\)$" \
    sweep --config $C "$TMP/o/t.trace" --vary gpu.sm_count=1 -o "$TMP/o/t.trace"
expect_err "^smsim: -o and --plot name the same file '.*p\.svg'$" \
    "${S[@]}" -o "$TMP/o/p.svg" --plot "$TMP/o/p.svg"
cmp -s $T "$TMP/o/t.trace" || fail "the input trace changed"
# saturate and validate check --plot before the run too
expect_err "^smsim: cannot write '.*nodir/p\.svg': No such file or directory$" \
    saturate --config $C tests/data/errors/insts_huge.trace --max-cycles 100000 \
    --plot "$TMP/o/nodir/p.svg"
expect_err "^smsim: cannot write '.*nodir/p\.svg': No such file or directory$" \
    validate tests/data/validate --manifest tests/data/validate/manifest.tsv --plot "$TMP/o/nodir/p.svg"

# 8. a plot that fails keeps the table (-o), shows gnuplot's message, and
# leaves neither a partial plot nor a temporary file; the old plot stays.
# A stand-in gnuplot: quiet on an empty script (smsim's check before the
# run), else it writes half a file to the output and fails as gnuplot does.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/gnuplot" <<'GP'
#!/bin/sh
script=$(cat)
[ -z "$script" ] && exit 0
out=$(printf '%s\n' "$script" | sed -n "s/^set output '\(.*\)'$/\1/p" | head -n 1)
[ -n "$out" ] && printf '<svg partial' >"$out"
echo '         "-", line 9: stand-in gnuplot: cannot draw' >&2
exit 1
GP
chmod +x "$TMP/bin/gnuplot"
echo "OLD PLOT" >"$TMP/o/p.svg"
rm -f "$TMP/o/s.csv"
PATH="$TMP/bin:$PATH" run "${S[@]}" -o "$TMP/o/s.csv" --plot "$TMP/o/p.svg"
[ $rc -ne 0 ] || fail "a failed plot: exit 0"
grep -Eqx 'smsim: gnuplot failed \(exit status 1\) drawing the plot: "-", line 9: stand-in gnuplot: cannot draw' "$TMP/err" ||
    fail "a failed plot: message '$(cat "$TMP/err")'"
grep -q "^\"\?gpu.sm_count\"\?," "$TMP/o/s.csv" || fail "a failed plot lost the table written with -o"
[ "$(cat "$TMP/o/p.svg")" = "OLD PLOT" ] || fail "a failed plot replaced the old plot"
no_temps "$TMP/o"
# without -o nothing reaches stdout (an error leaves stdout empty)
PATH="$TMP/bin:$PATH" run "${S[@]}" --plot "$TMP/o/p.svg"
[ $rc -ne 0 ] && [ ! -s "$TMP/out" ] || fail "a failed plot without -o: exit $rc, stdout $(head -c 80 "$TMP/out")"
no_temps "$TMP/o"
# saturate and validate keep their reports the same way
for cmd in "saturate --config $C tests/data/study/ffma_ilp1.trace --set gpu.sm_count=2 --jobs 1" \
    "validate tests/data/validate --manifest tests/data/validate/manifest.tsv --jobs 1"; do
    rm -f "$TMP/o/r.txt"
    PATH="$TMP/bin:$PATH" run $cmd -o "$TMP/o/r.txt" --plot "$TMP/o/p.svg"
    [ $rc -ne 0 ] || fail "${cmd%% *}: a failed plot: exit 0"
    grep -Eqx 'smsim: gnuplot failed \(exit status 1\) drawing the plot: "-", line 9: stand-in gnuplot: cannot draw' "$TMP/err" ||
        fail "${cmd%% *}: a failed plot: message '$(cat "$TMP/err")'"
    grep -Eq "^(saturate|smsim validate): " "$TMP/o/r.txt" || fail "${cmd%% *}: a failed plot lost the report written with -o"
    [ "$(cat "$TMP/o/p.svg")" = "OLD PLOT" ] || fail "${cmd%% *}: a failed plot replaced the old plot"
    no_temps "$TMP/o"
done
# the real gnuplot's own error line is quoted (its "line N: ..." message,
# not the consequences it prints after it): a wrapper asks it for a
# terminal it does not have
if command -v gnuplot >/dev/null; then
    mkdir -p "$TMP/gpw"
    printf '#!/bin/sh\nsed "s/^set terminal svg/set terminal nosuchterm/" | exec %s\n' \
        "$(command -v gnuplot)" >"$TMP/gpw/gnuplot"
    chmod +x "$TMP/gpw/gnuplot"
    rm -f "$TMP/o/s.csv"
    PATH="$TMP/gpw:$PATH" run "${S[@]}" -o "$TMP/o/s.csv" --plot "$TMP/o/p.svg"
    [ $rc -ne 0 ] || fail "real gnuplot, unknown terminal: exit 0"
    grep -Eqx "smsim: gnuplot failed \(exit status 1\) drawing the plot: line [0-9]+: unknown or ambiguous terminal type.*" "$TMP/err" ||
        fail "real gnuplot's error: '$(cat "$TMP/err")'"
    grep -q "^\"\?gpu.sm_count\"\?," "$TMP/o/s.csv" || fail "real gnuplot failing lost the table written with -o"
    no_temps "$TMP/o"
fi
# gnuplot missing: found before the run, nothing written
PATH=/nonexistent run "${S[@]}" -o "$TMP/o/s2.csv" --plot "$TMP/o/p.svg"
grep -q "gnuplot not found in PATH" "$TMP/err" && [ ! -e "$TMP/o/s2.csv" ] ||
    fail "gnuplot missing: $(cat "$TMP/err")"
# with a working gnuplot the plot replaces the old one
if command -v gnuplot >/dev/null; then
    run "${S[@]}" -o "$TMP/o/s.csv" --plot "$TMP/o/p.svg"
    [ $rc -eq 0 ] && grep -q "<svg" "$TMP/o/p.svg" || fail "plot: exit $rc, $(head -c 100 "$TMP/o/p.svg")"
    no_temps "$TMP/o"
fi

# 9. --emit-jobs: the jobs file and the manifest appear together or not at
# all, both checked before anything is written, neither may be an input
J=(sweep --config $C $T --vary gpu.sm_count=1,2)
full 0 "${J[@]}" --emit-jobs "$TMP/o/jobs.txt" --job-dir "$TMP/o/jd"
[ $rc -ne 0 ] || fail "--emit-jobs on a full disk: exit 0"
[ -e "$TMP/o/jobs.txt" ] || [ -e "$TMP/o/jd/manifest.json" ] && fail "--emit-jobs on a full disk left a file"
no_temps "$TMP/o"
expect_err "^smsim: cannot write '.*nodir/jobs\.txt': No such file or directory$" \
    "${J[@]}" --emit-jobs "$TMP/o/nodir/jobs.txt" --job-dir "$TMP/o/jd2"
[ -e "$TMP/o/jd2/manifest.json" ] && fail "--emit-jobs wrote the manifest although the jobs file cannot be written"
expect_err "^smsim: --emit-jobs '.*t\.trace' is the input trace \(it would be overwritten\)$" \
    sweep --config $C "$TMP/o/t.trace" --vary gpu.sm_count=1 --emit-jobs "$TMP/o/t.trace"
cmp -s $T "$TMP/o/t.trace" || fail "the input trace changed"
run "${J[@]}" --emit-jobs "$TMP/o/jobs.txt" --job-dir "$TMP/o/jd"
[ $rc -eq 0 ] && [ -s "$TMP/o/jobs.txt" ] && [ -s "$TMP/o/jd/manifest.json" ] || fail "--emit-jobs: exit $rc"

# 10. merge: -o and --plot checked before the inputs are read; -o may not
# be the manifest or a job output
expect_err "^smsim: -o '.*manifest\.json' is the sweep manifest \(it would be overwritten\)$" \
    merge --sweep-manifest "$TMP/o/jd/manifest.json" -o "$TMP/o/jd/manifest.json"
echo '{}' >"$TMP/o/jd/point-0.json"
expect_err "^smsim: -o '.*point-0\.json' is the job output \(it would be overwritten\)$" \
    merge --sweep-manifest "$TMP/o/jd/manifest.json" "$TMP/o/jd/point-0.json" -o "$TMP/o/jd/point-0.json"
expect_err "^smsim: cannot write '.*nodir/m\.csv': No such file or directory$" \
    merge --sweep-manifest "$TMP/o/jd/manifest.json" -o "$TMP/o/nodir/m.csv"

# 11. export never replaces its own input (an Accel-Sim trace exported
# into its own directory)
expect_err "^smsim: --accelsim '.*x/kernelslist\.g' is the input trace \(it would be overwritten\)$" \
    export --accelsim "$TMP/x" "$TMP/x/kernelslist.g"
diff -r "$TMP/x.before" "$TMP/x" >/dev/null || fail "export into its own directory changed it"

echo "cli_outputs: $fails failures"
[ $fails -eq 0 ]
