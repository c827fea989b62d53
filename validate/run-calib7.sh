#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Seventh H200 calibration kit (issue #17: scattered DRAM/L2 accesses, the L1
# hit path for two-line warp loads, the two L2 partitions; issue #19: is the
# block launch rate a GPU-wide or a per-SM limit).  Conventions of
# run-calib6.sh (helpers in kitlib.sh): every step time-boxed and logged with
# its command, never stops on a failure, nothing starts past BUDGET_S
# (default 420 s); ncu with --clock-control none, --cache-control all,
# --replay-mode kernel.  Results are re-packed into $OUT after every phase:
#   $OUT/kit7-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib7.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib7.sh                  # full run on the H200
# Phases: meta build gather misl1 l2part launch3
#   gather   calib_gather    S = 1, 2, 4 sectors of a scattered line per warp load, and the
#                            divergent gather (32 lines, one sector each); foot dram (1 GiB)
#                            and l2 (16 MiB); b = 1..16 blocks of 128 threads per SM;
#                            ncu (DRAM bytes, L2 lookups, stall split) and CUDA events
#   misl1    calib_misalign  --foots l1: one-line and two-line warp loads on a 16 KiB
#                            window every SM shares (L1 hits); ncu and CUDA events
#   l2part   calib_l2part    per-load latency of an L2 pointer chase on every SM after one
#                            SM (or none, or all) warmed the lines: near/far partitions
#   launch3  calib_launch3   near-empty probe blocks while K SMs are held by spinning
#                            blocks: blocks per microsecond against free SMs
# Device time (estimate): build ~40 s, meta ~20 s, gather ncu 40 launches ~60 s, timing
#   ~10 s, misl1 ~20 s, l2part ~10 s, launch3 ~30 s.  Total ~4 min.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,gather,misl1,l2part,launch3}; fi
KIT=kit7
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit7.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,gather,misl1,l2part,launch3} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
PROGS="calib_gather calib_misalign calib_l2part calib_launch3"
log "kit7: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none} python3=$PY"

if want meta; then
  kit_meta validate/run-calib7.sh validate/kitlib.sh validate/kernels/calib_gather.cu validate/kernels/calib_misalign.cu \
    validate/kernels/calib_l2part.cu validate/kernels/calib_launch3.cu validate/kernels/common.cuh
  { echo "# ncu --query-metrics, names this kit relies on:"
    grep -E 'lg_throttle|long_scoreboard|dram__sectors_read|dram__bytes_read|lts__t_sectors_op_read|l1tex__data_pipe_lsu_wavefronts_mem_lg' "$W/meta/ncu-query-metrics.txt" 2>/dev/null | head -n 60; } >"$W/meta/ncu-metric-check.txt"
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
      echo "## calib_gather: gather<S>: 4 LDG.E per function expected"
      fcount "$B/calib_gather.sass" 'LDG=LDG' 'LDG32=LDG\.E(\.CONSTANT)?[[:space:]]' 'STG=STG' 'BRA=BRA' | grep gather
      echo "## calib_misalign: mis_read: 8 LDG.E.CONSTANT expected"
      fcount "$B/calib_misalign.sass" 'LDG=LDG' 'STG=STG' | grep mis_read
      echo "## calib_l2part: loads and clock reads per function"
      fcount "$B/calib_l2part.sass" 'LDG=LDG' 'CLOCK=SR_CLOCK' 'SMID=SR_SMID'
      echo "## calib_launch3: instructions per function"
      fcount "$B/calib_launch3.sass" 'ANY=[A-Z]' 'STG=STG' 'SMID=SR_SMID'
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

MM="sm__cycles_elapsed.avg,sm__cycles_active.avg,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__sectors_read.sum,dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__data_bank_reads.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__registers_per_thread"

if want gather && have calib_gather; then
  log "=== phase gather ($(remaining)s left)"
  ncu_run gather-ncu gather 150 "--section LaunchStats --section Occupancy" "$(filter_metrics "$MM"),$STALLS" '^gather' -- "$BIN/calib_gather" --ncu
  pack
  run_cmd "$(box 90)" "$W/gather/gather-time.txt" "$W/gather/gather-time.stderr" "$BIN/calib_gather" --reps 5 --warm 1
  errs "$W/gather/gather-time.txt"
  "$PY" "$KV2CSV" GATHER "$W/gather/gather-time.txt" >"$W/gather/gather-time.csv" 2>>"$LOG"
  sumline "gather: $(grep -c '^GATHER' "$W/gather/gather-time.txt") timed points, $(grep -c '^SKIP' "$W/gather/gather-time.txt") skipped"
  grep '^GATHER' "$W/gather/gather-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "gather foot=%s S=%s b=%s GBps=%s check=%s\n", v["foot"], v["S"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
fi
if want misl1 && have calib_misalign; then
  log "=== phase misl1 ($(remaining)s left)"
  ncu_run misl1-ncu misl1 90 "--section LaunchStats --section Occupancy" "$(filter_metrics "$MM"),$STALLS" '^mis_read' -- "$BIN/calib_misalign" --ncu --foots l1
  pack
  run_cmd "$(box 60)" "$W/misl1/misl1-time.txt" "$W/misl1/misl1-time.stderr" "$BIN/calib_misalign" --foots l1 --reps 5 --warm 1
  errs "$W/misl1/misl1-time.txt"
  grep '^MIS' "$W/misl1/misl1-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "misl1 off=%s b=%s GBps=%s check=%s\n", v["off"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
fi
if want l2part && have calib_l2part; then
  log "=== phase l2part ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/l2part/l2part.txt" "$W/l2part/l2part.stderr" "$BIN/calib_l2part" --csv "$W/l2part/l2part-lat.csv"
  errs "$W/l2part/l2part.txt"
  xz -9 "$W/l2part/l2part-lat.csv" 2>>"$LOG"
  grep -E '^(L2PSUM|L2PMAP|INFO)' "$W/l2part/l2part.txt" | cut -c1-400 >>"$SUM"
  pack
fi
if want launch3 && have calib_launch3; then
  log "=== phase launch3 ($(remaining)s left)"
  run_cmd "$(box 120)" "$W/launch3/launch3.txt" "$W/launch3/launch3.stderr" "$BIN/calib_launch3" --csv "$W/launch3/launch3-blocks.csv"
  errs "$W/launch3/launch3.txt"
  xz -9 "$W/launch3/launch3-blocks.csv" 2>>"$LOG"
  grep -E '^L3 ' "$W/launch3/launch3.txt" | cut -c1-300 >>"$SUM"
  pack
fi
sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
