#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Twelfth calibration kit (issue #17).  kit11 shows the GPU's reads losing a
# third of their rate beside a store stream at 1-2 blocks/SM; a rule that
# makes DRAM banks serve write-backs in bursts (memory.dram_write_batch)
# fits that but, loaded, holds reads in DRAM (long_scoreboard) where the
# validation kernels throttle in the SM (lg_throttle).  Where do the reads
# wait beside stores once the SM is loaded?  calib_mlps --mix 0 and 2 at
# L = 8, G = 4 and 4-16 blocks/SM, timed and under ncu with the stall split.
# Conventions of run-calib10.sh (helpers in kitlib.sh).
#   $OUT/kit12-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib12.sh --compile-only   # meta + build only
#   bash validate/run-calib12.sh                  # full run on the GPU
# Phases: meta build mix mixncu
#   mix     calib_mlps  --mix 0, 2 x L = 8 x G = 4, all x b = 4, 6, 8, 12, 16: CUDA events
#   mixncu  calib_mlps  --mix 0, 2 at L = 8, G = 4, b = 4, 8, 12, 16 under ncu
# Device time (estimate): build ~20 s, meta ~20 s, mix ~10 s, mixncu ~40 s.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,mix,mixncu}; fi
KIT=kit12
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit12.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,mix} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PROGS="calib_mlps"
log "kit12: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib12.sh validate/kitlib.sh validate/kernels/calib_mlps.cu validate/kernels/common.cuh
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
      echo "## calib_mlps: mlps_read<L> and mlps_mix<L,M> should hold L LDG.E per trip (and L STG.E for M = 2, besides the final one)"
      fcount "$B/calib_mlps.sass" 'LDG=LDG\.E' 'LDG128=LDG\.E\.128' 'STG=STG\.E' | grep mlps
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g' | grep -E 'mlps'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

BASE='sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes.sum.per_second,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct'

if want mix && have calib_mlps; then
  log "=== phase mix ($(remaining)s left)"
  for m in 0 2; do
    run_cmd "$(box 90)" "$W/mix/mix$m-time.txt" "$W/mix/mix$m-time.stderr" "$BIN/calib_mlps" --mix $m --ls 8 --gs 4,0 --res 4,6,8,12,16 --reps 5 --warm 1
    errs "$W/mix/mix$m-time.txt"
  done
  "$PY" "$KV2CSV" MLPS "$W"/mix/mix[02]-time.txt >"$W/mix/mix-time.csv" 2>>"$LOG"
  grep -h '^MLPS' "$W"/mix/mix[02]-time.txt | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mix M=%s L=%s G=%s b=%s GBps=%s check=%s\n", v["mix"], v["L"], v["G"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
fi
if want mixncu && have calib_mlps; then
  log "=== phase mixncu ($(remaining)s left)"
  for m in 0 2; do
    ncu_run "mix$m-ncu" mix 120 "--section LaunchStats" "$(filter_metrics "$BASE,dram__bytes_write.sum"),$STALLS" '^mlps' -- "$BIN/calib_mlps" --ncu --mix $m --ls 8 --gs 4 --res 4,8,12,16
    pack
  done
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
