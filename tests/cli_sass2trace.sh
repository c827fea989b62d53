#!/bin/bash
# cli_sass2trace.sh — `smsim sass2trace`: conversion of a committed SASS
# excerpt with ncu counts, the --expect-insts check (pass and fail: no output
# file on failure), annotations, the converted trace runs, usage errors (one
# line on stderr, non-zero exit, nothing on stdout).
# Usage: bash tests/cli_sass2trace.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace.sh /path/to/smsim}
D=tests/data/sass
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

L=(--grid 2112,1,1 --block 128 --regs 16 --smem-static 0 --smem-dynamic 57344)
FF=(--sass $D/ffma_ilp1.sass --kernel ilp1 --counts $D/ffma_ilp1_b4.csv)

# 1. ncu's smsp__inst_executed.sum for this launch (ffma-ilp1 ID 3) is 82,308,864.
run sass2trace "${FF[@]}" "${L[@]}" --expect-insts 82308864 -o "$TMP/a.trace"
[ "$rc" -eq 0 ] || fail "conversion failed: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "$TMP/a.trace: 82308864 warp-instructions, expected 82308864 (+0.000 %): ok" ] ||
    fail "check line: $(cat "$TMP/out")"
# stderr names what the counts decided (the one loop's trips)
[ "$(cat "$TMP/err")" = "smsim: sass2trace: inferred: 0x01c0 loop 0x00a0..0x01c0: 512 trips (counts: back edge 4325376 / 8448 entries)" ] ||
    fail "stderr: $(cat "$TMP/err")"
# (followed by its control bits: 0x000fec...: stall 6, docs/sass-converter.md)
grep -q '^    /\*01c0\*/ @P0 BRA 0xa0 ; stall=6$' "$TMP/a.trace" || fail "back edge not kept verbatim"
grep -q '^  loop 512 {' "$TMP/a.trace" || fail "no loop 512"
# to stdout: the same text
run sass2trace "${FF[@]}" "${L[@]}"
[ "$rc" -eq 0 ] && cmp -s "$TMP/out" "$TMP/a.trace" || fail "stdout differs from -o output"
# deterministic
"$SMSIM" sass2trace "${FF[@]}" "${L[@]}" -o "$TMP/b.trace" >/dev/null 2>&1
cmp -s "$TMP/a.trace" "$TMP/b.trace" || fail "two conversions differ"

# 2. A wrong expectation fails loudly and leaves no file (0.5 % of 82308864 = 411544).
expect_err "^smsim: $TMP/c.trace: the trace executes 82308864 warp-instructions, --expect-insts is 81897319 \(\+0\.503 %, tolerance 0\.5 %\)$" \
    sass2trace "${FF[@]}" "${L[@]}" --expect-insts 81897319 -o "$TMP/c.trace"
[ -e "$TMP/c.trace" ] && fail "output written although the check failed"
ls "$TMP" | grep -q tmp && fail "temporary file left behind"
run sass2trace "${FF[@]}" "${L[@]}" --expect-insts 81900000 -o "$TMP/c.trace"
[ "$rc" -eq 0 ] || fail "0.499 % off should pass: $(cat "$TMP/err")"

# 3. Annotations: values may use launch constants; they add attributes only.
printf '# test\nSTG pattern=coalesced footprint=blocks*512  # 4 B x 128 threads\n' >"$TMP/x.annot"
run sass2trace "${FF[@]}" "${L[@]}" --annot "$TMP/x.annot"
grep -q '^  /\*0200\*/ STG.E desc\[UR4\]\[R2.64\], R7 ; pattern=coalesced footprint=1081344 stall=1$' "$TMP/out" ||
    fail "annotation not applied: $(grep STG "$TMP/out")"
diff <(grep -v '^#' "$TMP/out" | sed 's/ ; .*/ ;/') <(grep -v '^#' "$TMP/a.trace" | sed 's/ ; .*/ ;/') >/dev/null ||
    fail "annotation changed the instruction stream"
printf '0x0040 footprint=1M\n' >"$TMP/y.annot"
expect_err "^$TMP/y.annot:1:1: 0x0040 is 'ULDC.64', not a memory instruction \(annotations describe memory accesses only\)$" \
    sass2trace "${FF[@]}" "${L[@]}" --annot "$TMP/y.annot"
