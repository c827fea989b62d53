#!/bin/bash
# cli_insts.sh — the instruction limit (--max-insts, issue #22): every
# subcommand that simulates (run, compare, sweep, saturate, bench, validate)
# or writes every instruction (export) refuses a kernel above it before
# anything runs, with one message; the count is right when trip counts
# depend on block and warp (exact, or a lower bound already above the
# limit), and a legal run whose quick bound is loose is not refused.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_insts.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
D=tests/data/insts
HUGE=tests/data/errors/insts_huge.trace
MORE="more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\)$"
# limited ARGS...: expect_err with a time limit of 60 s (a guard that fails
# runs for ever; each case takes well under a second when it does not)
limited() {
    local re=$1
    shift
    LAST="$*"
    timeout 60 "$SMSIM" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    [ $rc -eq 124 ] && { fail "still running after 60 s: $*"; return; }
    [ $rc -ne 0 ] || fail "exit 0 for: $*"
    [ -s "$TMP/out" ] && fail "stdout not empty for: $*"
    grep -Eqx -- "$re" "$TMP/err" || fail "stderr '$(head -c 300 "$TMP/err")' does not match '$re' for: $*"
}

# 1. one rule in every subcommand: the 2^69-instruction trace is refused
limited "smsim: $HUGE: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, $MORE" \
    --config $C $HUGE
limited "smsim: $HUGE: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, $MORE" \
    compare --ncu tests/data/ncu/compare.raw.csv --ncu-id 0 --config $C $HUGE
limited "smsim: sweep point 0 \(sm.max_warps=64\): kernel 'huge' executes 2\^64 or more warp-instructions, $MORE" \
    sweep --config $C $HUGE --vary sm.max_warps=64 --jobs 1
limited "smsim: $HUGE: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, $MORE" \
    saturate --config $C $HUGE --jobs 1
limited "smsim: $HUGE: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, $MORE" \
    export --accelsim "$TMP/x" $HUGE
[ -e "$TMP/x" ] && fail "export of a refused trace created $TMP/x"
# ... and --max-cycles instead of the limit lets it start (and stop)
for sub in "" "compare --ncu tests/data/ncu/compare.raw.csv --ncu-id 0" "sweep --vary sm.max_warps=64 --jobs 1" "saturate --jobs 1"; do
    limited ".*passed max_cycles \(5\)" $sub --config $C $HUGE --max-cycles 5
done
# bench: its own workloads, under the same limit
limited "smsim: bench: workload stream_copy: kernel 'stream_copy' executes [0-9]+ warp-instructions, more than 1000 \(give --max-insts N, 0 for no limit, or --max-cycles N\)" \
    bench --quick --only stream_copy --max-insts 1000

# 2. counts that depend on block: the warp the old floor read (block 0)
# runs one instruction, block 1 runs 2^64
# (block 1's warp: (2^32 - 1)^2 + 1, just below 2^64; one warp before it)
limited "smsim: $D/block1_huge\.trace: kernel 0: kernel 'block1' executes at least 18446744065119617027 warp-instructions, $MORE" \
    --config $C $D/block1_huge.trace
limited "smsim: sweep point 0 \(launch\.threads=64\): kernel 'block1' executes at least 18446744065119617027 warp-instructions, $MORE" \
    sweep --config $C $D/block1_huge.trace --vary launch.threads=64 --jobs 1
# a loose bound (10^11) above the limit, a small exact total (1,100,000):
# counted, not refused (the run then stops at --max-cycles)
limited ".*loose.*passed max_cycles \(1\)" \
    --config $C $D/loose_bound.trace --max-insts 2000000 --max-cycles 1
limited "smsim: $D/loose_bound\.trace: kernel 0: kernel 'loose' executes at least 1000002 warp-instructions, more than 1000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\)" \
    --config $C $D/loose_bound.trace --max-insts 1000000
# exact: 648 (the trace's comment); 647 is one too few
limited "smsim: $D/by_warp\.trace: kernel 0: kernel 'bywarp' executes 648 warp-instructions, more than 647 \(give --max-insts N, 0 for no limit, or --max-cycles N\)" \
    --config $C $D/by_warp.trace --max-insts 647
expect_ok --config $C $D/by_warp.trace --max-insts 648 --format csv
# a sweep point that doubles the block doubles the warps (1,296 in all):
# the count stops once it passes the limit
limited "smsim: sweep point 1 \(launch\.threads=256\): kernel 'bywarp' executes at least 10[0-9][0-9] warp-instructions, more than 1000 .*" \
    sweep --config $C $D/by_warp.trace --vary launch.threads=128,256 --max-insts 1000 --jobs 1

# 3. validate skips a launch above the limit and names it
printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\nhuge\t1\t%s\ttests/data/validate/tiny.raw.csv\t0\n' "$HUGE" >"$TMP/m.tsv"
LAST="validate"
timeout 60 "$SMSIM" validate tests/data/validate --manifest "$TMP/m.tsv" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
[ $rc -eq 124 ] && fail "validate of a 2^69 trace still running after 60 s"
grep -q "huge b=1: 2^64 or more warp-instructions\|huge b=1: at least [0-9]* warp-instructions\|huge b=1: 18446744073709551615 warp-instructions" "$TMP/out" ||
    fail "validate did not skip the huge launch: rc $rc, $(head -c 300 "$TMP/err") $(grep -i skip "$TMP/out")"

echo "cli_insts: $fails failures"
[ $fails -eq 0 ]
