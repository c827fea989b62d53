#!/bin/bash
# cli_sass2trace_events.sh — `smsim sass2trace --events`: a tracer event file
# and its SASS listing -> an Accel-Sim trace directory that smsim runs, with
# the executed-instruction totals of the hand count (tests/test_convert_events.c:
# 23 + 18 = 41 warp-instructions, 22 x 32 + 1 x 0 + 17 x 32 + 16 = 1264 thread
# instructions; 59 with the counts file), the committed event files are
# what tests/data/events/gen_smev.py writes, and two H200 recordings rebuild
# to ncu's instruction counts.
# Usage: bash tests/cli_sass2trace_events.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_events.sh /path/to/smsim}
D=tests/data/events
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

# 0. the committed event files are the generator's
for v in ok truncated badkey warp pc nopath ldgsts hopper; do
    f=$D/err_$v.smev
    [ $v = ok ] && f=$D/recon.smev
    [ $v = ldgsts ] || [ $v = hopper ] && f=$D/$v.smev
    python3 $D/gen_smev.py "$TMP/g.smev" $v
    cmp -s "$TMP/g.smev" "$f" || fail "$f differs from: python3 $D/gen_smev.py OUT $v"
done

metric() { # metric JSON NAME
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernels"][0]["metrics"][sys.argv[2]])' "$@"
}

# 1. reconstruction, the summary line, the trace runs with the hand counts
run sass2trace --events $D/recon.smev --sass $D/recon.sass -o "$TMP/dir"
[ "$rc" -eq 0 ] || fail "conversion failed: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "stdout not empty: $(cat "$TMP/out")"
want="smsim: sass2trace: $TMP/dir: 2 warps (1 blocks, grid 1,1,1), 41 warp-instructions, 12 records consumed, 2 ambiguous choices (0 by counts), 1 predicated-off instrumented instructions, 0 divergence switches"
[ "$(cat "$TMP/err")" = "$want" ] || fail "summary: $(cat "$TMP/err")"
[ "$(cat "$TMP/dir/kernelslist.g")" = "kernel-1.traceg" ] || fail "kernelslist.g"
grep -qx '00e0 00000000 0 STG.E 2 R2 R4 4 1 0x0 0' "$TMP/dir/kernel-1.traceg" ||
    fail "warp 0's predicated-off STG is not written with mask 0"
run --config configs/h200.yaml "$TMP/dir/kernelslist.g" --format json -o "$TMP/r.json"
[ "$rc" -eq 0 ] || fail "smsim run failed: $(cat "$TMP/err")"
[ "$(metric "$TMP/r.json" smsp__inst_executed.sum)" = 41 ] ||
    fail "smsp__inst_executed.sum $(metric "$TMP/r.json" smsp__inst_executed.sum), hand count 41"
[ "$(metric "$TMP/r.json" smsp__thread_inst_executed.sum)" = 1264 ] ||
    fail "smsp__thread_inst_executed.sum $(metric "$TMP/r.json" smsp__thread_inst_executed.sum), hand count 1264"

# 1b. memcpy_async (LDGSTS) records' global sources are the LDGSTS lanes'
#     addresses, and smsim counts them as global loads as ncu does: 4 + 16
#     load sectors, 4 store sectors, 9 warp-instructions, 8 x 32 + 16 thread
#     instructions by hand (gen_smev.py ldgsts)
run sass2trace --events $D/ldgsts.smev --sass $D/ldgsts.sass -o "$TMP/ld"
[ "$rc" -eq 0 ] || fail "ldgsts: $(cat "$TMP/err")"
grep -q '^0020 0000ffff 0 LDGSTS.E.LTC128B 2 R76 R82 4 0 0x00007f0000002000 0x00007f0000002040 ' \
    "$TMP/ld/kernel-1.traceg" || fail "ldgsts: the second LDGSTS does not carry its record's addresses"
run --config configs/h200.yaml "$TMP/ld/kernelslist.g" --format json -o "$TMP/ld.json"
for mv in smsp__inst_executed.sum=9 smsp__thread_inst_executed.sum=272 \
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum=20 l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum=4; do
    got=$(metric "$TMP/ld.json" "${mv%=*}" 2>/dev/null)
    [ "$got" = "${mv#*=}" ] || fail "ldgsts: ${mv%=*} '$got', hand count ${mv#*=}"
done

# 1c. Hopper opcodes parse (HGMMA with the warpgroup scoreboard gsb0,
#     WARPGROUP.DEPBAR.LE gsb0, UTMALDG/UTMASTG, SYNCS.*, STSM, UCGABAR_*,
#     lines of cuBLAS's nvjet_sm90 GEMM), and a warp whose lanes leave by the
#     same unguarded EXIT twice (16-31, then 0-15 after the other side of the
#     branch): 19 + 1 + 2 = 22 warp-instructions, 19 x 32 + 3 x 16 thread
#     instructions; the TMA copies count as no LSU sectors
run sass2trace --events $D/hopper.smev --sass $D/hopper.sass -o "$TMP/hp"
[ "$rc" -eq 0 ] || fail "hopper: $(cat "$TMP/err")"
grep -q ' 22 warp-instructions, 3 records consumed, 1 ambiguous choices (0 by counts), 0 predicated-off instrumented instructions, 1 divergence switches$' \
    "$TMP/err" || fail "hopper summary: $(cat "$TMP/err")"
run --config configs/h200.yaml "$TMP/hp/kernelslist.g" --format json -o "$TMP/hp.json"
for mv in smsp__inst_executed.sum=22 smsp__thread_inst_executed.sum=656 \
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum=0 l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum=0; do
    got=$(metric "$TMP/hp.json" "${mv%=*}" 2>/dev/null)
    [ "$got" = "${mv#*=}" ] || fail "hopper: ${mv%=*} '$got', hand count ${mv#*=}"
