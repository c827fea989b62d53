#!/bin/bash
# cli_bench.sh — `smsim bench`: the output's shape (one row per workload,
# exactly one final 'warp_instructions_per_second: N' line), --threads, --only,
# and bad options (one line on stderr, non-zero exit, nothing on stdout).
# Speed itself is not tested (CI machines vary); docs/performance.md has it.
# The accelsim workload's temporary Accel-Sim files must be removed.
# Usage: bash tests/cli_bench.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_bench.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export TMPDIR=$TMP
fails=0
source "$(dirname "$0")/cli_lib.sh"

# shape OUT N: N workload rows, a header, the final line
shape() {
    local out=$1 n=$2
    [ "$(grep -c '^warp_instructions_per_second: ' "$out")" -eq 1 ] ||
        fail "expected one warp_instructions_per_second line"
    tail -n 1 "$out" | grep -Eq '^warp_instructions_per_second: [1-9][0-9]*$' ||
        fail "last line is not 'warp_instructions_per_second: N': $(tail -n 1 "$out")"
    head -n 1 "$out" | grep -q '^smsim bench: ' || fail "no title line"
    sed -n 2p "$out" | grep -q '^workload .*warp_insts/s.*cycles/s.*peak_rss_kb$' ||
        fail "no header line"
    local rows
    rows=$(grep -Ec '^[a-z0-9_]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$out")
    [ "$rows" -eq "$n" ] || fail "expected $n workload rows, got $rows"
}

"$SMSIM" bench --quick >"$TMP/out" 2>"$TMP/err" || fail "bench --quick exited $?"
[ -s "$TMP/err" ] && fail "stderr not empty: $(head -c 300 "$TMP/err")"
shape "$TMP/out" 6
for w in stream_copy ffma_ilp1 ffma_ilp4 dram_chain gemm_tile accelsim; do
    grep -q "^$w " "$TMP/out" || fail "workload $w missing"
done
# the accelsim workload runs from an Accel-Sim export: 2112 blocks x 4 warps x
# (3 + 1 trip x 8 + EXIT), and its temporary files are gone afterwards
grep -Eq '^accelsim +101376 ' "$TMP/out" || fail "accelsim warp-instruction count"
[ -z "$(ls -A "$TMP" | grep -v '^out$\|^err$')" ] || fail "bench left files in TMPDIR: $(ls "$TMP")"
# the FFMA workloads issue what they are made of: 528 blocks x 4 warps x
# (2 + 15 trips x 19 + STG + EXIT) = 2112 x 289
grep -Eq '^ffma_ilp1 +610368 ' "$TMP/out" || fail "ffma_ilp1 warp-instruction count"

"$SMSIM" bench --quick --threads 2 --only ffma_ilp4 >"$TMP/out" 2>"$TMP/err" ||
    fail "bench --threads 2 exited $?"
shape "$TMP/out" 1
grep -q '2 threads' "$TMP/out" || fail "title does not name the threads"
# the result does not depend on the threads: same instructions and cycles
"$SMSIM" bench --quick --only ffma_ilp4 >"$TMP/out1" 2>/dev/null
[ "$(awk '$1=="ffma_ilp4"{print $2, $3}' "$TMP/out")" = \
  "$(awk '$1=="ffma_ilp4"{print $2, $3}' "$TMP/out1")" ] || fail "threads changed the result"

# bad input: one line on stderr, nothing on stdout, non-zero exit
for args in "--bogus" "--threads 0" "--threads x" "--only nothing" "--repeat" \
            "--config /nonexistent.yaml"; do
    # shellcheck disable=SC2086
    "$SMSIM" bench --quick $args >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "exit 0 for bench $args"
    [ -s "$TMP/out" ] && fail "stdout not empty for bench $args"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "expected one stderr line for bench $args"
done

[ "$fails" -eq 0 ] || exit 1
echo "cli_bench: ok"