printf 'STG lat=4\n' >"$TMP/z.annot"
expect_err "^$TMP/z.annot:1:5: unknown annotation 'lat'" sass2trace "${FF[@]}" "${L[@]}" --annot "$TMP/z.annot"
printf 'LDS footprint=1K\n' >"$TMP/w.annot"
expect_err "^$TMP/w.annot:1:1: annotation matches no reachable instruction of '_Z13val_ffma_ilp1Pfff'$" \
    sass2trace "${FF[@]}" "${L[@]}" --annot "$TMP/w.annot"
printf 'STG footprint=block*4\n' >"$TMP/v.annot"
expect_err "^$TMP/v.annot:1:15: attribute 'footprint' must not depend on block or warp" \
    sass2trace "${FF[@]}" "${L[@]}" --annot "$TMP/v.annot"

# 4. The converted trace runs (small launch: 2 blocks).
"$SMSIM" sass2trace --sass $D/nested.sass --kernel nested --counts $D/nested.csv \
    --take '0xc0=warp >= 2' --take '0x120=warp >= 1' --grid 2 --block 128 --regs 32 \
    --smem-static 0 --smem-dynamic 0 --expect-insts 558 -o "$TMP/n.trace" >/dev/null 2>"$TMP/err" ||
    fail "nested conversion failed"
run --config configs/h200.yaml "$TMP/n.trace" --format json
[ "$rc" -eq 0 ] || fail "simulating the converted trace failed: $(cat "$TMP/err")"
grep -q '"smsp__inst_executed.sum": 558,' "$TMP/out" || fail "simulated instruction count is not 558"

# 5. Usage errors.
expect_err "^smsim: sass2trace: missing --kernel " sass2trace --sass $D/nested.sass "${L[@]}"
expect_err "^smsim: sass2trace: missing --smem-dynamic " sass2trace "${FF[@]}" --grid 1 --block 32 --regs 16 --smem-static 0
expect_err "^smsim: --regs '300'" sass2trace "${FF[@]}" --grid 1 --block 32 --regs 300 --smem-static 0 --smem-dynamic 0
expect_err "^smsim: --grid '0,1': " sass2trace "${FF[@]}" --grid 0,1 --block 32 --regs 16 --smem-static 0 --smem-dynamic 0
expect_err "^smsim: --trip '0x1c4=3': expected PC=VALUE" sass2trace "${FF[@]}" "${L[@]}" --trip 0x1c4=3
expect_err "^smsim: --take 0xc0: not a forward conditional branch or guarded EXIT" \
    sass2trace "${FF[@]}" "${L[@]}" --take 0xc0=1
expect_err "^smsim: sass2trace: unknown option '--bogus'" sass2trace "${FF[@]}" "${L[@]}" --bogus
expect_err "^$TMP/none.sass: cannot open: " sass2trace --sass "$TMP/none.sass" --kernel x "${L[@]}"
expect_err "^tests/data/sass/unknown_op.sass:29:37: unknown opcode 'FFMAX'" \
    sass2trace --sass $D/unknown_op.sass --kernel nested --trip 0x70=4 --trip 0xa0=3 "${L[@]}"
run sass2trace --help
[ "$rc" -eq 0 ] && grep -q -- '--counts CSV' "$TMP/out" || fail "--help"

# -o may not be an input (it would replace the listing or the counts)
cp $D/ffma_ilp1.sass "$TMP/in.sass"
cp $D/ffma_ilp1_b4.csv "$TMP/in.csv"
expect_err "^smsim: -o '.*in\.sass' is the SASS listing \(it would be overwritten\)$" \
    sass2trace --sass "$TMP/in.sass" --kernel ilp1 --counts $D/ffma_ilp1_b4.csv "${L[@]}" -o "$TMP/in.sass"
expect_err "^smsim: -o '.*in\.csv' is the counts file \(it would be overwritten\)$" \
    sass2trace --sass $D/ffma_ilp1.sass --kernel ilp1 --counts "$TMP/in.csv" "${L[@]}" -o "$TMP/in.csv"
cmp -s $D/ffma_ilp1.sass "$TMP/in.sass" && cmp -s $D/ffma_ilp1_b4.csv "$TMP/in.csv" ||
    fail "sass2trace replaced its input"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace: all passed"
