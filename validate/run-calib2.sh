#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Second H200 calibration kit (issues #19 and #17): block launch rate, the
# seeds' 32x12K validation launch, memory-level parallelism, loaded latency,
# L1/L2 capacity, write policy.  Companion of run-device.sh (which it does not
# change or call); same conventions: every step time-boxed and logged with its
# exact command, never stops on a failure, no step starts past BUDGET_S.
# Results are re-packed into $OUT after every phase, so a run cut short still
# returns what it measured:
#   $OUT/kit2-data.tar.gz   kit2/ (meta, build/*.sass, raw ncu CSVs, timing CSVs)
#   $OUT/log.txt  $OUT/summary.txt
# Run from the repository root on the GPU machine:
#   bash validate/run-calib2.sh                 # full run (~5-6 min)
#   QUICK=1 BUDGET_S=200 bash validate/run-calib2.sh   # smoke: few points
#   PHASES=meta,build,launch bash validate/run-calib2.sh
# Phases (priority order): meta build launch seed mlp loaded cache write
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
QUICK=${QUICK:-0}
BUDGET=${BUDGET_S:-540}
PHASES=${PHASES:-meta,build,launch,seed,mlp,loaded,cache,write}
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit2.XXXXXX)
W=$TMPROOT/kit2
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,launch,seed,mlp,loaded,cache,write} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"

