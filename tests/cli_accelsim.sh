#!/bin/bash
# cli_accelsim.sh — Accel-Sim traces end to end: tracer versions 3 (a
# kernelslist.g) and 5 (a .traceg with lineinfo and immediates), .traceg.xz,
# `smsim export --accelsim` and the round trip native -> Accel-Sim -> smsim
# (identical reports), and one-line errors for bad input.
# Usage: bash tests/cli_accelsim.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_accelsim.sh /path/to/smsim}
CFG=configs/h100.yaml
D=tests/data/accelsim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

source "$(dirname "$0")/cli_lib.sh"

if ! python3 -c 'import json' >/dev/null 2>&1; then
    echo "python3 not found: skipped"
    exit 77
fi

# metric FILE.json KERNEL NAME: one metric of the JSON report.
metric() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernels"][int(sys.argv[2])]["metrics"][sys.argv[3]])' "$@"
}

# The sample kernel (2 blocks x 2 warps x 12 instructions; hand-computed in
# tests/test_trace_accelsim.c): 48 warp-instructions, 1376 thread-instructions
# (a predicated-off EXIT and a 16-lane store), 92 sectors to L2.
for t in "$D/v3/kernelslist.g" "$D/v5/kernel-1.traceg" "$D/v5/kernelslist.g"; do
    expect_ok --config "$CFG" "$t" --format json
    cp "$TMP/out" "$TMP/s.json"
    [ "$(metric "$TMP/s.json" 0 smsp__inst_executed.sum)" = 48 ] || fail "$t: inst_executed"
    [ "$(metric "$TMP/s.json" 0 smsp__thread_inst_executed.sum)" = 1376 ] || fail "$t: thread_inst"
    [ "$(metric "$TMP/s.json" 0 lts__t_bytes.sum)" = 2944 ] || fail "$t: L2 bytes"
done
expect_ok --config "$CFG" "$D/v3/kernelslist.g"
grep -q "_Z6vecaddPKfS0_Pf" "$TMP/out" || fail "text report lacks the kernel name"

# .xz, decoded in-process (the xz tool only makes the test file)
if command -v xz >/dev/null 2>&1; then
    mkdir -p "$TMP/xz"
    xz -1 -c "$D/v5/kernel-1.traceg" >"$TMP/xz/kernel-1.traceg.xz"
    echo "kernel-1.traceg.xz" >"$TMP/xz/kernelslist.g"
    expect_ok --config "$CFG" "$TMP/xz/kernelslist.g" --format json
    cmp -s <(noprov "$TMP/out") <(noprov "$TMP/s.json") || fail ".xz report differs from the plain one"
fi