done

# 2. the counts decide loop A (4 trips per warp); --expect-insts; a second run
#    into the same directory replaces its files
run sass2trace --events $D/recon.smev --sass $D/recon.sass --counts $D/recon.counts \
    --expect-insts 59 -o "$TMP/dir"
[ "$rc" -eq 0 ] || fail "conversion with counts failed: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "$TMP/dir: 59 warp-instructions, expected 59 (+0.000 %): ok" ] ||
    fail "check line: $(cat "$TMP/out")"
grep -q ' 59 warp-instructions, 12 records consumed, 8 ambiguous choices (8 by counts)' "$TMP/err" ||
    fail "summary with counts: $(cat "$TMP/err")"
run --config configs/h200.yaml "$TMP/dir/kernelslist.g" --format json -o "$TMP/r.json"
[ "$(metric "$TMP/r.json" smsp__inst_executed.sum)" = 59 ] || fail "with counts: not 59"

# 2b. --xz: the same trace, compressed
run sass2trace --events $D/recon.smev --sass $D/recon.sass --counts $D/recon.counts --xz \
    -o "$TMP/dz"
[ "$rc" -eq 0 ] || fail "--xz failed: $(cat "$TMP/err")"
[ "$(cat "$TMP/dz/kernelslist.g")" = "kernel-1.traceg.xz" ] || fail "--xz: kernelslist.g"
xz -dc "$TMP/dz/kernel-1.traceg.xz" | cmp -s - "$TMP/dir/kernel-1.traceg" ||
    fail "--xz: not the compressed plain trace"

# 3. failures leave nothing in the directory
rm -rf "$TMP/bad"
run sass2trace --events $D/recon.smev --sass $D/recon.sass --expect-insts 40 -o "$TMP/bad"
[ "$rc" -ne 0 ] || fail "--expect-insts 40 passed"
[ -e "$TMP/bad/kernelslist.g" ] && fail "a failed check left kernelslist.g"
run sass2trace --events $D/err_truncated.smev --sass $D/recon.sass -o "$TMP/bad"
[ "$rc" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "truncated file: rc $rc, $(cat "$TMP/err")"
[ -e "$TMP/bad/kernelslist.g" ] && fail "a failed conversion left kernelslist.g"

# 4. the H200 recordings (validate/data/h200/tracer-2026-12-02): the tracer's
#    test kernel, every block recorded, rebuilds to ncu's smsp__inst_executed.sum
#    (356) with every instruction's count equal to ncu's; softmax_warp_forward
#    (64 of 1024 blocks) to ncu's 1,196 per warp with the counts
R=validate/data/h200/tracer-2026-12-02
if [ -d $R/trace_test ]; then
    run sass2trace --events $R/trace_test/launch-0.smev --sass $R/trace_test/module-0.sass \
        --expect-insts 356 --tolerance 0 -o "$TMP/tt"
    [ "$rc" -eq 0 ] || fail "trace_test: $(cat "$TMP/err")"
    run compare --source $R/trace_test/ncu-source-0.csv --config configs/h200.yaml \
        "$TMP/tt/kernelslist.g"
    grep -q 'issued: 64 of 64 instructions agree exactly (smsim 356, ncu 356 warp-instructions)' \
        "$TMP/out" || fail "trace_test per instruction: $(grep issued "$TMP/out")"
    if command -v xz >/dev/null; then
        for f in launch-0.smev module-0.sass ncu-source-0.csv; do
            xz -dc $R/torch_softmax/$f.xz >"$TMP/sm-$f"
        done
        run sass2trace --events "$TMP/sm-launch-0.smev" --sass "$TMP/sm-module-0.sass" \
            --counts "$TMP/sm-ncu-source-0.csv" --expect-insts 306176 --tolerance 0 -o "$TMP/sm"
        [ "$rc" -eq 0 ] || fail "softmax: $(cat "$TMP/err")"
    fi
else
    fail "$R/trace_test is missing"
fi

# 5. the help names the mode
"$SMSIM" sass2trace --help | grep -q -- '--events FILE.smev' || fail "--help has no --events"

# 6. kernel names: up to 511 characters go into the trace whole (the trace
#    launch name's size); 512 is one clear error naming file:line and the field
N511=_Z5recon$(printf 'x%.0s' $(seq 1 501))Pf
N512=${N511}Q
for n in 511 512; do
    eval name=\$N$n
    sed "s/^kernel = _Z5reconPf\$/kernel = $name/" $D/recon.smev >"$TMP/n$n.smev"
    sed "s/Function : _Z5reconPf\$/Function : $name/" $D/recon.sass >"$TMP/n$n.sass"
done
[ ${#N511} -eq 511 ] || fail "test name is ${#N511} characters"
run sass2trace --events "$TMP/n511.smev" --sass "$TMP/n511.sass" -o "$TMP/n511"
[ "$rc" -eq 0 ] || fail "511-character name: $(cat "$TMP/err")"
grep -q "^-kernel name = $N511\$" "$TMP/n511/kernel-1.traceg" || fail "511-character name not whole in the trace"
run sass2trace --events "$TMP/n512.smev" --sass "$TMP/n512.sass" -o "$TMP/n512"
[ "$rc" -ne 0 ] || fail "512-character name accepted"
grep -q "n512.smev:2: kernel = .*: expected one mangled name (no blanks, under 512 characters)" "$TMP/err" ||
    fail "512-character name: $(cat "$TMP/err")"
[ -e "$TMP/n512" ] && fail "512-character name: output written"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok"
