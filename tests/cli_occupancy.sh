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
    PATH=${RUN_PATH:-$PATH} "$SMSIM" occupancy "$@" >"$TMP/full" 2>"$TMP/err"
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
EX=(--config "$CFG" --block-size 32 --regs 8 --smem-static 12288)

LAST="text example"
expect_ok "${EX[@]}"
has '^ +Block Limit SM +block +32$'
has '^ +Block Limit Registers +block +256$'
has '^ +Block Limit Shared Mem +block +17$'
has '^ +Block Limit Warps +block +64$'
# Block Limit Barriers as ncu shows it on CC 9.0: 32 with no barrier
# (validate/data/h200: 477 launches, all 32); the calculator applies none
has '^ +Block Limit Barriers +block +32$'
has '^  Block Limit Barriers is shown as Nsight Compute shows it \(at most Block Limit SM\); the CUDA occupancy calculator applies no barrier term \(0 barriers per block\)$'
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
has '^  "launch__occupancy_limit_barriers": 32,$'
has '^  "sm__maximum_warps_avg_per_active_cycle": 17,$'
has '^  "sm__maximum_warps_per_active_cycle_pct": 26\.5625,$'
has '^  "launch__shared_mem_config_size": 233472,$'
has '^  "error": null,$'
has '^\}$'

LAST="csv example"
expect_ok "${EX[@]}" --format csv
[ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "csv: expected 2 lines"
hdr=$(head -1 "$TMP/out")
[ "$hdr" = "blocks_per_sm,limiter,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_barriers,sm__maximum_warps_avg_per_active_cycle,sm__maximum_warps_per_active_cycle_pct,launch__shared_mem_config_size,warps_per_block,smem_per_block,error" ] ||
    fail "csv header: $hdr"
row=$(sed -n 2p "$TMP/out")
[ "$row" = "17,shared memory,32,256,17,64,32,17,26.5625,233472,1,13312," ] || fail "csv row: $row"

# Barriers on 9.0: 2 x 32 barrier sets / 4 barriers = 16 blocks.
LAST="barriers"
expect_ok --config "$CFG" --block-size 64 --regs 16 --barriers 4 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,2,7)" = "16,barriers,16" ] ||
    fail "barriers row: $(sed -n 2p "$TMP/out")"

# One barrier: the calculator's term is 2 x 32 / 1 = 64, ncu shows 32.
LAST="one barrier"
expect_ok --config "$CFG" --block-size 64 --regs 16 --barriers 1
has '^ +Block Limit Barriers +block +32$'
has 'the CUDA occupancy calculator says 64 \(1 barriers per block\)$'
# Before CC 9.0 there is no barrier limit: unlimited, no note.
LAST="a100 barriers"
expect_ok --config configs/a100.yaml --block-size 64 --regs 16 --barriers 1
has '^ +Block Limit Barriers +block +unlimited$'
grep -q 'shown as Nsight Compute' "$TMP/out" && fail "a100: a barrier note where no limit applies"

