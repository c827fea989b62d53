#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Third H200 calibration kit (issues #17 and #18).  Same conventions as
# run-calib2.sh (which it does not change or call): every step time-boxed and
# logged with its exact command, never stops on a failure, no step starts past
# BUDGET_S; ncu always with --clock-control none (and --cache-control all,
# --replay-mode kernel).  Results are re-packed into $OUT after every phase, so
# a run cut short still returns what it measured:
#   $OUT/kit3-data.tar.gz   kit3/ (meta, build/*.sass + sass-checks.txt, raw ncu CSVs, timing text)
#   $OUT/log.txt  $OUT/summary.txt
# Run from the repository root:
#   bash validate/run-calib3.sh --compile-only   # build + SASS checks only (no GPU needed; ~1 min)
#   bash validate/run-calib3.sh                  # full run on the H200 (~3-4 min; BUDGET_S=400 caps it)
#   QUICK=1 BUDGET_S=200 bash validate/run-calib3.sh        # smoke: few points
#   PHASES=meta,build,regbank bash validate/run-calib3.sh   # a subset
# Phases (priority order): meta build stencil regbank chase mufu icache const
#   chase    calib_chase_n     #17 warp's load latency vs lines in flight (clock64 only)
#   regbank  calib_regbank     #18 FFMA/FMUL bank conflicts and reuse (clock64 + ncu)
#   mufu     calib_mufu        #18 MUFU.EX2/RSQ latency and throughput (clock64 + ncu)
#   icache   calib_icache      #18 straight-line code beyond the instruction caches (clock64 + ncu)
#   const    calib_const       #18 constant-cache misses right after start (clock64 + ncu)
#   stencil  val_stencil_reuse #17 VALIDATION: peak then decline with residency (events + ncu)
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
QUICK=${QUICK:-0}
BUDGET=${BUDGET_S:-400}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,stencil,regbank,chase,mufu,icache,const}; fi
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit3.XXXXXX)
W=$TMPROOT/kit3
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,chase,regbank,mufu,icache,const,stencil} "$BIN"
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
errs() { grep -h -E '^ERROR|check=FAIL' "$@" 2>/dev/null | head -n 3 | cut -c1-300 | sed 's/^/  /' | tee -a "$SUM" >>"$LOG"; }

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
  tar -C "$TMPROOT" -czf "$TMPROOT/kit3-data.tar.gz" --exclude='*.ncu-rep' kit3 2>>"$LOG" &&
    cp "$TMPROOT/kit3-data.tar.gz" "$OUTDIR/.kit3-data.tmp" && mv "$OUTDIR/.kit3-data.tmp" "$OUTDIR/kit3-data.tar.gz"
}

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -n1)
PY=$(command -v python3 || echo python3)
SASSCTL=$REPO/validate/sassctl.py
NCU_COMMON=(--clock-control none --cache-control all --replay-mode kernel --target-processes all)
log "kit3: repo=$REPO out=$OUTDIR quick=$QUICK budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none} python3=$PY"

