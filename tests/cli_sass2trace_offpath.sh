#!/bin/bash
# cli_sass2trace_offpath.sh — `smsim sass2trace` asks for nothing about code
# that never executes: with --counts, code executed 0 times (and what only it
# reaches); without, code a constant --take rules out.  Such code may hold a
# CALL.REL.NOINC (a slow path) or loops without trip counts: no hand edit of
# the listing, no dummy --trip.  The same instructions on the converted path
# are still errors (the mechanism is the path, not the opcode).
# tests/data/sass/offpath.sass (hand-written, cuobjdump layout; counts in
# offpath.csv for 2 blocks x 4 warps): 0x30 @P0 BRA over a slow path with a
# CALL.REL.NOINC 0x130 (never executed), a 4-trip loop 0x80..0xb0, 0xd0 @P2
# EXIT that every warp leaves at, then a loop 0xe0..0x100 and a STG that never
# run, the called code 0x130..0x140 (RET).  exitall.sass is the same without
# the CALL.  176 warp-instructions (tests/cli_sass2trace_infer.sh).
# Usage: bash tests/cli_sass2trace_offpath.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_offpath.sh /path/to/smsim}
D=tests/data/sass
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

L=(--grid 2 --block 128 --regs 32 --smem-static 0 --smem-dynamic 0)
O=(--sass $D/offpath.sass --kernel offpath)

# 1. (d) counts: the CALL on the path never executed needs no hand edit.
run sass2trace "${O[@]}" --counts $D/offpath.csv "${L[@]}" --expect-insts 176 -o "$TMP/a.trace"
[ "$rc" -eq 0 ] || fail "counts: $(cat "$TMP/err")"
grep -q 'CALL\|RET' "$TMP/a.trace" && fail "counts: CALL/RET written"
grep -q '^smsim: sass2trace: inferred: 9 instructions off the converted path (executed 0 times, or reached only through such code), not converted: 0x0060 CALL.REL.NOINC$' \
    "$TMP/err" || fail "counts: stderr: $(cat "$TMP/err")"

# 2. (d) without counts: --take 0x30=1 (every warp skips the slow path) is
#    enough for the CALL; (c) --take 0xd0=1 (every warp leaves) ends the
#    stream: the loop 0xe0..0x100 after it needs no --trip.
run sass2trace "${O[@]}" --take 0x30=1 --take 0xd0=1 --trip 0xb0=4 "${L[@]}" --expect-insts 176 \
    -o "$TMP/b.trace"
[ "$rc" -eq 0 ] || fail "no counts: $(cat "$TMP/err")"
[ "$(cat "$TMP/err")" = "smsim: sass2trace: inferred: 9 instructions off the converted path (ruled out by a constant --take), not converted: 0x0060 CALL.REL.NOINC" ] ||
    fail "no counts: stderr: $(cat "$TMP/err")"
grep -qx '  # 0x0040..0x0070 dropped: the branch at 0x0030 is always taken (--take: always taken)' \
    "$TMP/b.trace" || fail "no counts: the slow path is not dropped"
grep -qx '  /\*00d0\*/ EXIT ; stall=1  # @P2 EXIT: every warp leaves (--take)' "$TMP/b.trace" ||
    fail "no counts: the EXIT is not a plain EXIT"
# the same instruction stream as from the counts (comments aside)
diff <(grep -v '#' "$TMP/a.trace") <(grep -v '#' "$TMP/b.trace") >/dev/null ||
    fail "--take constants and counts give different streams"

# 3. (c) counts plus an old --take for the EXIT: still no dummy --trip 0x100=1.
run sass2trace --sass $D/exitall.sass --kernel exitall --counts $D/exitall.csv --take 0xd0=1 \
    "${L[@]}" --expect-insts 176 -o "$TMP/c.trace"
[ "$rc" -eq 0 ] || fail "counts + --take: $(cat "$TMP/err")"
run sass2trace --sass $D/exitall.sass --kernel exitall --take 0x30=1 --take 0xd0=1 --trip 0xb0=4 \
    "${L[@]}" --expect-insts 176 -o "$TMP/d.trace"
[ "$rc" -eq 0 ] || fail "exitall without counts: $(cat "$TMP/err")"

# 4. On the converted path they are errors as before: without --take 0x30 the
#    branch is assumed not taken (the slow path runs), with a per-warp
#    --take the slow path runs for some warps; without --take 0xd0 the loop
#    after the EXIT runs and needs its trips.
expect_err "^tests/data/sass/offpath.sass:24:38: unsupported control flow 'CALL.REL.NOINC' at 0x0060 \(calls, returns and indirect jumps are not converted\)$" \
    sass2trace "${O[@]}" --take 0xd0=1 --trip 0xb0=4 "${L[@]}"
expect_err "^tests/data/sass/offpath.sass:24:38: unsupported control flow 'CALL.REL.NOINC' at 0x0060" \
    sass2trace "${O[@]}" --take '0x30=warp >= 1' --take 0xd0=1 --trip 0xb0=4 "${L[@]}"
expect_err "^tests/data/sass/exitall.sass:44:42: the loop 0x00e0..0x0100 has no trip count" \
    sass2trace --sass $D/exitall.sass --kernel exitall --take 0x30=1 --trip 0xb0=4 "${L[@]}"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace_offpath: all passed"