# The headroom, by hand (H100: 65536 registers in 4 sub-partitions, 256 per
# warp unit, 64 warps, 32 blocks, 233472 B of shared memory, 1 KB reserve,
# 128 B granule).  128 threads (4 warps), 56 registers, 12288 B static:
# 56 x 32 = 1792 per warp, 16384 / 1792 = 9 warps per sub-partition -> 9
# blocks (registers bind); 13312 B per block -> 17; warps 64/4 = 16.
#   registers: 9 blocks hold while 16384 / (R x 32 rounded to 256) >= 9, i.e.
#     per warp <= 1820 -> 1792 -> R <= 56; 10 need per warp <= 1638 -> 1536 -> R <= 48
#   shared memory: 233472 / 9 = 25941 -> 25856 - 1024 = 24832 B keeps 9;
#     233472 / 10 = 23347 -> 23296 - 1024 = 22272 B allows 10
#   block size: the register term 36 / W >= 9 -> W <= 4 -> 128 threads keep 9;
#     the warps term 64 / W >= 10 -> W <= 6 -> 192 threads allow 10
#   barriers: 2 x 32 / B >= 9 -> B <= 7; >= 10 -> B <= 6
LAST="headroom"
expect_ok --config "$CFG" --block-size 128 --regs 56 --smem-static 12288
has '^    registers: +up to 56 registers per thread keep 9 blocks per SM; 10 blocks need <= 48 per thread \(now 56: 8 fewer\)$'
has '^    shared memory: +up to 24832 B of shared memory per block \(static \+ dynamic\) keep 9 blocks per SM; 10 blocks need <= 22272 B per block \(now 12288: met\)$'
has '^    block size: +up to 128 threads per block keep 9 blocks per SM; 10 blocks need <= 192 threads by the warps limit \(now 128: met\)$'
has '^    barriers: +up to 7 barriers per block keep 9 blocks per SM; 10 blocks need <= 6 barriers \(now 0: met\)$'
has '^  Limited by registers: the next step, 10 blocks per SM \(62\.50 % occupancy at this block size\), needs <= 48 registers per thread \(8 fewer\)$'
LAST="headroom json"
expect_ok --config "$CFG" --block-size 128 --regs 56 --smem-static 12288 --format json
has '^    "next_blocks_per_sm": 10,$'
has '^    "registers": \{"now": 56, "keep_max": 56, "next_max": 48\},$'
has '^    "smem_per_block": \{"now": 12288, "keep_max": 24832, "next_max": 22272\},$'
has '^    "block_size": \{"now": 128, "keep_max": 128, "next_max": 192\},$'
has '^    "barriers": \{"now": 0, "keep_max": 7, "next_max": 6\}$'
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "headroom json does not parse"
fi
# Two limits bind at once (16 blocks: registers 32 x 32 = 1024 per warp ->
# 16 per sub-partition, warps 64 / 4 = 16): the next step needs both,
# 17 per sub-partition -> per warp <= 963 -> 768 -> 24 registers, and the
# warps 64 / W >= 17 -> W <= 3 -> 96 threads (no occupancy at this block
# size: 17 blocks of 4 warps exceed the SM's 64).
LAST="headroom, two limits"
expect_ok --config "$CFG" --block-size 128 --regs 32
has '^  Limited by warps, registers: the next step, 17 blocks per SM, needs <= 24 registers per thread \(8 fewer\) and <= 96 threads per block \(32 fewer\)$'
# The SM's maximum: no next step.
LAST="headroom at the block maximum"
expect_ok --config "$CFG" --block-size 32 --regs 16
has '^  Limited by blocks: 32 blocks per SM is the SM.s maximum \(sm\.max_blocks\): no next step$'
# No block fits: what one block needs.
LAST="headroom, no block"
expect_ok --config "$CFG" --block-size 1024 --regs 65
has '^    registers: +1 block needs <= 64 per thread \(now 65: 1 fewer\)$'
has '^  No block fits: 1 block per SM needs <= 64 registers per thread \(1 fewer\)$'

# Carveout preference: 25 % of 233472 = 58368 -> 64 KB; 49152 + 1024 = 50176 B
# per block -> 1 block, configuration 65536.
LAST="carveout"
expect_ok --config "$CFG" --block-size 256 --regs 32 --smem-dynamic 49152 --carveout 25 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,10)" = "1,65536" ] ||
    fail "carveout row: $(sed -n 2p "$TMP/out")"

# An invalid launch is an answer (0 blocks and why), not a usage error.
LAST="invalid launch"
expect_ok --config "$CFG" --block-size 1024 --regs 65 --format json
has '^  "blocks_per_sm": 0,$'
has '^  "limiter": "registers per block exceeded",$'
has '"error": ".*73728.*",$'
LAST="invalid launch text"
expect_ok --config "$CFG" --block-size 1025 --regs 8
has '^  The launch cannot run: 1025 threads per block exceed the maximum 1024$'

# --set reaches the configuration.
LAST="--set"
expect_ok --config "$CFG" --block-size 32 --regs 8 --set sm.max_blocks=4 --format csv
[ "$(sed -n 2p "$TMP/out" | cut -d, -f1,2)" = "4,blocks" ] || fail "--set row: $(sed -n 2p "$TMP/out")"

