#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Thirteenth calibration kit (issues #17, #19).  kit11 (an H100) and kit12
# show the GPU's DRAM reads losing a third to a half of their rate beside a
# store stream, at every residency; smsim's read/write turnaround (fitted on
# kit4's mixes) loses less, and a rule that serves write-backs in bursts
# (memory.dram_write_batch) fits kit11 but not the validation kernels.  How
# long does one read wait beside writes, and in what distribution (a steady
# slowdown, or a tail of reads caught behind write bursts)?
#   loaded  calib_loaded --op load, store, copy --hist 1: a DRAM pointer chase
#           on every SM (1 or 32 lanes) while 31 warps per SM load, store or
#           copy float4 at 7 intensities; each timed load's latency kept
#           (HIST lines: quantiles and a 50-cycle histogram)
#   mix     calib_mlps --mix 0, 1, 2 at L = 4, 8 x G = 1, 4, all x b = 1, 2:
#           kit11's store-stream ratios on the H200 (CUDA events)
#   launch  calib_launch N = 0, 20 waves, 32/64/96 threads x dynamic shared
#           memory 0..12 KiB under ncu: kit10's block-slot sweep (#19) on the
#           H200
# Conventions of run-calib10.sh (helpers in kitlib.sh).
#   $OUT/kit13-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib13.sh --compile-only   # meta + build only
#   bash validate/run-calib13.sh                  # full run on the GPU
# Device time (estimate): build ~25 s, meta ~20 s, loaded ~60 s, mix ~10 s,
# launch ~90 s.
set -u
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
kit_init kit13 meta,build,loaded,mix,launch loaded mix launch -- "$@"
PROGS="calib_loaded calib_mlps calib_launch"
log "kit13: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib13.sh validate/kitlib.sh validate/kernels/calib_loaded.cu validate/kernels/calib_mlps.cu \
    validate/kernels/calib_launch.cu validate/kernels/common.cuh
  pack
fi
sass_checks() {
  local B=$1
  echo "## calib_loaded: loaded<OP,HIST>: the chase's LDG.E.64.STRONG.GPU; HIST = 1 adds a CS2R (clock) per load;"
  echo "## OP = 1 has STG.E.128 and no LDG.E.128, OP = 2 both"
  fcount "$B/calib_loaded.sass" 'LDGCG=LDG\.E\.64\.STRONG\.GPU' 'LDG128=LDG\.E\.128' 'STG128=STG\.E\.128' 'CS2R=CS2R' | grep loaded
  echo "## the HIST = 1 chase loop (lane 0's stamp must follow an instruction that reads the loaded value)"
  awk '/Function : _Z6loadedILi0ELi1E/{f=1} f&&/LDG.E.64.STRONG.GPU/{n++} f&&n>=2&&c<24{print; c++} /Function : _Z6loadedILi0ELi0E/{f=0}' "$B/calib_loaded.sass" |
    grep -E '^ +/\*[0-9a-f]+\*/' | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@'
  echo "## calib_mlps: mlps_mix<L,M> should hold L LDG.E per trip (and L STG.E for M = 2, besides the final one)"
  fcount "$B/calib_mlps.sass" 'LDG=LDG\.E' 'STG=STG\.E' | grep mlps
}
# shellcheck disable=SC2086  # PROGS is a word list
want build && kit_build_phase sass_checks 'loaded|mlps|launch_w' $PROGS
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

if want loaded && have calib_loaded; then
  log "=== phase loaded ($(remaining)s left)"
  for op in load store copy; do
    run_cmd "$(box 120)" "$W/loaded/loaded-$op.txt" "$W/loaded/loaded-$op.stderr" "$BIN/calib_loaded" --op $op --hist 1 \
      --delays=-1,16000,8000,4000,2000,1000,0 --lanes 1,32 --reps 3
    errs "$W/loaded/loaded-$op.txt"
  done
  "$PY" "$KV2CSV" LOADED "$W"/loaded/loaded-*.txt >"$W/loaded/loaded.csv" 2>>"$LOG"
  "$PY" "$KV2CSV" HIST "$W"/loaded/loaded-*.txt >"$W/loaded/hist.csv" 2>>"$LOG"
  grep -h '^HIST' "$W"/loaded/loaded-*.txt | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "hist op=%s lanes=%s delay=%s mean=%s p50=%s p90=%s p99=%s max=%s\n", v["op"], v["lanes"], v["delay_cyc"], v["mean"], v["p50"], v["p90"], v["p99"], v["max"]}' >>"$SUM"
  grep -h '^LOADED' "$W"/loaded/loaded-*.txt | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "loaded op=%s lanes=%s delay=%s GBps=%s cyc_per_load=%s check=%s\n", v["op"], v["lanes"], v["delay_cyc"], v["stream_GBps_med"], v["cyc_per_load_med_over_sms"], v["check"]}' >>"$SUM"
  pack
fi
if want mix && have calib_mlps; then
  log "=== phase mix ($(remaining)s left)"
  for m in 0 1 2; do
    run_cmd "$(box 90)" "$W/mix/mix$m-time.txt" "$W/mix/mix$m-time.stderr" "$BIN/calib_mlps" --mix $m --ls 4,8 --gs 1,4,0 --res 1,2 --reps 5 --warm 1
    errs "$W/mix/mix$m-time.txt"
  done
  "$PY" "$KV2CSV" MLPS "$W"/mix/mix[012]-time.txt >"$W/mix/mix-time.csv" 2>>"$LOG"
  grep -h '^MLPS' "$W"/mix/mix[012]-time.txt | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mix M=%s L=%s G=%s b=%s GBps=%s check=%s\n", v["mix"], v["L"], v["G"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
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
