#!/bin/bash
# cli_occupancy.sh — `smsim occupancy`: the H100 example in all three formats,
# --vary curve shapes, invalid launches, and argument errors (one line on
# stderr, non-zero exit, nothing on stdout).
# Usage: bash tests/cli_occupancy.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_occupancy.sh /path/to/smsim}
CFG=configs/h100.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

source "$(dirname "$0")/cli_lib.sh"

# run ARGS...: stdout -> $TMP/full, and without its provenance (tests/cli_prov.sh
# checks it) -> $TMP/out, stderr -> $TMP/err, status -> $rc
run() {
    "$SMSIM" occupancy "$@" >"$TMP/full" 2>"$TMP/err"
    rc=$?
    noprov "$TMP/full" >"$TMP/out"
}

expect_ok() {
    run "$@"
    [ "$rc" -eq 0 ] || fail "exit $rc for: $* ($(head -c 300 "$TMP/err"))"
    [ -s "$TMP/err" ] && fail "stderr not empty for: $*"
}

# has PATTERN: extended regex must match a line of the output
has() {
    grep -Eq -- "$1" "$TMP/out" || fail "output lacks /$1/ for: $LAST"
}

# The acceptance example: H100, 32 threads, 8 registers, 12 KB static shared
# memory -> 13312 B per block with the 1 KB reserve, 233472 / 13312 = 17 blocks,
# 17 of 64 warps = 26.56 %.
EX=(--config "$CFG" --threads 32 --regs 8 --smem-static 12288)

LAST="text example"
expect_ok "${EX[@]}"
has '^ +Block Limit SM +block +32$'
has '^ +Block Limit Registers +block +256$'
has '^ +Block Limit Shared Mem +block +17$'
has '^ +Block Limit Warps +block +64$'
has '^ +Block Limit Barriers +block +unlimited$'
has '^ +Theoretical Active Warps per SM +warp +17$'
has '^ +Theoretical Occupancy +% +26\.56$'
has '^ +Shared Memory per Block \(incl\. reserve\) +byte +13312$'
has '^ +Shared Memory Configuration Size +byte +233472$'
has '^  Limited by: shared memory$'
cp "$TMP/out" "$TMP/first"
run "${EX[@]}"
cmp -s "$TMP/out" "$TMP/first" || fail "text output differs between two runs"

LAST="json example"
expect_ok "${EX[@]}" --format json
has '^\{$'
has '^  "blocks_per_sm": 17,$'
has '^  "limiter": "shared memory",$'
has '^  "launch__occupancy_limit_blocks": 32,$'
has '^  "launch__occupancy_limit_registers": 256,$'
has '^  "launch__occupancy_limit_shared_mem": 17,$'
has '^  "launch__occupancy_limit_warps": 64,$'
has '^  "launch__occupancy_limit_barriers": null,$'
has '^  "sm__maximum_warps_avg_per_active_cycle": 17,$'
has '^  "sm__maximum_warps_per_active_cycle_pct": 26\.5625,$'
has '^  "launch__shared_mem_config_size": 233472,$'
has '^  "error": null$'
has '^\}$'

LAST="csv example"
expect_ok "${EX[@]}" --format csv
[ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "csv: expected 2 lines"
hdr=$(head -1 "$TMP/out")
[ "$hdr" = "blocks_per_sm,limiter,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_barriers,sm__maximum_warps_avg_per_active_cycle,sm__maximum_warps_per_active_cycle_pct,launch__shared_mem_config_size,warps_per_block,smem_per_block,error" ] ||
    fail "csv header: $hdr"
row=$(sed -n 2p "$TMP/out")
[ "$row" = "17,shared memory,32,256,17,64,,17,26.5625,233472,1,13312," ] || fail "csv row: $row"

# Barriers on 9.0: 2 x 32 barrier sets / 4 barriers = 16 blocks.
LAST="barriers"
expect_ok --config "$CFG" --threads 64 --regs 16 --barriers 4 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,2,7)" = "16,barriers,16" ] ||
    fail "barriers row: $(sed -n 2p "$TMP/out")"

# Carveout preference: 25 % of 233472 = 58368 -> 64 KB; 49152 + 1024 = 50176 B
# per block -> 1 block, configuration 65536.
LAST="carveout"
expect_ok --config "$CFG" --threads 256 --regs 32 --smem-dynamic 49152 --carveout 25 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,10)" = "1,65536" ] ||
    fail "carveout row: $(sed -n 2p "$TMP/out")"

# An invalid launch is an answer (0 blocks and why), not a usage error.
LAST="invalid launch"
expect_ok --config "$CFG" --threads 1024 --regs 65 --format json
has '^  "blocks_per_sm": 0,$'
has '^  "limiter": "registers per block exceeded",$'
has '"error": ".*73728.*"$'
LAST="invalid launch text"
expect_ok --config "$CFG" --threads 1025 --regs 8
has '^  The launch cannot run: 1025 threads per block exceed the maximum 1024$'