# --vary: shape of the curves.
LAST="vary threads csv"
expect_ok --config "$CFG" --block-size 100 --regs 40 --vary threads --format csv
# 32, 64, ..., 1024 (32 points) + the given 100, + header
[ "$(wc -l <"$TMP/out")" -eq 34 ] || fail "vary threads: $(wc -l <"$TMP/out") lines"
[ "$(head -1 "$TMP/out")" = "threads,blocks_per_sm,sm__maximum_warps_avg_per_active_cycle,sm__maximum_warps_per_active_cycle_pct,limiter" ] ||
    fail "vary threads header"
has '^100,12,48,75\.0000,registers$'  # 40 regs: 12 warps/SMSP x 4 / 4 warps
has '^1024,1,32,50\.0000,'
LAST="vary threads text"
expect_ok --config "$CFG" --block-size 100 --regs 40 --vary threads
has '^\* +100 +12 +48 +75\.00% +registers$'
[ "$(grep -c '^\*' "$TMP/out")" -eq 1 ] || fail "vary text: one marked point expected"
LAST="vary threads json"
expect_ok --config "$CFG" --block-size 100 --regs 40 --vary threads --format json
has '^  "vary": "threads",$'
[ "$(grep -c '^    {"threads": ' "$TMP/out")" -eq 33 ] || fail "vary json: 33 points expected"

LAST="vary regs"
expect_ok --config "$CFG" --block-size 96 --regs 40 --vary regs --format csv
[ "$(wc -l <"$TMP/out")" -eq 256 ] || fail "vary regs: $(wc -l <"$TMP/out") lines (want 255 + header)"
has '^255,2,6,9\.3750,registers$'
has '^1,21,63,98\.4375,warps$'

LAST="vary smem"
expect_ok --config "$CFG" --block-size 128 --regs 32 --smem-dynamic 12288 --vary smem --format csv
# 0, 1024, ..., 232448 = 227 KiB: 228 points + header
[ "$(wc -l <"$TMP/out")" -eq 229 ] || fail "vary smem: $(wc -l <"$TMP/out") lines"
has '^12288,16,64,100\.0000,'
has '^232448,1,4,6\.2500,shared memory$'
# --vary smem varies the total per block (static + dynamic), not only the
# dynamic part: 8192 static + 4096 dynamic is the point 12288 (13312 B with
# the reserve: 17 by shared memory, 16 by registers and warps); the last
# point is the opt-in maximum 232448 in all (233472 B: 1 block); 4096 is a
# point (static cut to the total: 5120 B -> 45, registers 16)
LAST="vary smem total"
expect_ok --config "$CFG" --block-size 128 --regs 32 --smem-static 8192 --smem-dynamic 4096 --vary smem --format csv
[ "$(head -1 "$TMP/out")" = "smem_per_block,blocks_per_sm,sm__maximum_warps_avg_per_active_cycle,sm__maximum_warps_per_active_cycle_pct,limiter" ] ||
    fail "vary smem header: $(head -1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 229 ] || fail "vary smem total: $(wc -l <"$TMP/out") lines"
has '^12288,16,64,100\.0000,"warps, registers"$'
has '^232448,1,4,6\.2500,shared memory$'
has '^4096,16,64,100\.0000,"warps, registers"$'
has '^24576,9,36,56\.2500,shared memory$'
expect_ok --config "$CFG" --block-size 128 --regs 32 --smem-static 8192 --smem-dynamic 4096 --vary smem
has '^\* +12288 +16 +64 +100\.00% +warps, registers$'

# --threads, the old name of --block-size: the same answer, one line of
# deprecation on stderr (exit 0); both names at once is an error.
LAST="old name --threads"
run --config "$CFG" --threads 32 --regs 8 --smem-static 12288 --format csv
[ "$rc" -eq 0 ] || fail "--threads: exit $rc"
cp "$TMP/out" "$TMP/old"
[ "$(cat "$TMP/err")" = "smsim: occupancy: --threads is deprecated, use --block-size (threads per block); the old name goes in the next release" ] ||
    fail "--threads: stderr '$(cat "$TMP/err")'"
