#!/bin/bash
# cli_sass2trace_ncu.sh — `smsim sass2trace --ncu REPORT.csv [--ncu-id N |
# --ncu-kernel REGEX]`: the launch shape (grid, block, registers, static and
# dynamic shared memory, barriers) from ncu's raw page instead of the command
# line; command-line values win and a difference is reported; a report of
# several launches lists them.  Data: the H200 tracer run's trace_test
# (validate/data/h200/tracer-2026-12-02/trace_test: cuobjdump listing,
# SourceCounters export, raw page: grid 2, block 64, 16 registers, 256 B static
# shared memory, 1 barrier, smsp__inst_executed.sum 356) and the 24-launch raw
# page of kit3-2026-12-01/stencil.
# Usage: bash tests/cli_sass2trace_ncu.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_ncu.sh /path/to/smsim}
T=validate/data/h200/tracer-2026-12-02/trace_test
M=validate/data/h200/kit3-2026-12-01/stencil/stencil-reuse-ncu.raw.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

S=(sass2trace --sass $T/module-0.sass --kernel trace_test --counts $T/ncu-source.csv)
HEAD='kernel _Z10trace_testPKfPfPiii grid=(2,1,1) block=(64,1,1) regs=16 smem_static=256 smem_dynamic=0 barriers=1 {'

# 1. --ncu alone gives the launch; the same bytes as the launch typed out.
run "${S[@]}" --ncu $T/ncu.csv --expect-insts 356 --tolerance 0 -o "$TMP/a.trace"
[ "$rc" -eq 0 ] || fail "--ncu: $(cat "$TMP/err")"
grep -qxF "$HEAD" "$TMP/a.trace" || fail "header: $(grep '^kernel' "$TMP/a.trace")"
run "${S[@]}" --grid 2 --block 64 --regs 16 --smem-static 256 --smem-dynamic 0 --barriers 1 \
    -o "$TMP/b.trace"
[ "$rc" -eq 0 ] && cmp -s "$TMP/a.trace" "$TMP/b.trace" || fail "--ncu and the typed launch differ"
# the only launch is picked without --ncu-id; --ncu-id 0 is the same
run "${S[@]}" --ncu $T/ncu.csv --ncu-id 0 -o "$TMP/c.trace"
cmp -s "$TMP/a.trace" "$TMP/c.trace" || fail "--ncu-id 0"

# 2. The command line wins; each difference is one line on stderr (after the
#    conversion succeeded).
run "${S[@]}" --ncu $T/ncu.csv --grid 4 --regs 20 -o "$TMP/d.trace"
[ "$rc" -eq 0 ] || fail "override: $(cat "$TMP/err")"
grep -qxF 'kernel _Z10trace_testPKfPfPiii grid=(4,1,1) block=(64,1,1) regs=20 smem_static=256 smem_dynamic=0 barriers=1 {' \
    "$TMP/d.trace" || fail "override header: $(grep '^kernel' "$TMP/d.trace")"
grep -qxF "smsim: sass2trace: note: --grid 4,1,1 from the command line, ncu report $T/ncu.csv ID 0 has 2,1,1" \
    "$TMP/err" || fail "no --grid note: $(cat "$TMP/err")"
grep -qxF "smsim: sass2trace: note: --regs 20 from the command line, ncu report $T/ncu.csv ID 0 has 16" \
    "$TMP/err" || fail "no --regs note: $(cat "$TMP/err")"
grep -q 'note: --block\|note: --smem' "$TMP/err" && fail "a note for a value that agrees"

# 3. Several launches: the message lists them; --ncu-id / --ncu-kernel pick one.
expect_err "^smsim: $M: 24 launches: choose one with --ncu-id ID or --ncu-kernel REGEX \(the \"ID\" and \"Kernel Name\" columns\): IDs 0-7 'val_stencil_reuse<32>', IDs 8-15 'val_stencil_reuse<16>', IDs 16-23 'val_stencil_reuse<64>'$" \
    "${S[@]}" --ncu $M
expect_err "^smsim: $M: 8 launches with a Kernel Name matching 'reuse<64>': .*: IDs 16-23 'val_stencil_reuse<64>'$" \
    "${S[@]}" --ncu $M --ncu-kernel 'reuse<64>'
expect_err "^smsim: $M: no launch with ID 99 \(24 launches: IDs 0-7 " "${S[@]}" --ncu $M --ncu-id 99
run sass2trace --sass validate/data/h200/kit3-2026-12-01/build/val_stencil_reuse.sass \
    --kernel '^_Z17val_stencil_reuseILi64E' --ncu $M --ncu-id 17 --trip 0x05c0=256 --trip 0x05b0=4
[ "$rc" -eq 0 ] || fail "--ncu-id 17: $(cat "$TMP/err")"
# ID 17 of that report (its cells): launch__grid_dim_x "1,056", block_dim_x 128,
# registers 31, shared_mem_per_block_static 0, _dynamic "115,712", barrier_count 0
grep -qxF 'kernel _Z17val_stencil_reuseILi64EEvPKfPfff grid=(1056,1,1) block=(128,1,1) regs=31 smem_static=0 smem_dynamic=115712 barriers=0 {' "$TMP/out" ||
    fail "--ncu-id 17 header: $(grep '^kernel' "$TMP/out")"

# 4. Bad input: one line.
expect_err "^$T/ncu-source.csv:1:1: this is ncu's Source page " "${S[@]}" --ncu $T/ncu-source.csv
expect_err "^smsim: sass2trace: --ncu-id needs --ncu REPORT.csv$" "${S[@]}" --ncu-id 0 --grid 2 \
    --block 64 --regs 16 --smem-static 256 --smem-dynamic 0
expect_err "^smsim: sass2trace: missing --grid \(or --ncu REPORT.csv for the launch" "${S[@]}"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace_ncu: all passed"
