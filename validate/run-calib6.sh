#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sixth H200 calibration kit (issues #17 item 3 / #18 item 6: what limits the
# loads an SM keeps in flight -- warp instructions, lines or bytes -- and so
# where lg_throttle starts).  Conventions of run-calib5.sh (helpers in
# kitlib.sh): every step time-boxed and logged with its command, never stops
# on a failure, nothing starts past BUDGET_S (default 420 s); ncu with
# --clock-control none, --cache-control all, --replay-mode kernel.  Results
# are re-packed into $OUT after every phase:
#   $OUT/kit6-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib6.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib6.sh                  # full run on the H200
# Phases: meta build mlpw
#   mlpw  calib_mlpw  L = 1..16 independent loads of WID = 4, 8, 16 bytes per thread in flight,
#                     b = 1..16 blocks of 128 threads per SM, one wave over 1 GiB; ncu (stall
#                     split, DRAM bytes, cycles) and CUDA-event timing (GB/s)
# Launches and device time (estimate): 3 widths x 5 L x 7 b = 105 points, ~95 launchable
#   (WID 16 L 8/16 and WID 8 L 16 need > 32 registers: fewer blocks fit, SKIP lines).
#   ncu: ~95 launches x ~4 passes x ~0.3 ms of kernel + ~0.4 s of ncu per launch: ~60-90 s.
#   Timing: 95 x 6 launches x ~0.3-3 ms: < 5 s.  build ~40 s, meta ~20 s.  Total ~3 min.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,mlpw}; fi
KIT=kit6
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit6.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,mlpw} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
PROGS="calib_mlpw"
log "kit6: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none} python3=$PY"

if want meta; then
  kit_meta validate/run-calib6.sh validate/kitlib.sh validate/kernels/calib_mlpw.cu validate/kernels/common.cuh
  { echo "# ncu --query-metrics, names this kit relies on:"
    grep -E 'lg_throttle|long_scoreboard|dram__bytes_read|l1tex__t_requests_pipe_lsu_mem_global_op_ld' "$W/meta/ncu-query-metrics.txt" 2>/dev/null | head -n 40; } >"$W/meta/ncu-metric-check.txt"
  pack
fi
if want build; then
  log "=== phase build"
  # shellcheck disable=SC2086  # PROGS is a word list
  kit_build $PROGS
  B=$W/build
  {
    echo "# SASS checks (cuobjdump -sass)"
    if [ -z "$CUOBJDUMP" ]; then
      echo "SKIP SASS checks: no cuobjdump found (the programs are built; ptxas registers below)"
    else
      echo "## calib_mlpw: mlpw_read<WID,L>: loads per function (expected L of LDG.E for WID 4, LDG.E.64 for 8, LDG.E.128 for 16)"
      fcount "$B/calib_mlpw.sass" 'LDG32=LDG\.E(\.CONSTANT)?[[:space:]]' 'LDG64=LDG\.E\.64' 'LDG128=LDG\.E\.128' 'LDGany=LDG' 'STG=STG' | grep mlpw_read
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

MM="sm__cycles_elapsed.avg,sm__cycles_active.avg,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__occupancy_limit_shared_mem,launch__registers_per_thread"

if want mlpw && have calib_mlpw; then
  log "=== phase mlpw ($(remaining)s left)"
  ncu_run mlpw-ncu mlpw 240 "--section LaunchStats --section Occupancy" "$(filter_metrics "$MM"),$STALLS" '^mlpw_read' -- "$BIN/calib_mlpw" --ncu
  pack
  run_cmd "$(box 120)" "$W/mlpw/mlpw-time.txt" "$W/mlpw/mlpw-time.stderr" "$BIN/calib_mlpw" --reps 5 --warm 1
  errs "$W/mlpw/mlpw-time.txt"
  "$PY" "$KV2CSV" MLPW "$W/mlpw/mlpw-time.txt" >"$W/mlpw/mlpw-time.csv" 2>>"$LOG"
  "$PY" "$KV2CSV" LAUNCH "$W/mlpw/mlpw-ncu.stdout" >"$W/mlpw/mlpw-ncu-launches.csv" 2>>"$LOG"
  sumline "mlpw: $(grep -c '^MLPW' "$W/mlpw/mlpw-time.txt") timed points, $(grep -c '^SKIP' "$W/mlpw/mlpw-time.txt") skipped, checks: $(grep -h -o 'check=[A-Za-z]*' "$W"/mlpw/*.txt "$W"/mlpw/*.stdout 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
  # quick read: GB/s per (WID, L, b), and the ncu stall split
  grep '^MLPW' "$W/mlpw/mlpw-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mlpw WID=%s L=%s b=%s insts=%s lines=%s GBps=%s\n", v["WID"], v["L"], v["b"], v["insts_in_flight_per_sm"], v["lines_in_flight_per_sm"], v["GBps_med"]}' >>"$SUM"
  pack
fi
sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