# ------------------------------------------------------------------ meta
if want meta; then
  M=$W/meta
  {
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"; echo "uname: $(uname -a)"
    echo "script: validate/run-calib3.sh sha256=$(sha256sum "$0" | cut -d' ' -f1)"
    echo "git: $(git -C "$REPO" rev-parse HEAD 2>/dev/null) $(git -C "$REPO" status --porcelain 2>/dev/null | wc -l) changed files"
    echo "kernels_sha256:"; (cd "$KDIR" && sha256sum calib_chase_n.cu calib_regbank.cu calib_mufu.cu calib_icache.cu calib_const.cu val_stencil_reuse.cu common.cuh ../sassctl.py | sed 's/^/  /')
    echo "env: QUICK=$QUICK BUDGET_S=$BUDGET PHASES=$PHASES COMPILE_ONLY=$COMPILE_ONLY"
  } >"$M/metadata.txt"
  "$NVCC" --version >"$M/nvcc-version.txt" 2>&1
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" --version >"$M/cuobjdump-version.txt" 2>&1
  if [ "$COMPILE_ONLY" = 0 ]; then
    timeout 30 nvidia-smi >"$M/nvidia-smi.txt" 2>&1
    timeout 30 nvidia-smi -q >"$M/nvidia-smi-q.txt" 2>&1
    timeout 30 nvidia-smi --query-gpu=name,driver_version,vbios_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv >"$M/nvidia-smi-query.csv" 2>&1
    cat /proc/driver/nvidia/version >"$M/driver-version.txt" 2>&1
    [ -n "$NCU" ] && timeout 60 "$NCU" --version >"$M/ncu-version.txt" 2>&1
    [ -n "$NCU" ] && timeout 60 "$NCU" --query-metrics >"$M/ncu-query-metrics.txt" 2>&1
    { echo "# ncu --query-metrics, names this kit relies on:"
      grep -E 'dispatch_stall|no_instruction|imc_miss|short_scoreboard|mio_throttle|math_pipe_throttle|sector_hit_rate|shared_mem_config|inst_executed_pipe_(xu|fma|uniform)|issue_active|inst_issued ' "$M/ncu-query-metrics.txt" 2>/dev/null | head -n 60; } >"$M/ncu-metric-check.txt"
    echo "name,elapsed_s,clocks.sm,clocks.mem,temp,power,pstate" >"$M/clocks.csv"
  fi
  for f in nvidia-smi-query.csv driver-version.txt nvcc-version.txt ncu-version.txt cuobjdump-version.txt; do
    [ -f "$M/$f" ] && { echo "--- $f"; cat "$M/$f"; }
  done >>"$M/metadata.txt"
  sumline "kit3 $(date -u +%Y-%m-%dT%H:%M:%SZ) driver=$(grep -m1 'Driver Version' "$M/nvidia-smi-q.txt" 2>/dev/null | sed 's/.*: *//') ncu=\"$(grep -m1 -i version "$M/ncu-version.txt" 2>/dev/null)\" nvcc=\"$(grep -m1 release "$M/nvcc-version.txt")\""
  pack
fi
clocks() { [ "$COMPILE_ONLY" = 1 ] && return; printf '%s,%s,' "$1" "$(elapsed)" >>"$W/meta/clocks.csv"; timeout 10 nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate --format=csv,noheader >>"$W/meta/clocks.csv" 2>&1; }

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

# ncu_run NAME DIR TIMEOUT "SECTIONS" "METRICS" REGEX -- prog args: one report,
# raw CSV export.  Without a report (an unknown section or metric), once more
# with the metrics alone.
ncu_run() {
  local name=$1 dir=$2 t=$3 sec=$4 met=$5 rx=$6; shift 7
  local -a secs; read -r -a secs <<<"$sec"
  local rep=$W/$dir/$name rc
  if [ -z "$NCU" ]; then sumline "ncu $name: no ncu found"; return; fi
  run_cmd "$(box "$t")" "$rep.stdout" "$rep.stderr" "$NCU" "${NCU_COMMON[@]}" "${secs[@]}" --metrics "$met" -k "regex:$rx" -f -o "$rep" "$@"
  rc=$?
  if [ ! -s "$rep.ncu-rep" ] && [ "$rc" != 124 ] && [ "$rc" != 125 ]; then
    log "  no report; again without sections"
    run_cmd "$(box "$t")" "$rep.stdout" "$rep.stderr" "$NCU" "${NCU_COMMON[@]}" --metrics "$met" -k "regex:$rx" -f -o "$rep" "$@"
    rc=$?
  fi
  if [ -s "$rep.ncu-rep" ]; then
    run_cmd "$(box 90)" "$rep.raw.csv" "$rep.import.stderr" "$NCU" -i "$rep.ncu-rep" --csv --page raw --print-units base
    local want got
    want=$(grep -c '^LAUNCH' "$rep.stdout"); got=$(($(grep -c '^"' "$rep.raw.csv") - 2))
    sumline "ncu $name: rc=$rc results=$got/$want errors=$(cat "$rep.stdout" "$rep.stderr" | grep -c '==ERROR==') checks_failed=$(grep -c 'check=FAIL' "$rep.stdout")"
    errs "$rep.stdout"
  else
    sumline "ncu $name: NO REPORT rc=$rc; $(grep -h '==ERROR==' "$rep.stdout" "$rep.stderr" | head -n 3 | tr '\n' ' ')"
  fi
}