elapsed() { echo $(($(date +%s) - T0)); }
remaining() { echo $((BUDGET - $(elapsed))); }
log() { printf '[%4ss] %s\n' "$(elapsed)" "$*" | tee -a "$LOG"; }
want() { case ",$PHASES," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
box() { local r=$(($(remaining) - 15)); [ "$r" -lt "$1" ] && echo "$r" || echo "$1"; }
sumline() { echo "$*" | tee -a "$SUM" >>"$LOG"; }

# run_cmd TIMEOUT STDOUT STDERR cmd...
run_cmd() {
  local t=$1 so=$2 se=$3; shift 3
  printf '%s\n' "$*" >>"$CMDS"
  log "CMD (timeout ${t}s): $*"
  if [ "$t" -lt 5 ]; then log "  SKIP: only ${t}s left"; echo "SKIP out of time" >"$so"; return 125; fi
  local s rc; s=$(date +%s)
  timeout -k 10 "$t" "$@" >"$so" 2>"$se"; rc=$?
  log "  rc=$rc in $(($(date +%s) - s))s"
  return $rc
}

pack() { # re-pack everything measured so far into $OUT (atomic rename)
  cp "$LOG" "$OUTDIR/log.txt" 2>/dev/null
  cp "$SUM" "$OUTDIR/summary.txt" 2>/dev/null
  tar -C "$TMPROOT" -czf "$TMPROOT/kit2-data.tar.gz" --exclude='*.ncu-rep' kit2 2>>"$LOG" &&
    cp "$TMPROOT/kit2-data.tar.gz" "$OUTDIR/.kit2-data.tmp" && mv "$OUTDIR/.kit2-data.tmp" "$OUTDIR/kit2-data.tar.gz"
}

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
NCU_COMMON=(--clock-control none --target-processes all)
log "kit2: repo=$REPO out=$OUTDIR quick=$QUICK budget=${BUDGET}s phases=$PHASES"
log "tools: nvcc=$NVCC ncu=$NCU cuobjdump=$CUOBJDUMP python3=$PY"

# ------------------------------------------------------------------ meta
if want meta; then
  M=$W/meta
  {
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"; echo "uname: $(uname -a)"
    echo "script: validate/run-calib2.sh sha256=$(sha256sum "$0" | cut -d' ' -f1)"
    echo "kernels_sha256:"; (cd "$KDIR" && sha256sum *.cu *.cuh | sed 's/^/  /')
    echo "env: QUICK=$QUICK BUDGET_S=$BUDGET PHASES=$PHASES"
  } >"$M/metadata.txt"
  timeout 30 nvidia-smi -q >"$M/nvidia-smi-q.txt" 2>&1
  timeout 30 nvidia-smi --query-gpu=name,driver_version,vbios_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv >"$M/nvidia-smi-query.csv" 2>&1
  "$NVCC" --version >"$M/nvcc-version.txt" 2>&1
  timeout 60 "$NCU" --version >"$M/ncu-version.txt" 2>&1
  "$CUOBJDUMP" --version >"$M/cuobjdump-version.txt" 2>&1
  cat /proc/driver/nvidia/version >"$M/driver-version.txt" 2>&1
  timeout 60 "$NCU" --query-metrics >"$M/ncu-query-metrics.txt" 2>&1
  echo "name,elapsed_s,clocks.sm,clocks.mem,temp,power,pstate" >"$M/clocks.csv"
  { echo "# ncu --query-metrics, names this kit relies on or might use:"
    grep -E 'ctas_launched|warps_launched|lg_throttle|long_scoreboard|sector_hit_rate|shared_mem_config|sectors_op_write|op_read_hit|op_write_hit|waves_per|occupancy_limit' "$M/ncu-query-metrics.txt" | head -n 60; } >"$M/ncu-metric-check.txt"
  for f in nvidia-smi-query.csv driver-version.txt nvcc-version.txt ncu-version.txt; do echo "--- $f"; cat "$M/$f"; done >>"$M/metadata.txt"
  sumline "kit2 $(date -u +%Y-%m-%dT%H:%M:%SZ) driver=$(grep -m1 'Driver Version' "$M/nvidia-smi-q.txt" | sed 's/.*: *//') ncu=\"$(grep -m1 -i version "$M/ncu-version.txt")\" nvcc=\"$(grep -m1 release "$M/nvcc-version.txt")\""
fi
clocks() { printf '%s,%s,' "$1" "$(elapsed)" >>"$W/meta/clocks.csv"; timeout 10 nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate --format=csv,noheader >>"$W/meta/clocks.csv" 2>&1; }

# Keep only metrics this ncu knows (base name before the first '.'; launch__*
# and regex: entries are kept); dropped ones are logged.
filter_metrics() {
  local q=$W/meta/ncu-query-metrics.txt out="" m base
  IFS=',' read -r -a arr <<<"$1"
  for m in "${arr[@]}"; do
    base=${m%%.*}
    if [[ $m == regex:* || $m == launch__* ]] || [ ! -s "$q" ] || grep -qE "^[[:space:]]*$base([[:space:]]|$)" "$q"; then
      out="$out${out:+,}$m"
    else
      log "  metric not known to this ncu, dropped: $m"
    fi
  done
  echo "$out"
}

# ncu_run NAME DIR TIMEOUT "OPTS" -- prog args: one report, raw CSV export.
ncu_run() {
  local name=$1 dir=$2 t=$3; shift 3
  local -a opts; read -r -a opts <<<"$1"; shift 2
  local rep=$W/$dir/$name
  t=$(box "$t")
  run_cmd "$t" "$rep.stdout" "$rep.stderr" "$NCU" "${NCU_COMMON[@]}" "${opts[@]}" -f -o "$rep" "$@"
  local rc=$?
  if [ -s "$rep.ncu-rep" ]; then
    run_cmd 90 "$rep.raw.csv" "$rep.import.stderr" "$NCU" -i "$rep.ncu-rep" --csv --page raw --print-units base
    local want got
    want=$(grep -c '^LAUNCH' "$rep.stdout"); got=$(($(grep -c '^"' "$rep.raw.csv") - 2))
    sumline "ncu $name: rc=$rc results=$got/$want $(grep -c '==ERROR==' "$rep.stdout" "$rep.stderr" | tr '\n' ' ')"
  else
    sumline "ncu $name: NO REPORT rc=$rc; $(grep -h '==ERROR==' "$rep.stdout" "$rep.stderr" | head -n 3 | tr '\n' ' ')"
  fi
}

PROGS="calib_launch val_seed32x12k calib_mlp calib_loaded calib_cachecap calib_write calib_chase"
# ------------------------------------------------------------------ build
if want build; then
  pids=()
  for p in $PROGS; do
    cmd=("$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v -o "$BIN/$p" "$KDIR/$p.cu")
    printf '%s\n' "${cmd[*]}" >>"$CMDS"
    (timeout 240 "${cmd[@]}" >"$W/build/$p.ptxas.txt" 2>&1; echo $? >"$W/build/$p.rc") &
    pids+=($!)
  done
  wait "${pids[@]}"
  for p in $PROGS; do
    if [ -x "$BIN/$p" ]; then
      "$CUOBJDUMP" -sass "$BIN/$p" >"$W/build/$p.sass" 2>&1
      "$CUOBJDUMP" -res-usage "$BIN/$p" >"$W/build/$p.res-usage.txt" 2>&1
    else
      sumline "BUILD FAILED: $p"; tail -n 20 "$W/build/$p.ptxas.txt" | tee -a "$LOG"
    fi
  done
  echo "cuobjdump -sass <binary> > build/<prog>.sass; cuobjdump -res-usage <binary>" >>"$CMDS"
  # SASS checks the data depends on (counts of the instructions that matter)
  {
    echo "# SASS checks (grep counts in build/*.sass)"
    for k in 'launch_wILi0E' 'launch_wILi8E' 'launch_wILi300E'; do
      awk -v k="$k" '/Function :/ {on = index($0, k) > 0} on && /IMAD|EXIT/ {n[$2 ~ /IMAD/ ? "IMAD" : "EXIT"]++} END {printf "calib_launch %s: IMAD=%d EXIT=%d\n", k, n["IMAD"], n["EXIT"]}' "$W/build/calib_launch.sass"
    done
    for k in 1 2 4 8; do
      awk -v k="mlp_readILi${k}E" '/Function :/ {on = index($0, k) > 0} on && /LDG/ {n++; w = w " " $2} END {printf "calib_mlp %s: LDG=%d (%s)\n", k, n, w}' "$W/build/calib_mlp.sass"
    done
    awk '/Function :/ {on = index($0, "val_seed32x12k") > 0} on && /^ +\/\*[0-9a-f]+\*\// {n++} END {printf "val_seed32x12k: %d SASS lines (incl. trailing BRA/NOP)\n", n}' "$W/build/val_seed32x12k.sass"
    grep -c 'LDG.E.64.STRONG.GPU' "$W/build/calib_loaded.sass" | sed 's/^/calib_loaded LDG.E.64.STRONG.GPU count: /'
    grep -o 'LDG[A-Z0-9._]*\|STG[A-Z0-9._]*' "$W/build/calib_write.sass" | sort | uniq -c | sed 's/^/calib_write /'
    grep -o 'LDG[A-Z0-9._]*' "$W/build/calib_cachecap.sass" | sort | uniq -c | sed 's/^/calib_cachecap /'
    grep -h 'spill' "$W"/build/*.ptxas.txt | sort | uniq -c
  } >"$W/build/sass-checks.txt" 2>&1
  cat "$W/build/sass-checks.txt" >>"$SUM"
  clocks after-build
  pack
fi
have() { [ -x "$BIN/$1" ]; }

if [ "$QUICK" = 1 ]; then
  L_BLOCKS=32,256,1024; L_DYNS=0,16K; L_WORKS=0,300; L_WAVESLIST=1,20
  M_RES=1,4,16; M_LS=1,8
  LD_DELAYS=-1,16000,0; LD_LANES=1,32
  C_L1=16K,64K,256K; C_L2=4M,64M; C_CO=-1,100
  CH_L1=16K,64K,256K; CH_L2=4M,32M,96M
else
  L_BLOCKS=32,64,128,256,512,1024; L_DYNS=0,16K; L_WORKS=0,8,300; L_WAVESLIST=1,5,20,40
  M_RES=1,2,3,4,6,8,12,16; M_LS=1,2,4,8
  LD_DELAYS=-1,64000,32000,16000,12000,8000,6000,4000,3000,2000,1000,500,0; LD_LANES=1,32
  C_L1=8K,16K,24K,32K,48K,64K,96K,128K,160K,192K,208K,224K,240K,256K,320K; C_L2=1M,2M,4M,8M,16M,24M,32M,40M,48M,56M,64M,80M,96M,128M,160M; C_CO=-1,0,100
  CH_L1=8K,16K,24K,32K,48K,64K,96K,128K,160K,192K,208K,224K,240K,256K,320K,512K
  CH_L2=1M,2M,4M,8M,12M,16M,20M,24M,28M,32M,40M,48M,56M,64M,80M,96M,128M
fi

STALLS='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
SECTIONS="--section Occupancy --section LaunchStats --section SpeedOfLight --section WarpStateStats --section SchedulerStats"

# ------------------------------------------------------------------ A: launch rate
if want launch && have calib_launch; then
  log "=== phase launch ($(remaining)s left)"
  LM=$(filter_metrics "sm__cycles_elapsed.avg,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,sm__ctas_launched.sum,sm__ctas_launched.max,sm__ctas_launched.min,smsp__warps_launched.sum,gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__cycles_active.avg,smsp__issue_active.avg.per_cycle_active,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__waves_per_multiprocessor,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__occupancy_per_block_size")
  ncu_run launch-ncu launch 200 "$SECTIONS --cache-control all --replay-mode kernel --metrics $LM,$STALLS -k regex:^launch_w" -- \
    "$BIN/calib_launch" --ncu --blocks $L_BLOCKS --dyns $L_DYNS --works $L_WORKS --waves 20
  pack
  # the same launches once more (run-to-run spread), when time allows
  if [ "$(remaining)" -gt 300 ]; then
    ncu_run launch-ncu-rep2 launch 200 "$SECTIONS --cache-control all --replay-mode kernel --metrics $LM,$STALLS -k regex:^launch_w" -- \
      "$BIN/calib_launch" --ncu --blocks $L_BLOCKS --dyns $L_DYNS --works $L_WORKS --waves 20
  fi
  run_cmd "$(box 90)" "$W/launch/launch-time.txt" "$W/launch/launch-time.stderr" "$BIN/calib_launch" \
    --blocks $L_BLOCKS --dyns $L_DYNS --works $L_WORKS --waves-list $L_WAVESLIST --reps 9 --warm 3
  run_cmd "$(box 60)" "$W/launch/launch-stamp.txt" "$W/launch/launch-stamp.stderr" "$BIN/calib_launch" --stamp \
    --blocks $L_BLOCKS --waves 20 --stamp-csv "$W/launch/launch-stamps-raw.csv" --stamp-raw-waves 2
  "$PY" "$KV2CSV" TIME "$W/launch/launch-time.txt" >"$W/launch/launch-time.csv" 2>>"$LOG"
  "$PY" "$KV2CSV" STAMP "$W/launch/launch-stamp.txt" >"$W/launch/launch-stamp-summary.csv" 2>>"$LOG"
  "$PY" "$KV2CSV" LAUNCH "$W/launch/launch-ncu.stdout" >"$W/launch/launch-ncu-launches.csv" 2>>"$LOG"
  sumline "launch-time: $(grep -c '^TIME' "$W/launch/launch-time.txt") TIME lines; stamp: $(grep -c '^STAMP' "$W/launch/launch-stamp.txt") STAMP lines; $(grep -h 'check=' "$W"/launch/*.txt "$W"/launch/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
  grep '^STAMP' "$W/launch/launch-stamp.txt" | cut -c1-220 >>"$SUM"
  clocks after-launch
  pack
fi

# ------------------------------------------------------------------ A: seeds' example (validation)
if want seed && have val_seed32x12k; then
  log "=== phase seed ($(remaining)s left)"
  SM=$(filter_metrics "sm__cycles_elapsed.avg,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,sm__ctas_launched.sum,sm__ctas_launched.max,sm__ctas_launched.min,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__cycles_active.avg,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__waves_per_multiprocessor,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__thread_inst_executed_per_inst_executed.ratio")
  ncu_run seed32x12k-ncu seed 90 "$SECTIONS --cache-control all --replay-mode kernel --metrics $SM,$STALLS -k regex:^val_seed" -- \
    "$BIN/val_seed32x12k" --ncu
  run_cmd "$(box 30)" "$W/seed/seed32x12k-time.txt" "$W/seed/seed32x12k-time.stderr" "$BIN/val_seed32x12k" --reps 11 --warm 3
  sumline "seed: $(grep -h '^VALID' "$W"/seed/*.stdout "$W"/seed/*.txt 2>/dev/null | cut -c1-240)"
  pack
fi

# ------------------------------------------------------------------ B2: memory-level parallelism
if want mlp && have calib_mlp; then
  log "=== phase mlp ($(remaining)s left)"
  MM=$(filter_metrics "sm__cycles_elapsed.avg,sm__cycles_active.avg,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_read.sum.per_second,dram__bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__occupancy_limit_shared_mem")
  ncu_run mlp-ncu mlp 200 "$SECTIONS --cache-control all --replay-mode kernel --metrics $MM,$STALLS -k regex:^mlp_read" -- \
    "$BIN/calib_mlp" --ncu --res $M_RES --ls $M_LS
  pack
  run_cmd "$(box 90)" "$W/mlp/mlp-time.txt" "$W/mlp/mlp-time.stderr" "$BIN/calib_mlp" --res $M_RES --ls $M_LS --reps 5 --warm 1
  "$PY" "$KV2CSV" MLP "$W/mlp/mlp-time.txt" >"$W/mlp/mlp-time.csv" 2>>"$LOG"
  "$PY" "$KV2CSV" LAUNCH "$W/mlp/mlp-ncu.stdout" >"$W/mlp/mlp-ncu-launches.csv" 2>>"$LOG"
  sumline "mlp: $(grep -c '^MLP' "$W/mlp/mlp-time.txt") timed points, $(grep -c 'check=FAIL' "$W"/mlp/*.txt "$W"/mlp/*.stdout | awk -F: '{s+=$2} END {print s}') failed checks"
  clocks after-mlp
  pack
fi

# ------------------------------------------------------------------ B1: loaded latency
if want loaded && have calib_loaded; then
  log "=== phase loaded ($(remaining)s left)"
  run_cmd "$(box 120)" "$W/loaded/loaded.txt" "$W/loaded/loaded.stderr" "$BIN/calib_loaded" --delays=$LD_DELAYS --lanes $LD_LANES --reps 3
  "$PY" "$KV2CSV" LOADED "$W/loaded/loaded.txt" >"$W/loaded/loaded.csv" 2>>"$LOG"
  grep '^LOADED' "$W/loaded/loaded.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "loaded lanes=%s delay=%s GBps=%s cyc_per_load=%s check=%s\n", v["lanes"], v["delay_cyc"], v["stream_GBps_med"], v["cyc_per_load_med_over_sms"], v["check"]}' >>"$SUM"
  clocks after-loaded
  pack
fi

# ------------------------------------------------------------------ B3: L1/L2 capacity
if want cache; then
  log "=== phase cache ($(remaining)s left)"
  if have calib_chase; then
    run_cmd "$(box 60)" "$W/cache/chase-l1.txt" "$W/cache/chase-l1.stderr" "$BIN/calib_chase" --footprints $CH_L1 --modes ca --lanes 1
    run_cmd "$(box 120)" "$W/cache/chase-l2.txt" "$W/cache/chase-l2.stderr" "$BIN/calib_chase" --footprints $CH_L2 --modes cg --lanes 1 --warm-max 2M
    "$PY" "$KV2CSV" CALIB "$W/cache/chase-l1.txt" "$W/cache/chase-l2.txt" >"$W/cache/chase.csv" 2>>"$LOG"
    pack
  fi
  if have calib_cachecap; then
    CM=$(filter_metrics "l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__bytes_read.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,launch__shared_mem_config_size,launch__occupancy_limit_shared_mem")
    ncu_run cachecap-ncu cache 150 "--section LaunchStats --cache-control all --replay-mode kernel --metrics $CM -k regex:^cap_l" -- \
      "$BIN/calib_cachecap" --ncu --l1-footprints $C_L1 --l2-footprints $C_L2 --carveouts=$C_CO
    run_cmd "$(box 60)" "$W/cache/cachecap-time.txt" "$W/cache/cachecap-time.stderr" "$BIN/calib_cachecap" --l1-footprints $C_L1 --l2-footprints $C_L2 --carveouts=$C_CO
    "$PY" "$KV2CSV" CAP "$W/cache/cachecap-time.txt" >"$W/cache/cachecap-time.csv" 2>>"$LOG"
    "$PY" "$KV2CSV" LAUNCH "$W/cache/cachecap-ncu.stdout" >"$W/cache/cachecap-ncu-launches.csv" 2>>"$LOG"
  fi
  grep -h '^CALIB' "$W"/cache/chase-*.txt 2>/dev/null | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "chase %s fp=%s cyc/load=%s check=%s\n", v["mode"], v["footprint"], v["cyc_per_load"], v["check"]}' >>"$SUM"
  clocks after-cache
  pack
fi

# ------------------------------------------------------------------ B4: write policy
if want write && have calib_write; then
  log "=== phase write ($(remaining)s left)"
  WM=$(filter_metrics "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg")
  ncu_run write-ncu write 150 "--cache-control none --replay-mode application --metrics $WM -k regex:^wp_" -- "$BIN/calib_write"
  "$PY" "$KV2CSV" LAUNCH "$W/write/write-ncu.stdout" >"$W/write/write-ncu-launches.csv" 2>>"$LOG"
  clocks after-write
  pack
fi

sumline "done in $(elapsed)s"
pack
ls -l "$OUTDIR"
cat "$SUM"
exit 0