expect_ok "${EX[@]}" --format csv
cmp -s "$TMP/out" "$TMP/old" || fail "--threads and --block-size answer differently"
run --config "$CFG" --threads=32 --regs 8 --vary threads --format csv
[ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--threads=32 --vary: exit $rc, $(cat "$TMP/err")"

# --plot: the three curves with the launch marked (SVG); the report on
# stdout as without it; a bad name or a plot that cannot be written is one
# line and nothing on stdout
if command -v gnuplot >/dev/null; then
    LAST="--plot"
    expect_ok "${EX[@]}" --format csv --plot "$TMP/occ.svg"
    cmp -s "$TMP/out" "$TMP/old" || fail "--plot changed the report"
    grep -q '<svg' "$TMP/occ.svg" || fail "--plot wrote no SVG"
    [ "$(grep -c '<title>this launch (17 blocks, 26.56 %)</title>' "$TMP/occ.svg")" -eq 3 ] ||
        fail "--plot: the launch marked on three curves"
    grep -q 'threads per block' "$TMP/occ.svg" && grep -q 'registers per thread' "$TMP/occ.svg" &&
        grep -q 'shared memory per block' "$TMP/occ.svg" || fail "--plot: the three axes"
    ls "$TMP" | grep -q 'tmp' && fail "--plot left a temporary file"
else
    echo "gnuplot not found: --plot not checked"
fi
run "${EX[@]}" --plot "$TMP/nodir/occ.svg"
[ "$rc" -ne 0 ] && [ ! -s "$TMP/out" ] && grep -q "^smsim: cannot write '.*nodir/occ.svg'" "$TMP/err" ||
    fail "--plot into a missing directory: exit $rc, $(cat "$TMP/err")"
run "${EX[@]}" --plot "$TMP/occ.pdf"
[ "$rc" -ne 0 ] && [ ! -s "$TMP/out" ] && [ "$(cat "$TMP/err")" = "smsim: --plot '$TMP/occ.pdf': expected a .svg or .png file name" ] ||
    fail "--plot .pdf: exit $rc, $(cat "$TMP/err")"
RUN_PATH=/nonexistent run "${EX[@]}" --plot "$TMP/occ2.svg"
[ "$rc" -ne 0 ] && [ ! -s "$TMP/out" ] && grep -q "gnuplot not found in PATH" "$TMP/err" ||
    fail "--plot without gnuplot: exit $rc, $(cat "$TMP/err")"

# --help
LAST="--help"
expect_ok --help
has '^usage: smsim occupancy --config CFG.yaml --block-size T --regs R'
has '^  --block-size T  '

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
bad_names --block-size --config "$CFG" --block-size 12x --regs 8
bad_names --block-size --config "$CFG" --block-size 0 --regs 8
bad_names --block-size --config "$CFG" --block-size -5 --regs 8
bad_names --block-size --config "$CFG" --block-size 99999999999999999999 --regs 8
bad_names --block-size --config "$CFG" --block-size "" --regs 8
bad_names --block-size --config "$CFG" --block-size " 32" --regs 8
bad_names --regs --config "$CFG" --block-size 32 --regs 8.5
bad_names --regs --config "$CFG" --block-size 32
bad_names --regs --config "$CFG" --block-size 32 --regs
bad_names --smem-static --config "$CFG" --block-size 32 --regs 8 --smem-static 1k
bad_names --smem-dynamic --config "$CFG" --block-size 32 --regs 8 --smem-dynamic -1
bad_names --max-dynamic --config "$CFG" --block-size 32 --regs 8 --max-dynamic x
bad_names --carveout --config "$CFG" --block-size 32 --regs 8 --carveout 101
bad_names --barriers --config "$CFG" --block-size 32 --regs 8 --barriers two
bad_names --format --config "$CFG" --block-size 32 --regs 8 --format xml
bad_names --vary --config "$CFG" --block-size 32 --regs 8 --vary blocks
bad_names --config --block-size 32 --regs 8
bad_names --bogus --config "$CFG" --block-size 32 --regs 8 --bogus 1
bad_names --block-size --config "$CFG" --block-size 32 --block-size 64 --regs 8
bad_names --threads --config "$CFG" --block-size 32 --threads 64 --regs 8
bad_names --threads --config "$CFG" --threads 32 --threads 64 --regs 8
bad_names --threads --config "$CFG" --threads 0 --regs 8
bad --config "$CFG" --block-size 32 --regs 8 stray
bad --config /nonexistent/gpu.yaml --block-size 32 --regs 8
bad --config "$CFG" --block-size 32 --regs 8 --set no.such_key=1

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "cli_occupancy: all checks passed"
