#!/bin/bash
# cli_sass2trace_infer.sh — `smsim sass2trace --counts` decides what the counts
# determine, without --take/--trip: a guarded EXIT that every warp leaves at
# (the next instruction executes 0 times), a forward branch whose skipped code
# executes 0 times, loop trips; each decision is named on stderr.  What the
# counts do not determine (which warps of a partial EXIT) still needs --take.
# And a real kernel nobody here wrote: PyTorch's softmax_warp_forward from the
# H200 tracer run (validate/data/h200/tracer-2026-12-02/torch_softmax), converted
# with its SourceCounters export and raw page and no other option, executes
# exactly ncu's smsp__inst_executed.sum.  Long mangled names (CUB's, 228
# characters) are kept whole.
# tests/data/sass/exitall.sass (hand-written, cuobjdump layout; counts in
# exitall.csv for 2 blocks x 4 warps): 0x30 @P0 BRA over 4 instructions never
# executed, a 4-trip loop 0x80..0xb0, 0xd0 @P2 EXIT executed by all 8 warps with
# nothing executed after it.  4*8 + 4*4*8 + 2*8 = 176 warp-instructions.
# Usage: bash tests/cli_sass2trace_infer.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_infer.sh /path/to/smsim}
D=tests/data/sass
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

L=(--grid 2 --block 128 --regs 32 --smem-static 0 --smem-dynamic 0)
E=(--sass $D/exitall.sass --kernel exitall)

# 1. Counts alone: no --take for the EXIT, no --trip, no hand edit.
run sass2trace "${E[@]}" --counts $D/exitall.csv "${L[@]}" --expect-insts 176 -o "$TMP/a.trace"
[ "$rc" -eq 0 ] || fail "counts alone: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "$TMP/a.trace: 176 warp-instructions, expected 176 (+0.000 %): ok" ] ||
    fail "check line: $(cat "$TMP/out")"
grep -qx '  /\*00d0\*/ EXIT ; stall=1  # @P2 EXIT: every warp leaves (counts: the next instruction executes 0 times)' \
    "$TMP/a.trace" || fail "the EXIT every warp takes is not a plain EXIT"
grep -qx '  # 0x0040..0x0070 dropped: the branch at 0x0030 is always taken (counts: always taken)' \
    "$TMP/a.trace" || fail "the skipped code is not dropped"
grep -q '^  loop 4 {  # 0x0080..0x00b0, trips from counts: 32 / 8$' "$TMP/a.trace" || fail "loop 4"
grep -q '0x00e0\|/\*00e0\*/\|/\*0110\*/' "$TMP/a.trace" && fail "code after the EXIT written"
cat >"$TMP/want" <<'X'
smsim: sass2trace: inferred: 9 instructions off the converted path (executed 0 times, or reached only through such code)
smsim: sass2trace: inferred: 0x00b0 loop 0x0080..0x00b0: 4 trips (counts: back edge 32 / 8 entries)
smsim: sass2trace: inferred: 0x00d0 @P2 EXIT: every warp leaves (counts: 8 executions, the next instruction 0)
smsim: sass2trace: inferred: 1 forward branch always taken (counts: the code skipped executes 0 times): 0x0030
X
diff "$TMP/want" "$TMP/err" >/dev/null || fail "stderr: $(cat "$TMP/err")"
# the converted trace runs and executes the same 176
run --config configs/h200.yaml "$TMP/a.trace" --format json
grep -q '"smsp__inst_executed.sum": 176,' "$TMP/out" || fail "simulated instruction count is not 176"

# 2. Counts that do not say which warps: half of them go on after the EXIT
#    (4 of 8) -> still an error asking for --take (not a guess).
awk -F'"' -v OFS='"' '$2 ~ /^0x7f00000010(e0|f0)$/ || $2 == "0x7f0000001100" || $2 == "0x7f0000001110" ||
    $2 == "0x7f0000001120" { $8 = 4 } { print }' $D/exitall.csv >"$TMP/half.csv"
expect_err "^tests/data/sass/exitall.sass:38:42: counts: 4 of 8 warp-executions leave at the guarded EXIT at 0x00d0; give --take 0x00d0=EXPR" \
    sass2trace "${E[@]}" --counts "$TMP/half.csv" "${L[@]}"

# 3. A real kernel, no --take/--trip/launch options (needs xz for the committed data).
T=validate/data/h200/tracer-2026-12-02/torch_softmax
if command -v xz >/dev/null; then
    xz -dc $T/module-0.sass.xz >"$TMP/softmax.sass"
    xz -dc $T/ncu-source.csv.xz >"$TMP/softmax.csv"
    # ncu's smsp__inst_executed.sum of that launch (its raw page, ID 0)
    run sass2trace --sass "$TMP/softmax.sass" --kernel softmax_warp_forward --counts "$TMP/softmax.csv" \
        --ncu $T/ncu.csv --expect-insts 4898816 --tolerance 0 -o "$TMP/softmax.trace"
    [ "$rc" -eq 0 ] || fail "softmax: $(head -c 400 "$TMP/err")"
    grep -q '^smsim: sass2trace: inferred: 160 instructions off the converted path .*, not converted: 0x23c0 CALL.REL.NOINC, ' \
        "$TMP/err" || fail "softmax: the CALLs never executed are not reported: $(head -c 300 "$TMP/err")"
    grep -q '^smsim: sass2trace: inferred: 32 forward branches always taken' "$TMP/err" ||
        fail "softmax: branches: $(cat "$TMP/err")"
    grep -q 'CALL' "$TMP/softmax.trace" && fail "softmax: a CALL was written"
    grep -q '^kernel _ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib grid=(1024,1,1) block=(32,4,1) regs=48 smem_static=0 smem_dynamic=0 barriers=0 {$' \
        "$TMP/softmax.trace" || fail "softmax: launch header: $(grep '^kernel' "$TMP/softmax.trace" | head -c 300)"
else
    echo "cli_sass2trace_infer: SKIP part 3 (no xz to unpack the committed softmax listing)"
fi
# 4. Library kernels have long mangled names: CuPy's CUB reduction (tracer data,
#    cupy_sum) is 228 characters; the listing's name goes into the trace whole
#    and the native reader takes it back (names up to 511 characters).
LONG=_ZN3cub43CUB_300102_SM_750_800_860_890_900_1000_12006detail6reduce18DeviceReduceKernelINS2_10policy_hubIfjN4cuda3std3__44plusIvEEE10Policy1000EPfjS9_fNS7_8identityEEEvT0_PT3_T1_NS0_13GridEvenShareISH_EET2_T4_
sed "s/_Z7exitallPfii/$LONG/" $D/exitall.sass >"$TMP/long.sass"
run sass2trace --sass "$TMP/long.sass" --kernel DeviceReduceKernel --counts $D/exitall.csv "${L[@]}" \
    --expect-insts 176 -o "$TMP/long.trace"
[ "$rc" -eq 0 ] || fail "long name: $(cat "$TMP/err")"
grep -q "^kernel $LONG grid=(2,1,1) " "$TMP/long.trace" || fail "long name not in the header"
run --config configs/h200.yaml "$TMP/long.trace" --format json
grep -q "\"name\": \"$LONG\"" "$TMP/out" || fail "long name not in the report: $(head -c 300 "$TMP/err")"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace_infer: all passed"