# --set reaches the configuration.
LAST="--set"
expect_ok --config "$CFG" --threads 32 --regs 8 --set sm.max_blocks=4 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,2)" = "4,blocks" ] || fail "--set row: $(sed -n 2p "$TMP/out")"

# --vary: shape of the curves.
LAST="vary threads csv"
expect_ok --config "$CFG" --threads 100 --regs 40 --vary threads --format csv
# 32, 64, ..., 1024 (32 points) + the given 100, + header
[ "$(wc -l <"$TMP/out")" -eq 34 ] || fail "vary threads: $(wc -l <"$TMP/out") lines"
[ "$(head -1 "$TMP/out")" = "threads,blocks_per_sm,sm__maximum_warps_avg_per_active_cycle,sm__maximum_warps_per_active_cycle_pct,limiter" ] ||
    fail "vary threads header"
has '^100,12,48,75\.0000,registers$'  # 40 regs: 12 warps/SMSP x 4 / 4 warps
has '^1024,1,32,50\.0000,'
LAST="vary threads text"
expect_ok --config "$CFG" --threads 100 --regs 40 --vary threads
has '^\* +100 +12 +48 +75\.00% +registers$'
[ "$(grep -c '^\*' "$TMP/out")" -eq 1 ] || fail "vary text: one marked point expected"
LAST="vary threads json"
expect_ok --config "$CFG" --threads 100 --regs 40 --vary threads --format json
has '^  "vary": "threads",$'
[ "$(grep -c '^    {"threads": ' "$TMP/out")" -eq 33 ] || fail "vary json: 33 points expected"

LAST="vary regs"
expect_ok --config "$CFG" --threads 96 --regs 40 --vary regs --format csv
[ "$(wc -l <"$TMP/out")" -eq 256 ] || fail "vary regs: $(wc -l <"$TMP/out") lines (want 255 + header)"
has '^255,2,6,9\.3750,registers$'
has '^1,21,63,98\.4375,warps$'

LAST="vary smem"
expect_ok --config "$CFG" --threads 128 --regs 32 --smem-dynamic 12288 --vary smem --format csv
# 0, 1024, ..., 232448 = 227 KiB: 228 points + header
[ "$(wc -l <"$TMP/out")" -eq 229 ] || fail "vary smem: $(wc -l <"$TMP/out") lines"
has '^12288,16,64,100\.0000,'
has '^232448,1,4,6\.2500,shared memory$'

# --help
LAST="--help"
expect_ok --help
has '^usage: smsim occupancy'

# Errors: non-zero exit, exactly one line on stderr, nothing on stdout.
bad() {
    run "$@"
    [ "$rc" -ne 0 ] || fail "exit 0 for bad arguments: $*"
    [ -s "$TMP/out" ] && fail "stdout not empty for bad arguments: $*"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "stderr not one line for: $* ($(cat "$TMP/err"))"
}
bad_names() { # bad OPTION ARGS...: the message must name OPTION
    local opt=$1
    shift
    bad "$@"
    grep -q -- "$opt" "$TMP/err" || fail "error does not name $opt: $(cat "$TMP/err")"
}
bad_names --threads --config "$CFG" --threads 12x --regs 8
bad_names --threads --config "$CFG" --threads 0 --regs 8
bad_names --threads --config "$CFG" --threads -5 --regs 8
bad_names --threads --config "$CFG" --threads 99999999999999999999 --regs 8
bad_names --threads --config "$CFG" --threads "" --regs 8
bad_names --threads --config "$CFG" --threads " 32" --regs 8
bad_names --regs --config "$CFG" --threads 32 --regs 8.5
bad_names --regs --config "$CFG" --threads 32
bad_names --regs --config "$CFG" --threads 32 --regs
bad_names --smem-static --config "$CFG" --threads 32 --regs 8 --smem-static 1k
bad_names --smem-dynamic --config "$CFG" --threads 32 --regs 8 --smem-dynamic -1
bad_names --max-dynamic --config "$CFG" --threads 32 --regs 8 --max-dynamic x
bad_names --carveout --config "$CFG" --threads 32 --regs 8 --carveout 101
bad_names --barriers --config "$CFG" --threads 32 --regs 8 --barriers two
bad_names --format --config "$CFG" --threads 32 --regs 8 --format xml
bad_names --vary --config "$CFG" --threads 32 --regs 8 --vary blocks
bad_names --config --threads 32 --regs 8
bad_names --bogus --config "$CFG" --threads 32 --regs 8 --bogus 1
bad_names --threads --config "$CFG" --threads 32 --threads 64 --regs 8
bad --config "$CFG" --threads 32 --regs 8 stray
bad --config /nonexistent/gpu.yaml --threads 32 --regs 8
bad --config "$CFG" --threads 32 --regs 8 --set no.such_key=1

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "cli_occupancy: all checks passed"
