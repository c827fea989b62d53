#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Tenth calibration kit.  Issue #17: do a warp's DRAM loads wait as
# independent latency draws when they are close together (calib_mlps: the
# distance between a warp's L loads swept from 128 bytes to calib_mlp's
# layout)?  Issue #18: is reduce's non-monotonic no_instruction a property of
# the kernel or run-to-run noise (val_smem reduce at 1..16 blocks/SM, three
# times under ncu)?  Issue #19: what keeps the warps of 64-thread near-empty
# blocks resident for ~1,000 cycles when 32 of them fill an SM (calib_launch
# N = 0, 32/64/96 threads, dynamic shared memory 0..12 KiB so 17..32 blocks
# fit)?  Conventions of run-calib9.sh (helpers in kitlib.sh): every step
# time-boxed and logged with its command, never stops on a failure, nothing
# starts past BUDGET_S (default 420 s); ncu with --clock-control none,
# --cache-control all, --replay-mode kernel.
#   $OUT/kit10-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib10.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib10.sh                  # full run on the GPU
# Phases: meta build mlps mlpsncu reduce launch
#   mlps     calib_mlps   L = 1, 8 x G = 1, 4, 16, 64, 512, all x b = 1, 2, 4, 8: CUDA events
#   mlpsncu  calib_mlps   L = 8, b = 1 and 4, every G under ncu (DRAM bytes, hit rates, stalls)
#   reduce   val_smem     reduce at b = 1,2,3,4,6,8,12,16 under ncu, three repetitions
#   launch   calib_launch N = 0, 20 waves, 32/64/96 threads x dyn 0, 4K, 7K, 8K, 12K under ncu
# Device time (estimate): build ~30 s, meta ~20 s, mlps ~20 s, mlpsncu ~40 s,
# reduce ~90 s, launch ~90 s.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,mlps,mlpsncu,reduce,launch}; fi
KIT=kit10
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit10.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,mlps,reduce,launch} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PROGS="calib_mlps val_smem calib_launch"
log "kit10: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib10.sh validate/kitlib.sh validate/kernels/calib_mlps.cu validate/kernels/val_smem.cu \
    validate/kernels/calib_launch.cu validate/kernels/common.cuh
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
      echo "SKIP SASS checks: no cuobjdump found"
    else
      echo "## calib_mlps: mlps_read<L> should hold L LDG.E (32-bit, one line per warp load) per trip"
      fcount "$B/calib_mlps.sass" 'LDG=LDG\.E' 'LDG128=LDG\.E\.128' 'STG=STG\.E' | grep mlps
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g' | grep -E 'mlps|reduce|launch_w'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

BASE='sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes.sum.per_second,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct'

if want mlps && have calib_mlps; then
  log "=== phase mlps ($(remaining)s left)"
  run_cmd "$(box 120)" "$W/mlps/mlps-time.txt" "$W/mlps/mlps-time.stderr" "$BIN/calib_mlps" --ls 1,8 --gs 1,4,16,64,512,0 --res 1,2,4,8 --reps 5 --warm 1
  errs "$W/mlps/mlps-time.txt"
  "$PY" "$KV2CSV" MLPS "$W/mlps/mlps-time.txt" >"$W/mlps/mlps-time.csv" 2>>"$LOG"
  grep '^MLPS' "$W/mlps/mlps-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mlps L=%s G=%s gap=%s b=%s GBps=%s check=%s\n", v["L"], v["G"], v["gap_bytes"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
fi
if want mlpsncu && have calib_mlps; then
  log "=== phase mlpsncu ($(remaining)s left)"
  ncu_run mlps-ncu mlps 150 "--section LaunchStats" "$(filter_metrics "$BASE"),$STALLS" '^mlps' -- "$BIN/calib_mlps" --ncu --ls 8 --gs 1,4,16,64,512,0 --res 1,4
  "$PY" "$KV2CSV" LAUNCH "$W/mlps/mlps-ncu.stdout" >"$W/mlps/mlps-ncu-launches.csv" 2>>"$LOG"
  pack
fi
if want reduce && have val_smem; then
  log "=== phase reduce ($(remaining)s left)"
  for r in 1 2 3; do
    ncu_run "reduce-ncu-r$r" reduce 120 "--section LaunchStats --section Occupancy" "$(filter_metrics "$BASE"),$STALLS" '^val_' -- "$BIN/val_smem" --ncu --variant reduce --res 1,2,3,4,6,8,12,16
    pack
  done
fi
if want launch && have calib_launch; then
  log "=== phase launch ($(remaining)s left)"
  LM=$(filter_metrics "sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,sm__ctas_launched.sum,smsp__warps_launched.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__cycles_active.avg,smsp__warps_active.avg.per_cycle_active,launch__occupancy_limit_blocks,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic")
  ncu_run launch-ncu launch 150 "--section LaunchStats" "$LM,$STALLS" '^launch_w' -- \
    "$BIN/calib_launch" --ncu --blocks 32,64,96 --dyns 0,4K,7K,8K,12K --works 0 --waves 20
  "$PY" "$KV2CSV" LAUNCH "$W/launch/launch-ncu.stdout" >"$W/launch/launch-ncu-launches.csv" 2>>"$LOG"
  pack
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
