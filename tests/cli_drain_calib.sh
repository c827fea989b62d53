#!/bin/bash
# cli_drain_calib.sh — a warp's EXIT drains until its stores have left the SM
# (docs/model.md, "Warp states" 1), checked against the calibration kernel it
# comes from: calib_mufu's mufu_chain<0,1> at 128 threads (one warp per SMSP)
# ends with two STGs and EXIT, and ncu measured 0.00 drain cycles per issue
# (validate/data/h200/kit3-2026-12-01/mufu/mufu-ncu.raw.csv:3: under 0.005,
# i.e. under 25 cycles per warp over its 4,896 issues).  The trace is made
# from the kit's SASS with smsim sass2trace (4,896 warp-instructions per warp,
# ncu's count); smsim must stay under the same bound on configs/h200.yaml (an
# EXIT waiting for L2's acknowledgements gives 0.059).
# Usage (from the repo root): bash tests/cli_drain_calib.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_drain_calib.sh /path/to/smsim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$SMSIM" sass2trace --sass validate/data/h200/kit3-2026-12-01/build/calib_mufu.sass \
    --kernel '^_Z10mufu_chainILi0ELi1EEvPfiPx$' --grid 132 --block 128 --regs 16 \
    --smem-static 0 --smem-dynamic 0 --trip 0x01f0=256 --take 0x00b0=0 --take 0x02a0=0 \
    --expect-insts 2585088 --tolerance 0 -o "$T/mufu.trace" 2>"$T/err" ||
    { echo "FAIL: sass2trace: $(cat "$T/err")"; exit 1; }
SMSIM_NO_CAUTION=1 "$SMSIM" --config configs/h200.yaml "$T/mufu.trace" --format csv >"$T/out.csv" 2>"$T/err" ||
    { echo "FAIL: smsim: $(cat "$T/err")"; exit 1; }
d=$(awk -F'","' '/^#/ { next } { n++ }
      n == 1 { for (i = 1; i <= NF; i++) if ($i ~ /stalled_drain_per_issue_active.ratio$/) c = i }
      n == 3 && c { gsub(/"/, "", $c); print $c }' "$T/out.csv")
[ -n "$d" ] || { echo "FAIL: no drain ratio in the report"; exit 1; }
awk -v d="$d" 'BEGIN { exit !(d < 0.005) }' || { echo "FAIL: drain $d cycles per issue, the H200 measured < 0.005"; exit 1; }
echo "ok: drain $d cycles per issue (H200 < 0.005)"