# Round trip: native -> export -> simulate; every metric identical (the
# trace avoids what the format cannot carry: predicates, footprints).
expect_ok export --accelsim "$TMP/rt" "$D/roundtrip.trace"
grep -q "wrote 2 kernels" "$TMP/out" || fail "export summary"
[ "$(cat "$TMP/rt/kernelslist.g")" = "kernel-1.traceg
kernel-2.traceg" ] || fail "exported kernelslist.g"
grep -q '^-accelsim tracer version = 4$' "$TMP/rt/kernel-1.traceg" || fail "export version line"
grep -q '^-smsim shmem dynamic = 1024$' "$TMP/rt/kernel-2.traceg" || fail "export smem split"
# with tag arrays, so both traces' addresses meet the same caches
TAGS=(--set memory.l1_ways=4 --set memory.l2_ways=16)
expect_ok --config "$CFG" "$D/roundtrip.trace" "${TAGS[@]}" --format json
cp "$TMP/out" "$TMP/native.json"
expect_ok --config "$CFG" "$TMP/rt/kernelslist.g" "${TAGS[@]}" --format json
cp "$TMP/out" "$TMP/accel.json"
python3 - "$TMP/native.json" "$TMP/accel.json" <<'PY' || fail "round trip differs"
import json, sys
a, b = (json.load(open(p))["kernels"] for p in sys.argv[1:3])
assert len(a) == len(b) == 2, (len(a), len(b))
bad = 0
for ka, kb in zip(a, b):
    assert ka["name"] == kb["name"]
    for k, v in ka["metrics"].items():
        if kb["metrics"].get(k) != v:
            print("  %s %s: native %s, accelsim %s" % (ka["name"], k, v, kb["metrics"].get(k)))
            bad += 1
sys.exit(1 if bad else 0)
PY
# exporting twice gives identical files (synthesized addresses are deterministic)
expect_ok export --accelsim "$TMP/rt2" "$D/roundtrip.trace"
cmp -s "$TMP/rt/kernel-1.traceg" "$TMP/rt2/kernel-1.traceg" || fail "export is not deterministic"
# an Accel-Sim trace exports too (PCs and addresses are re-synthesized)
expect_ok export --accelsim "$TMP/rt3" "$D/v5/kernelslist.g"
expect_ok --config "$CFG" "$TMP/rt3/kernelslist.g" --format json
[ "$(metric "$TMP/out" 0 smsp__thread_inst_executed.sum)" = 1376 ] || fail "re-exported thread_inst"

# --threads: the reader is thread-safe (trace_kernel.mt_safe), and reports
# are byte-identical for 1 and 2 threads.  A kernel of three waves (255
# registers: 2 blocks of 128 threads per SM, 264 resident on an H100) with
# global loads, stores, a random pattern and a mid-warp EXIT twin.
cat >"$TMP/mt.trace" <<'TR'
kernel mt grid=(800,1,1) block=(128,1,1) regs=255 {
  S2R R0, SR_TID.X
  LDC.64 R6, c[0x0][0x218]
  loop 2 {
    IMAD.WIDE R4, R0, 0x10, R6
    LDG.E.128 R12, [R4.64]
    FFMA R12, R12, R12, R13
    STG.E.128 [R4.64], R12
    LDG.E R16, [R4.64] pattern=random
  }
  EXIT
}
TR
expect_ok export --accelsim "$TMP/mt" "$TMP/mt.trace"
sed 's/ S2R / FOOBAR.X /' "$TMP/mt/kernel-1.traceg" >"$TMP/mt/kernel-2.traceg"
printf 'kernel-1.traceg\nkernel-2.traceg\n' >"$TMP/mt/kernelslist.g"
for n in 1 2; do
    "$SMSIM" --config "$CFG" "$TMP/mt/kernelslist.g" --format json --threads $n \
        >"$TMP/mt$n.json" 2>"$TMP/mt$n.err" || fail "--threads $n exited $? ($(head -c 300 "$TMP/mt$n.err"))"
done
cmp -s "$TMP/mt1.json" "$TMP/mt2.json" || fail "Accel-Sim trace: --threads 1 and 2 differ"
cmp -s "$TMP/mt1.err" "$TMP/mt2.err" || fail "Accel-Sim trace: warnings differ with --threads 2"
[ "$(grep -c "warning: unknown opcode 'FOOBAR'" "$TMP/mt1.err")" -eq 1 ] || fail "want one FOOBAR warning: $(cat "$TMP/mt1.err")"
[ "$(metric "$TMP/mt1.json" 0 smsp__inst_executed.sum)" = 41600 ] || fail "mt: inst_executed"
[ "$(metric "$TMP/mt1.json" 1 smsim__inst_executed_unknown_opcode.sum)" = 3200 ] || fail "mt: unknown count"
"$SMSIM" --config "$CFG" "$TMP/mt/kernelslist.g" --format json --threads 1 >"$TMP/mt3.json" 2>/dev/null
cmp -s "$TMP/mt1.json" "$TMP/mt3.json" || fail "Accel-Sim trace: two runs differ"
# An error met mid-run, in a block of the second wave (a garbled instruction
# line in block 300, found when an SM starts it): with two threads the SM
# that meets it may be stepped by the second thread, and the run must still
# stop with the same one line (eng_par.c: each thread's outbox flags its
# SMs' errors, the serial phase takes the earliest).
mkdir -p "$TMP/mtbad"
awk '/^thread block = 300,0,0$/ { b = 1 } b && /^[0-9]+ [0-9a-f]+ [0-9a-f]+ / && ++k == 3 { print "999 0040 ffffffff garbled"; next } { print }' \
    "$TMP/mt/kernel-1.traceg" >"$TMP/mtbad/kernel-1.traceg"
cmp -s "$TMP/mt/kernel-1.traceg" "$TMP/mtbad/kernel-1.traceg" && fail "mtbad: nothing was garbled"
for n in 1 2; do
    "$SMSIM" --config "$CFG" "$TMP/mtbad/kernel-1.traceg" --threads $n >"$TMP/mtbad$n.out" 2>"$TMP/mtbad$n.err" &&
        fail "garbled block 300: --threads $n exited 0"
    [ -s "$TMP/mtbad$n.out" ] && fail "garbled block 300: --threads $n wrote to stdout"
done
[ "$(wc -l <"$TMP/mtbad1.err")" -eq 1 ] || fail "garbled block 300: want one line: $(cat "$TMP/mtbad1.err")"
grep -q 'kernel-1.traceg:[0-9]*:' "$TMP/mtbad1.err" || fail "garbled block 300: no file:line: $(cat "$TMP/mtbad1.err")"
cmp -s "$TMP/mtbad1.err" "$TMP/mtbad2.err" ||
    fail "garbled block 300: --threads 1 and 2 report differently: $(cat "$TMP/mtbad1.err") / $(cat "$TMP/mtbad2.err")"

# Bad input: one line, non-zero exit, nothing on stdout.
mkdir -p "$TMP/bad"
printf 'MemcpyHtoD,0x7f0000000000,64\nkernel-7.traceg\n' >"$TMP/bad/kernelslist.g"
expect_err "kernelslist.g:2:1: cannot open kernel trace '.*kernel-7.traceg'" --config "$CFG" "$TMP/bad/kernelslist.g"
sed 's/^-nregs = 16$/-nregs = 999/' "$D/v3/kernel-1.traceg" >"$TMP/bad/kernel-1.traceg"
expect_err "kernel-1.traceg:6:10: -nregs must be 1..255, got '999'" --config "$CFG" "$TMP/bad/kernel-1.traceg"
sed 's/^-grid dim = (2,1,1)$/-grid dim = (2,x,1)/' "$D/v3/kernel-1.traceg" >"$TMP/bad/kernel-1.traceg"
expect_err "kernel-1.traceg:3:16: -grid dim must be" --config "$CFG" "$TMP/bad/kernel-1.traceg"
# truncated inside a warp: reported when the engine starts that block
head -30 "$D/v3/kernel-1.traceg" >"$TMP/bad/kernel-1.traceg"
expect_err "kernel-1.traceg|trace has no stream" --config "$CFG" "$TMP/bad/kernel-1.traceg"
expect_err "binary .tracez containers are not supported" --config "$CFG" "$TMP/bad/k.tracez"
expect_err "^smsim: export: missing --accelsim OUTDIR" export "$D/roundtrip.trace"
expect_err "^smsim: export: missing TRACE" export --accelsim "$TMP/x"
expect_err "^smsim: export: unknown option '--bogus'" export --bogus 1
expect_err "^smsim: --binary-version 'abc': expected an integer" export --accelsim "$TMP/x" --binary-version abc "$D/roundtrip.trace"

# Unknown opcodes: one warning per name on stderr, counted in the report.
# Renaming the S2R at PC 0x0010 (one per warp: 2 blocks x 2 warps) gives 4.
sed 's/ 0010 ffffffff 1 R0 S2R / 0010 ffffffff 1 R0 FOOBAR.X /' "$D/v5/kernel-1.traceg" >"$TMP/unk.traceg"
"$SMSIM" --config "$CFG" --format json "$TMP/unk.traceg" >"$TMP/unk.json" 2>"$TMP/unk.err"
[ "$?" -eq 0 ] || fail "unknown-opcode trace did not run ($(head -c 300 "$TMP/unk.err"))"
[ "$(grep -c FOOBAR "$TMP/unk.err")" -eq 1 ] || fail "want one warning naming FOOBAR, got: $(cat "$TMP/unk.err")"
v=$(metric "$TMP/unk.json" 0 smsim__inst_executed_unknown_opcode.sum 2>/dev/null)
[ "$v" = "4" ] || fail "smsim__inst_executed_unknown_opcode.sum = '$v', want 4"
v=$(metric "$TMP/unk.json" 0 smsp__inst_executed.sum 2>/dev/null)
[ "$v" = "48" ] || fail "unknown-opcode trace: smsp__inst_executed.sum = '$v', want 48"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok"
