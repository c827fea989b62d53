#!/bin/bash
# cli_sass2trace_annot.sh — annotations that say where instructions meet in
# memory: `array=NAME` (instructions with one name share one address region,
# so a later load finds the lines an earlier one brought in), `addr=` with
# `imm` (neighbour loads [R8.64+0x800] / [R8.64+0xa00] get their own offsets
# from one line), `pattern=broadcast` on a shared load.
# Data: trace_test of the H200 tracer run (validate/data/h200/tracer-2026-12-02/
# trace_test), 2 blocks x 2 warps: LDG 0x0180 in a 4-trip loop, LDGs 0x0270 and
# 0x0280 once each, LDS 0x01f0.
# The reuse, by hand (docs/trace-format.md, footprint shorthand): LDG with
# footprint=64K, width 4, coalesced: span 128 B, P = 512 positions, W = 4
# warps; instance k of warp g sits at (4k + g) mod 512.  0x0180: k 0..3 ->
# 16 lines; 0x0270 and 0x0280: k 0 -> 4 lines each.  Own regions:
# 16 + 4 + 4 = 24 lines = 3072 B from DRAM; one region (array=A): 0x0270/0x0280
# read 0x0180's first 4 lines again, 16 lines = 2048 B.
# Usage: bash tests/cli_sass2trace_annot.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_annot.sh /path/to/smsim}
T=validate/data/h200/tracer-2026-12-02/trace_test
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
S=(sass2trace --sass $T/module-0.sass --kernel trace_test --counts $T/ncu-source.csv
   --grid 2 --block 64 --regs 16 --smem-static 256 --smem-dynamic 0)

# 1. array=: accepted, written on every instruction the entry matches.
printf '# in[]: one 64 KiB buffer read by all three loads\nLDG footprint=64K array=A\n' >"$TMP/shared.annot"
printf '# the same loads, each its own region\nLDG footprint=64K\n' >"$TMP/own.annot"
run "${S[@]}" --annot "$TMP/shared.annot" -o "$TMP/shared.trace"
[ "$rc" -eq 0 ] || fail "array=: $(cat "$TMP/err")"
[ "$(grep -c 'LDG.E.CONSTANT .* ; footprint=65536 array=A ' "$TMP/shared.trace")" -eq 3 ] ||
    fail "array=A not on the three LDGs: $(grep LDG "$TMP/shared.trace")"
run "${S[@]}" --annot "$TMP/own.annot" -o "$TMP/own.trace"
[ "$rc" -eq 0 ] || fail "own regions: $(cat "$TMP/err")"
# ... and it is reuse in the simulation: 3072 -> 2048 DRAM bytes (above)
for k in own shared; do
    run --config configs/h200.yaml "$TMP/$k.trace" --format json
    grep -o '"dram__bytes.sum": [0-9]*' "$TMP/out" | awk '{print $2}' >"$TMP/$k.dram"
done
[ "$(cat "$TMP/own.dram")" = 3072 ] || fail "own regions: dram bytes $(cat "$TMP/own.dram"), want 3072"
[ "$(cat "$TMP/shared.dram")" = 2048 ] || fail "array=A: dram bytes $(cat "$TMP/shared.dram"), want 2048"
printf 'LDG footprint=64K array=A-1\n' >"$TMP/bad.annot"
expect_err "^$TMP/bad.annot:1:25: bad array name 'A-1' \(letters, digits and _\)$" "${S[@]}" --annot "$TMP/bad.annot"
printf 'LDS footprint=1K array=T\n' >"$TMP/lds.annot"
expect_err "^$TMP/lds.annot:1:20: attribute 'array' applies only to global and local memory instructions" \
    "${S[@]}" --annot "$TMP/lds.annot"

# 2. addr= with imm: one entry, each load its own immediate offset.
printf '# in[(block*64 + tid) + 512 (or 640)]: R8 = &in[block*64 + tid], the offset in imm\n0x0270 addr=0x10000000+block*256+warp*128+imm\n0x0280 addr=0x10000000+block*256+warp*128+imm\n' >"$TMP/addr.annot"
run "${S[@]}" --annot "$TMP/addr.annot" -o "$TMP/addr.trace"
[ "$rc" -eq 0 ] || fail "addr=: $(cat "$TMP/err")"
grep -q '/\*0270\*/ @!P0 LDG.E.CONSTANT R0, desc\[UR6\]\[R8.64+0x800\] ; addr=0x10000000+block\*256+warp\*128+0x800 ' \
    "$TMP/addr.trace" || fail "addr= imm 0x800: $(grep 0270 "$TMP/addr.trace")"
grep -q '/\*0280\*/ @P1 LDG.E.CONSTANT R4, desc\[UR6\]\[R8.64+0xa00\] ; addr=0x10000000+block\*256+warp\*128+0xa00 ' \
    "$TMP/addr.trace" || fail "addr= imm 0xa00: $(grep 0280 "$TMP/addr.trace")"

# 3. pattern=broadcast on a shared load (every lane one word) is written through.
printf 'LDS pattern=broadcast\n' >"$TMP/bc.annot"
run "${S[@]}" --annot "$TMP/bc.annot"
grep -q '^    /\*01f0\*/ LDS R8, \[R4\] ; pattern=broadcast stall=' "$TMP/out" || fail "LDS broadcast: $(grep LDS "$TMP/out")"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace_annot: all passed"