# fcount SASS label=regex... : per function, how many instruction lines match each regex
fcount() {
  local f=$1; shift
  awk -v specs="$*" '
    function out(  i, l) { l = fn; for (i = 1; i <= n; i++) l = l " " lab[i] "=" (c[i] + 0); print l }
    BEGIN { n = split(specs, s, " "); for (i = 1; i <= n; i++) { j = index(s[i], "="); lab[i] = substr(s[i], 1, j - 1); re[i] = substr(s[i], j + 1) } }
    /Function :/ { if (fn != "") out(); fn = $3; split("", c); next }
    /^ +\/\*[0-9a-f]+\*\// { for (i = 1; i <= n; i++) if ($0 ~ re[i]) c[i]++ }
    END { if (fn != "") out() }' "$f"
}

PROGS="calib_chase_n calib_regbank calib_mufu calib_icache calib_const val_stencil_reuse"
# ------------------------------------------------------------------ build
if want build; then
  log "=== phase build"
  pids=()
  for p in $PROGS; do
    cmd=("$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v -o "$BIN/$p" "$KDIR/$p.cu")
    printf '%s\n' "${cmd[*]}" >>"$CMDS"
    (timeout 300 "${cmd[@]}" >"$W/build/$p.ptxas.txt" 2>&1; echo $? >"$W/build/$p.rc") &
    pids+=($!)
  done
  wait "${pids[@]}"
  for p in $PROGS; do
    if [ -x "$BIN/$p" ]; then
      if [ -n "$CUOBJDUMP" ]; then
        "$CUOBJDUMP" -sass "$BIN/$p" >"$W/build/$p.sass" 2>&1
        "$CUOBJDUMP" -res-usage "$BIN/$p" >"$W/build/$p.res-usage.txt" 2>&1
      else # no cuobjdump: decode the cubin with sassctl.py (names only the opcodes it knows)
        "$NVCC" -O3 -std=c++17 -arch=sm_90 -cubin -o "$W/build/$p.cubin" "$KDIR/$p.cu" 2>>"$LOG"
      fi
    else
      sumline "BUILD FAILED: $p (rc $(cat "$W/build/$p.rc"))"; tail -n 20 "$W/build/$p.ptxas.txt" | tee -a "$LOG"
    fi
  done
  echo "cuobjdump -sass <binary> > build/<prog>.sass; cuobjdump -res-usage <binary>; python3 validate/sassctl.py banks|list build/<prog>.sass ..." >>"$CMDS"
  # SASS checks: the instructions and control bits each measurement relies on
  B=$W/build
  {
    echo "# SASS checks (cuobjdump -sass; ctrl = hi >> 41: stall, yield, write/read counter, wait mask, reuse)"
    if [ -n "$CUOBJDUMP" ]; then
      echo "## calib_chase_n: per chase_n<K>, LDG .cg loads (K in the warm loop + K in the timed loop), STS, CS2R"
      fcount "$B/calib_chase_n.sass" 'LDG_cg=LDG\.E\.64\.STRONG\.GPU' 'LDG_all=LDG' 'STS=STS' 'CS2R=CS2R' | grep chase_n
      echo "## calib_regbank: hottest loop of each rb_chain<op,ilp,pat>: register banks (reg % 2) of FFMA/FMUL sources, reuse bits"
      "$PY" "$SASSCTL" banks "$B/calib_regbank.sass" rb_chain
      echo "## calib_mufu: MUFU per mufu_chain<op,ilp> (16*ILP in the loop) and the first MUFU's control bits"
      fcount "$B/calib_mufu.sass" 'MUFU_EX2=MUFU\.EX2' 'MUFU_RSQ=MUFU\.RSQ' 'FADD=FADD' 'FMUL=FMUL' | grep mufu_chain
      "$PY" "$SASSCTL" banks "$B/calib_mufu.sass" mufu_chain | grep -A1 '^BANKS'
      echo "## calib_icache: FADDs (expected 4096/8192/16384/32768 and 256) and all instructions per function"
      fcount "$B/calib_icache.sass" 'FADD=FADD' 'all=.' | grep icache
      echo "## calib_const: ULDC (constant reads, expected ~256 for strides > 0), FFMA with a UR or c[] operand (expected 256), LDC"
      fcount "$B/calib_const.sass" 'ULDC=ULDC' 'FFMA_UR=FFMA.*UR' 'FFMA_c=FFMA.*c\[' 'LDC=[^U]LDC' | grep const_ffma
      "$PY" "$SASSCTL" list "$B/calib_const.sass" const_ffmaILi16E | grep -m4 -E 'ULDC|FFMA'
      echo "## val_stencil_reuse: plain (L1-cached) LDG and SHFL per val_stencil_reuse<R> (R/4 rows, unrolled by 4, + 2 halo)"
      fcount "$B/val_stencil_reuse.sass" 'LDG=LDG\.E' 'LDG_nc=LDG\.E\.CONSTANT' 'SHFL=SHFL' | grep val_stencil
    else
      echo "## no cuobjdump: decoded from cubins by validate/sassctl.py (opc23 = FFMA with a UR operand, opab9 = ULDC, op981 = LDG)"
      for p in calib_regbank calib_mufu; do "$PY" "$SASSCTL" banks "$B/$p.cubin" chain; done
      for p in calib_chase_n calib_icache calib_const val_stencil_reuse; do
        "$PY" "$SASSCTL" list "$B/$p.cubin" | awk -v p=$p '{n[$1 " " $3]++} END {for (k in n) if (n[k] > 3) print p, k, n[k]}' | sort
      done
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling entry|registers|spill' "$B"/*.ptxas.txt | grep -B1 -E 'spill (stores|loads)' | grep -E '[1-9][0-9]* bytes spill' || echo "no spills"
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  clocks after-build
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then
  sumline "compile-only done in $(elapsed)s"
  pack
  ls -l "$OUTDIR"
  cat "$SUM"
  exit 0
fi

if [ "$QUICK" = 1 ]; then
  RB_ARGS=(--ilps 1,4 --pats 0,4 --wps 1,8); MU_ARGS=(--ilps 1,8 --wps 1,8); IC_ARGS=(--variants line4k,line32k,loop --wps 1,4)
  CO_ARGS=(--strides 0,64 --warps 1,16); CH_ARGS=(--ns 0,1,8,32 --wps 1,16); ST_RES=1,4,8,16; ST_VAR=t4k
else
  RB_ARGS=(); MU_ARGS=(); IC_ARGS=(); CO_ARGS=(); CH_ARGS=(); ST_RES=1,2,3,4,6,8,12,16; ST_VAR=t4k,t2k,t8k
fi
STALLS='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
SEC_WS="--section WarpStateStats --section SchedulerStats --section LaunchStats"
# issue-stage metrics (the regex adds every stall reason, dispatch_stall, no_instruction, imc_miss among them)
IM="sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__cycles_active.avg,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__inst_issued.sum,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_uniform.sum,smsp__inst_executed_pipe_alu.sum"

# ------------------------------------------------------------------ #17 validation: peak then decline
if want stencil && have val_stencil_reuse; then
  log "=== phase stencil ($(remaining)s left)"
  # the metric list of run-device.sh's validation sweeps, plus the hit rates (already in its EXTRA list) and the smem config
  VM="sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,dram__bytes.sum.per_second,gpu__time_duration.sum"
  VM="$VM,sm__cycles_elapsed.avg.per_second,smsp__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__thread_inst_executed_per_inst_executed.ratio"
  VM="$VM,launch__shared_mem_config_size,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
  VM=$(filter_metrics "$VM")
  run_cmd "$(box 60)" "$W/stencil/stencil-reuse-time.txt" "$W/stencil/stencil-reuse-time.stderr" "$BIN/val_stencil_reuse" --res $ST_RES --variant $ST_VAR
  errs "$W/stencil/stencil-reuse-time.txt"
  ncu_run stencil-reuse-ncu stencil 150 "--section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats --section SpeedOfLight" "$VM,$STALLS" '^val_' -- \
    "$BIN/val_stencil_reuse" --ncu --res $ST_RES --variant $ST_VAR
  grep -h '^VALID' "$W/stencil/stencil-reuse-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "stencil_reuse %s b=%s ms_med=%s check=%s\n", v["variant"], v["b"], v["ms_med"], v["check"]}' >>"$SUM"
  clocks after-stencil
  pack
fi

# ------------------------------------------------------------------ #18 register banks
if want regbank && have calib_regbank; then
  log "=== phase regbank ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/regbank/regbank-time.txt" "$W/regbank/regbank-time.stderr" "$BIN/calib_regbank" "${RB_ARGS[@]}"
  errs "$W/regbank/regbank-time.txt"
  grep -h '^RB' "$W/regbank/regbank-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "regbank %s ilp=%s pat=%s wps=%s cyc/op/warp=%s smsp_ops/cyc=%s check=%s\n", v["op"], v["ilp"], v["pat"], v["wps"], v["cyc_per_op_per_warp"], v["smsp_ops_per_cycle"], v["check"]}' >>"$SUM"
  pack
  ncu_run regbank-ncu regbank 150 "$SEC_WS" "$(filter_metrics "$IM"),$STALLS" '^rb_chain' -- "$BIN/calib_regbank" --ncu "${RB_ARGS[@]}"
  clocks after-regbank
  pack
fi

# ------------------------------------------------------------------ #17 lines in flight per warp
if want chase && have calib_chase_n; then
  log "=== phase chase ($(remaining)s left)"
  run_cmd "$(box 120)" "$W/chase/chase-n.txt" "$W/chase/chase-n.stderr" "$BIN/calib_chase_n" "${CH_ARGS[@]}"
  errs "$W/chase/chase-n.txt"
  grep -h '^CHASEN' "$W/chase/chase-n.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "chase_n %s %s wps=%s n=%s steps=%s cyc/step med=%s p90=%s mean=%s check=%s\n", v["mem"], v["mode"], v["warps_per_sm"], v["lines_per_warp_step"], v["steps"], v["cyc_step_med"], v["cyc_step_p90"], v["cyc_step_mean_med_over_warps"], v["check"]}' >>"$SUM"
  clocks after-chase
  pack
fi

# ------------------------------------------------------------------ #18 MUFU
if want mufu && have calib_mufu; then
  log "=== phase mufu ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/mufu/mufu-time.txt" "$W/mufu/mufu-time.stderr" "$BIN/calib_mufu" "${MU_ARGS[@]}"
  errs "$W/mufu/mufu-time.txt"
  grep -h '^MUFU' "$W/mufu/mufu-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mufu %s ilp=%s wps=%s cyc/mufu/warp=%s smsp_mufu/cyc=%s check=%s\n", v["op"], v["ilp"], v["wps"], v["cyc_per_mufu_per_warp"], v["smsp_mufu_per_cycle"], v["check"]}' >>"$SUM"
  pack
  ncu_run mufu-ncu mufu 120 "$SEC_WS" "$(filter_metrics "$IM"),$STALLS" '^mufu_chain' -- "$BIN/calib_mufu" --ncu "${MU_ARGS[@]}"
  clocks after-mufu
  pack
fi

# ------------------------------------------------------------------ #18 instruction cache
if want icache && have calib_icache; then
  log "=== phase icache ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/icache/icache-time.txt" "$W/icache/icache-time.stderr" "$BIN/calib_icache" "${IC_ARGS[@]}"
  errs "$W/icache/icache-time.txt"
  grep -h '^ICACHE' "$W/icache/icache-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "icache %s wps=%s cyc/fadd/warp=%s smsp_fadd/cyc=%s check=%s\n", v["variant"], v["wps"], v["cyc_per_fadd_per_warp"], v["smsp_fadd_per_cycle"], v["check"]}' >>"$SUM"
  pack
  ncu_run icache-ncu icache 120 "$SEC_WS" "$(filter_metrics "$IM"),$STALLS" '^icache_' -- "$BIN/calib_icache" --ncu "${IC_ARGS[@]}"
  clocks after-icache
  pack
fi

# ------------------------------------------------------------------ #18 constant cache
if want const && have calib_const; then
  log "=== phase const ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/const/const-time.txt" "$W/const/const-time.stderr" "$BIN/calib_const" "${CO_ARGS[@]}"
  errs "$W/const/const-time.txt"
  grep -h '^CONST' "$W/const/const-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "const stride=%s warps=%s pass1_first=%s pass1=%s pass2=%s check=%s\n", v["stride_bytes"], v["warps_per_sm"], v["pass1_cyc_first_launch"], v["pass1_cyc_med"], v["pass2_cyc_med"], v["check"]}' >>"$SUM"
  pack
  ncu_run const-ncu const 120 "$SEC_WS" "$(filter_metrics "$IM"),$STALLS" '^const_ffma' -- "$BIN/calib_const" --ncu "${CO_ARGS[@]}"
  clocks after-const
  pack
fi

sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "done in $(elapsed)s"
pack
ls -l "$OUTDIR"
cat "$SUM"
exit 0
