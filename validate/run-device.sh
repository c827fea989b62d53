#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# H200 measurement kit: builds validate/kernels/*.cu, runs the calibration
# microbenchmarks (plain timing) and the validation kernels (under Nsight
# Compute), the occupancy probe of validate/occupancy/ when present, and packs
# everything into $OUT (default ./out):
#   h200-data.tar.gz        all text results, CSVs, SASS, binaries, metadata
#   h200-ncu-reps.tar.gz    the raw ncu reports (split into .partN if large)
#   summary.txt, log.txt    short table / full log
# At most 7 files, each <= 15 MiB.  Run from the repository root:
#   bash validate/run-device.sh
# Environment knobs (all optional):
#   DRY_RUN=1     print the commands, run nothing on the GPU (no toolkit needed)
#   BUDGET_S=470  seconds after which no new step starts (steps are also
#                 time-boxed so the script ends near this mark)
#   QUICK=1       smoke test: few residencies and footprints (~1/3 the time)
#   PHASES=meta,build,calib,occupancy,ncu,timing,source   which phases to run
#   OCC_TIMEOUT=90  cap for validate/occupancy/run.sh
# Every step is guarded: a failing or timed-out step is logged and the script
# goes on.  `set -e` is deliberately off.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
DRY=${DRY_RUN:-0}
QUICK=${QUICK:-0}
BUDGET=${BUDGET_S:-470}
OCC_TIMEOUT=${OCC_TIMEOUT:-90}
PHASES=${PHASES:-meta,build,calib,occupancy,ncu,timing,source}
MAX_FILE=${KIT_MAX_FILE:-$((15 * 1024 * 1024))}   # below the 16 MiB per-file limit (override only to test)

mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/h200kit.XXXXXX)
WORK=$TMPROOT/h200-data
BIN=$WORK/build/bin
mkdir -p "$WORK"/{meta,build/bin,calib,valid,timing,source,occupancy}
LOG=$WORK/log.txt
SUMMARY=$WORK/summary.txt
CMDS=$WORK/meta/commands.txt
: >"$LOG"
: >"$CMDS"

elapsed() { echo $(($(date +%s) - T0)); }
remaining() { echo $((BUDGET - $(elapsed))); }
log() { printf '[%4ss] %s\n' "$(elapsed)" "$*" | tee -a "$LOG"; }
want() { case ",$PHASES," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# Phase bookkeeping for the summary table.
PH_NAME=()
PH_STAT=()
PH_SECS=()
PH_T=0
phase_begin() { PH_T=$(date +%s); log "=== phase $1 (remaining budget $(remaining)s)"; }
phase_end() { # name status
  PH_NAME+=("$1")
  PH_STAT+=("$2")
  PH_SECS+=($(($(date +%s) - PH_T)))
  log "=== phase $1: $2 in $(($(date +%s) - PH_T))s"
  record_clocks "after-$1"
}

# Steps: rows of the validation/calibration table.
ST_NAME=()
ST_STAT=()
ST_SECS=()
ST_NOTE=()
step_add() { ST_NAME+=("$1"); ST_STAT+=("$2"); ST_SECS+=("$3"); ST_NOTE+=("$4"); }

# run_cmd TIMEOUT STDOUT STDERR cmd... : logs the command, runs it time-boxed.
# Returns the command's status (124/137 on timeout); never aborts the script.
run_cmd() {
  local t=$1 so=$2 se=$3
  shift 3
  printf '%s\n' "$*" >>"$CMDS"
  log "CMD (timeout ${t}s): $*"
  if [ "$DRY" = 1 ]; then
    echo "DRY: $*" >"$so"
    : >"$se"
    return 0
  fi
  if [ "$t" -lt 5 ]; then
    log "  not run: only ${t}s left"
    return 125
  fi
  local s rc
  s=$(date +%s)
  timeout -k 10 "$t" "$@" >"$so" 2>"$se"
  rc=$?
  log "  rc=$rc in $(($(date +%s) - s))s"
  if [ $rc -ne 0 ]; then
    tail -n 5 "$se" | sed 's/^/  stderr: /' | tee -a "$LOG"
    grep -h '^ERROR' "$so" 2>/dev/null | head -n 5 | sed 's/^/  stdout: /' | tee -a "$LOG"
  fi
  return $rc
}

# Seconds for a step: at most $1, never past the budget (keeps 20 s to pack).
box() {
  local r=$(($(remaining) - 20))
  [ "$r" -lt "$1" ] && echo "$r" || echo "$1"
}

record_clocks() {
  [ "$DRY" = 1 ] && return 0
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  printf '%s,%s,' "$1" "$(elapsed)" >>"$WORK/meta/clocks.csv"
  timeout 10 nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate \
    --format=csv,noheader >>"$WORK/meta/clocks.csv" 2>/dev/null || echo "n/a" >>"$WORK/meta/clocks.csv"
}

find_tool() { # name, fallbacks...
  local n=$1 p
  shift
  p=$(command -v "$n" 2>/dev/null) && { echo "$p"; return; }
  for p in "$@"; do
    for q in $p; do [ -x "$q" ] && { echo "$q"; return; }; done
  done
  echo ""
}
NVCC=${NVCC:-$(find_tool nvcc /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(find_tool ncu /usr/local/cuda/bin/ncu '/opt/nvidia/nsight-compute/*/ncu' '/usr/local/cuda/nsight-compute*/ncu')}
CUOBJDUMP=${CUOBJDUMP:-$(find_tool cuobjdump /usr/local/cuda/bin/cuobjdump)}
[ "$DRY" = 1 ] && { NVCC=${NVCC:-nvcc}; NCU=${NCU:-ncu}; CUOBJDUMP=${CUOBJDUMP:-cuobjdump}; }

PROGS="calib_chase calib_pipes calib_bw val_ffma val_stream val_dchain val_smem val_sgemm val_stencil"
if [ "$QUICK" = 1 ]; then
  RES_128="1,4,16"
  RES_64="1,4,8"
  CHASE_FP="16K,1M,32M,2G"
else
  RES_128="1,2,3,4,6,8,12,16"
  RES_64="1,2,3,4,6,8"
  CHASE_FP="16K,64K,1M,8M,32M,512M,2G"
fi

log "H200 kit: repo=$REPO work=$WORK out=$OUTDIR dry=$DRY quick=$QUICK budget=${BUDGET}s phases=$PHASES"
log "tools: nvcc=${NVCC:-MISSING} ncu=${NCU:-MISSING} cuobjdump=${CUOBJDUMP:-MISSING}"

# ------------------------------------------------------------------ metadata
if want meta; then
  phase_begin meta
  M=$WORK/meta
  {
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname 2>/dev/null)"
    echo "uname: $(uname -a)"
    echo "script: validate/run-device.sh sha256=$(sha256sum "$0" 2>/dev/null | cut -d' ' -f1)"
    echo "kernels_sha256:"
    (cd "$KDIR" && sha256sum *.cu *.cuh 2>/dev/null | sed 's/^/  /')
    echo "git_head: $(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo n/a)"
    echo "env: DRY_RUN=$DRY QUICK=$QUICK BUDGET_S=$BUDGET PHASES=$PHASES"
    echo "nvcc: $NVCC"
    echo "ncu: $NCU"
    echo "cuobjdump: $CUOBJDUMP"
  } >"$M/metadata.txt"
  if [ "$DRY" != 1 ]; then
    timeout 30 nvidia-smi -q >"$M/nvidia-smi-q.txt" 2>&1
    timeout 30 nvidia-smi >"$M/nvidia-smi.txt" 2>&1
    timeout 30 nvidia-smi --query-gpu=name,driver_version,vbios_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current \
      --format=csv >"$M/nvidia-smi-query.csv" 2>&1
    { [ -n "$NVCC" ] && "$NVCC" --version; } >"$M/nvcc-version.txt" 2>&1
    { [ -n "$NCU" ] && timeout 60 "$NCU" --version; } >"$M/ncu-version.txt" 2>&1
    { [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" --version; } >"$M/cuobjdump-version.txt" 2>&1
    cat /proc/driver/nvidia/version >"$M/driver-version.txt" 2>&1
    { echo "--- lscpu"; lscpu 2>/dev/null | head -n 20; echo "--- meminfo"; head -n 3 /proc/meminfo; } >"$M/host.txt" 2>&1
    env | grep -E '^(CUDA|NV|NCCL|LD_LIBRARY_PATH|PATH)' | sort >"$M/env.txt" 2>/dev/null
    echo "name,elapsed_s,clocks.sm,clocks.mem,temp,power,pstate" >"$M/clocks.csv"
    {
      echo "--- nvidia-smi --query-gpu"
      cat "$M/nvidia-smi-query.csv"
      echo "--- driver"
      cat "$M/driver-version.txt"
      echo "--- nvcc --version"
      cat "$M/nvcc-version.txt"
      echo "--- ncu --version"
      cat "$M/ncu-version.txt"
    } >>"$M/metadata.txt" 2>&1
  fi
  DRIVER=$(grep -m1 'Driver Version' "$M/nvidia-smi-q.txt" 2>/dev/null | sed 's/.*: *//')
  GPU=$(grep -m1 'Product Name' "$M/nvidia-smi-q.txt" 2>/dev/null | sed 's/.*: *//')
  NCUVER=$(grep -m1 -i 'version' "$M/ncu-version.txt" 2>/dev/null)
  NVCCVER=$(grep -m1 'release' "$M/nvcc-version.txt" 2>/dev/null)
  log "gpu='${GPU:-?}' driver='${DRIVER:-?}' ncu='${NCUVER:-?}' nvcc='${NVCCVER:-?}'"
  cat "$M/metadata.txt" >>"$LOG"
  phase_end meta ok
fi

# ------------------------------------------------------------------ build
BUILT=""
if want build; then
  phase_begin build
  if [ -z "$NVCC" ]; then
    log "nvcc not found: nothing can be built"
    phase_end build FAIL
  else
    # All programs in parallel (the device has 16 cores); one log per program.
    pids=()
    for p in $PROGS; do
      cmd=("$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v -o "$BIN/$p" "$KDIR/$p.cu")
      printf '%s\n' "${cmd[*]}" >>"$CMDS"
      if [ "$DRY" = 1 ]; then
        log "DRY: ${cmd[*]}"
      else
        (timeout 240 "${cmd[@]}" >"$WORK/build/$p.ptxas.txt" 2>&1; echo $? >"$WORK/build/$p.rc") &
        pids+=($!)
      fi
    done
    [ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
    nbad=0
    for p in $PROGS; do
      if [ "$DRY" = 1 ] || { [ "$(cat "$WORK/build/$p.rc" 2>/dev/null)" = 0 ] && [ -x "$BIN/$p" ]; }; then
        BUILT="$BUILT $p"
        if [ "$DRY" != 1 ] && [ -n "$CUOBJDUMP" ]; then
          timeout 60 "$CUOBJDUMP" -sass "$BIN/$p" >"$WORK/build/$p.sass" 2>&1
          timeout 60 "$CUOBJDUMP" -res-usage "$BIN/$p" >"$WORK/build/$p.res-usage.txt" 2>&1
        fi
      else
        nbad=$((nbad + 1))
        log "BUILD FAILED: $p"
        tail -n 20 "$WORK/build/$p.ptxas.txt" 2>/dev/null | tee -a "$LOG"
      fi
    done
    echo "cuobjdump -sass <binary>  (one .sass per program)" >>"$CMDS"
    log "built:$BUILT"
    [ $nbad = 0 ] && phase_end build ok || phase_end build "FAIL($nbad)"
  fi
else
  for p in $PROGS; do [ -x "$BIN/$p" ] && BUILT="$BUILT $p"; done
fi
built() { case " $BUILT " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# ------------------------------------------------------------------ ncu helpers
# Option sets, richest first.  If a call produces no report (an option or a
# metric this ncu does not know), the next set is tried and kept.
SECTIONS=(--section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats --section SpeedOfLight)
METRICS_BASE="sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,dram__bytes.sum.per_second,gpu__time_duration.sum"
METRICS_EXTRA="sm__cycles_elapsed.avg.per_second,smsp__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__thread_inst_executed_per_inst_executed.ratio"
METRICS_STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
NCU_LEVEL=0
ncu_opts() { # prints one option per line for level $1
  case $1 in
    0) printf '%s\n' "${SECTIONS[@]}" --metrics "$METRICS_BASE,$METRICS_EXTRA,$METRICS_STALL" ;;
    1) printf '%s\n' "${SECTIONS[@]}" --metrics "$METRICS_BASE" ;;
    *) printf '%s\n' "${SECTIONS[@]}" ;;
  esac
}
NCU_COMMON=(--clock-control none --cache-control all --replay-mode kernel --target-processes all)

# ncu_profile NAME TIMEOUT REGEX -- program args...
# Writes valid/NAME.ncu-rep, NAME.raw.csv, NAME.stdout/.stderr; records a step.
ncu_profile() {
  local name=$1 tmax=$2 regex=$3 dir=$4
  shift 5
  local rep=$WORK/$dir/$name t0 rc lvl status note
  t0=$(date +%s)
  status=FAIL
  note=""
  for lvl in $(seq "$NCU_LEVEL" 2); do
    local t
    t=$(box "$tmax")
    if [ "$t" -lt 15 ]; then
      status=SKIP
      note="out of time"
      break
    fi
    mapfile -t opts < <(ncu_opts "$lvl")
    rm -f "$rep.ncu-rep"
    run_cmd "$t" "$rep.stdout" "$rep.stderr" "$NCU" "${NCU_COMMON[@]}" "${opts[@]}" \
      -k "regex:$regex" -f -o "$rep" "$@"
    rc=$?
    if [ "$DRY" = 1 ]; then status=DRY; break; fi
    if [ -s "$rep.ncu-rep" ]; then
      status=ok
      [ $rc -ne 0 ] && note="rc=$rc"
      [ "$lvl" != "$NCU_LEVEL" ] && log "ncu option level is now $lvl" && NCU_LEVEL=$lvl
      break
    fi
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      note="timeout after ${t}s"
      status=TIMEOUT
      break
    fi
    note="no report (rc=$rc) at option level $lvl"
    # Fewer options only help when ncu rejected them: the program never
    # started, or ncu complained about a metric/section/option.  A program
    # that started and then failed is not retried.
    if grep -q '^INFO prog=' "$rep.stdout" 2>/dev/null &&
      ! grep -qiE '==ERROR==.*(metric|section|option|argument)' "$rep.stdout" "$rep.stderr" 2>/dev/null; then
      log "  $note; the program itself failed, not retried"
      break
    fi
    log "  $note; retrying with fewer options"
  done
  if [ "$status" = ok ]; then
    run_cmd 120 "$rep.raw.csv" "$rep.import.stderr" "$NCU" -i "$rep.ncu-rep" --csv --page raw --print-units base
    if [ ! -s "$rep.raw.csv" ]; then
      run_cmd 120 "$rep.raw.csv" "$rep.import.stderr" "$NCU" -i "$rep.ncu-rep" --csv --page raw
    fi
    local want_n got_n
    want_n=$(grep -c '^LAUNCH' "$rep.stdout" 2>/dev/null)
    # raw page: a header row, a units row, then one row per profiled launch
    got_n=$(($(grep -c '^"' "$rep.raw.csv" 2>/dev/null) - 2))
    [ "$got_n" -lt 0 ] && got_n=0
    note="$note results=$got_n/$want_n"
    grep -q 'check=FAIL' "$rep.stdout" && note="$note CHECK-FAILED"
    [ "$got_n" -lt "$want_n" ] && status=PARTIAL
  fi
  step_add "$name" "$status" $(($(date +%s) - t0)) "$note"
  log "step $name: $status $note"
}

# ------------------------------------------------------------------ calibration
if want calib; then
  phase_begin calib
  C=$WORK/calib

  # calib_one NAME TIMEOUT PROG ARGS...
  calib_one() {
    local name=$1 tmax=$2 prog=$3 t0 t rc st
    shift 3
    t0=$(date +%s)
    if ! built "$prog"; then step_add "$name" NOBUILD 0 ""; return; fi
    t=$(box "$tmax")
    run_cmd "$t" "$C/$name.txt" "$C/$name.stderr" "$BIN/$prog" "$@"
    rc=$?
    st=ok
    [ $rc -ne 0 ] && st="rc=$rc"
    [ "$DRY" = 1 ] && st=DRY
    local nres nfail
    nres=$(grep -c '^CALIB' "$C/$name.txt" 2>/dev/null)
    nfail=$(grep -c 'check=FAIL' "$C/$name.txt" 2>/dev/null)
    step_add "$name" "$st" $(($(date +%s) - t0)) "records=$nres check_fail=$nfail"
  }
  calib_one pipes 90 calib_pipes
  calib_one chase 150 calib_chase --footprints "$CHASE_FP" --modes ca,cg --lanes 1,32
  # DRAM latency with few TLB misses: random lines inside 2 MiB windows.
  calib_one chase-window2M 60 calib_chase --footprints 2G --window 2M --modes cg --lanes 1,32
  calib_one bw 90 calib_bw
  if built calib_bw && [ -n "$NCU" ]; then
    t0=$(date +%s)
    t=$(box 90)
    run_cmd "$t" "$C/bw-ncu.stdout" "$C/bw-ncu.stderr" "$NCU" "${NCU_COMMON[@]}" \
      --section SpeedOfLight --metrics "dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed" \
      -k regex:bw_copy -f -o "$C/bw-ncu" "$BIN/calib_bw" --ncu
    if [ -s "$C/bw-ncu.ncu-rep" ]; then
      run_cmd 60 "$C/bw-ncu.raw.csv" "$C/bw-ncu.import.stderr" "$NCU" -i "$C/bw-ncu.ncu-rep" --csv --page raw --print-units base
      step_add bw-ncu ok $(($(date +%s) - t0)) ""
    else
      step_add bw-ncu "$([ "$DRY" = 1 ] && echo DRY || echo FAIL)" $(($(date +%s) - t0)) ""
    fi
  fi
  phase_end calib finished
fi

# ------------------------------------------------------------------ occupancy probe (validate/occupancy, other owner)
if want occupancy; then
  phase_begin occupancy
  if [ -f "$REPO/validate/occupancy/run.sh" ]; then
    t0=$(date +%s)
    t=$(box "$OCC_TIMEOUT")
    run_cmd "$t" "$WORK/occupancy/run.stdout" "$WORK/occupancy/run.stderr" bash "$REPO/validate/occupancy/run.sh" "$WORK/occupancy"
    rc=$?
    st=ok
    [ $rc -ne 0 ] && st="rc=$rc"
    [ "$DRY" = 1 ] && st=DRY
    step_add occupancy "$st" $(($(date +%s) - t0)) "$(ls "$WORK/occupancy" | wc -l) files"
    phase_end occupancy "$st"
  else
    log "validate/occupancy/run.sh not present: skipped"
    step_add occupancy ABSENT 0 ""
    phase_end occupancy absent
  fi
fi

# ------------------------------------------------------------------ validation under ncu
# name prog variant residencies; in priority order (1..7, then vector add).
VAL_LIST="ffma-ilp1:val_ffma:ilp1:$RES_128
ffma-ilp2:val_ffma:ilp2:$RES_128
ffma-ilp4:val_ffma:ilp4:$RES_128
copy:val_stream:copy:$RES_128
dchain-k0:val_dchain:k0:$RES_128
dchain-k4:val_dchain:k4:$RES_128
dchain-k16:val_dchain:k16:$RES_128
smem-tile:val_smem:tile:$RES_128
reduce:val_smem:reduce:$RES_128
sgemm:val_sgemm:sgemm:$RES_64
stencil5:val_stencil:stencil5:$RES_128
vecadd:val_stream:vecadd:$RES_128"

# If the first profiles show that ncu is slower than planned, later calls
# profile fewer residencies (npoints 8 -> 5 -> 3) so that every kernel still
# gets a curve inside the budget; the list used is in each step's note.
count_points() { echo "$1" | tr ',' '\n' | grep -c .; }
reduce_res() { # list -> next smaller list (keeps 1, the largest and powers of two)
  case $1 in
    "$RES_128") echo "1,2,4,8,16" ;;
    "1,2,4,8,16") echo "1,4,16" ;;
    "$RES_64") echo "1,2,4,8" ;;
    "1,2,4,8") echo "1,4,8" ;;
    *) echo "$1" ;;
  esac
}
NCU_SPENT=0     # seconds spent in validation ncu calls so far
NCU_LAUNCHED=0  # launches profiled in them
NCU_CALLS=0     # and how many calls that was
if want ncu; then
  phase_begin ncu
  if [ -z "$NCU" ]; then
    log "ncu not found: validation profiles skipped"
    phase_end ncu FAIL
  else
    calls_left=$(echo "$VAL_LIST" | grep -c .)
    while IFS=: read -r name prog variant res; do
      [ -z "$name" ] && continue
      if ! built "$prog"; then step_add "ncu:$name" NOBUILD 0 ""; calls_left=$((calls_left - 1)); continue; fi
      if [ "$NCU_LAUNCHED" -gt 0 ] && [ "$DRY" != 1 ]; then
        avail=$(($(remaining) - 40))  # leave some time for the timing runs
        for _ in 1 2; do
          # cost of a call = fixed part (ncu start-up, program set-up; taken
          # as 6 s) + per-launch part measured on the calls so far
          need=$(awk -v s="$NCU_SPENT" -v l="$NCU_LAUNCHED" -v k="$NCU_CALLS" -v n="$(count_points "$res")" -v c="$calls_left" \
            'BEGIN { per = (s - 6 * k) / l; if (per < 0.2) per = 0.2; printf "%d", (6 + per * n) * c }')
          [ "$need" -le "$avail" ] && break
          smaller=$(reduce_res "$res")
          [ "$smaller" = "$res" ] && break
          log "ncu: ~${need}s needed for $calls_left calls, ${avail}s available: residencies $res -> $smaller"
          res=$smaller
        done
      fi
      t_before=$(date +%s)
      ncu_profile "$name" 120 '^val_' valid -- "$BIN/$prog" --ncu --variant "$variant" --res "$res"
      ST_NOTE[${#ST_NOTE[@]} - 1]="${ST_NOTE[${#ST_NOTE[@]} - 1]} res=$res"
      n=$(grep -c '^LAUNCH' "$WORK/valid/$name.stdout" 2>/dev/null)
      if [ "${n:-0}" -gt 0 ]; then
        NCU_SPENT=$((NCU_SPENT + $(date +%s) - t_before))
        NCU_LAUNCHED=$((NCU_LAUNCHED + n))
        NCU_CALLS=$((NCU_CALLS + 1))
      fi
      calls_left=$((calls_left - 1))
    done <<<"$VAL_LIST"
    phase_end ncu finished
  fi
fi

# ------------------------------------------------------------------ validation, plain timing
if want timing; then
  phase_begin timing
  for prog in val_ffma val_stream val_dchain val_smem val_sgemm val_stencil; do
    if ! built "$prog"; then step_add "time:$prog" NOBUILD 0 ""; continue; fi
    res=$RES_128
    [ "$prog" = val_sgemm ] && res=$RES_64
    t0=$(date +%s)
    t=$(box 60)
    if [ "$t" -lt 10 ]; then step_add "time:$prog" SKIP 0 "out of time"; continue; fi
    run_cmd "$t" "$WORK/timing/$prog.txt" "$WORK/timing/$prog.stderr" "$BIN/$prog" --res "$res"
    rc=$?
    st=ok
    [ $rc -ne 0 ] && st="rc=$rc"
    [ "$DRY" = 1 ] && st=DRY
    step_add "time:$prog" "$st" $(($(date +%s) - t0)) "points=$(grep -c '^VALID' "$WORK/timing/$prog.txt" 2>/dev/null) check_fail=$(grep -c 'check=FAIL' "$WORK/timing/$prog.txt" 2>/dev/null)"
  done
  phase_end timing finished
fi

# ------------------------------------------------------------------ per-instruction source counters (optional)
if want source && [ -n "$NCU" ]; then
  phase_begin source
  for spec in "dchain-k4:val_dchain:k4" "sgemm:val_sgemm:sgemm" "smem-tile:val_smem:tile" "ffma-ilp1:val_ffma:ilp1"; do
    IFS=: read -r name prog variant <<<"$spec"
    built "$prog" || continue
    t0=$(date +%s)
    t=$(box 60)
    if [ "$t" -lt 20 ]; then step_add "src:$name" SKIP 0 "out of time"; continue; fi
    rep=$WORK/source/$name-b4
    run_cmd "$t" "$rep.stdout" "$rep.stderr" "$NCU" "${NCU_COMMON[@]}" --section SourceCounters --section WarpStateStats \
      -k 'regex:^val_' -f -o "$rep" "$BIN/$prog" --ncu --variant "$variant" --res 4
    if [ -s "$rep.ncu-rep" ]; then
      run_cmd 60 "$rep.sass.csv" "$rep.import.stderr" "$NCU" -i "$rep.ncu-rep" --page source --csv --print-source sass
      run_cmd 60 "$rep.raw.csv" "$rep.import2.stderr" "$NCU" -i "$rep.ncu-rep" --csv --page raw --print-units base
      step_add "src:$name" ok $(($(date +%s) - t0)) "$(grep -c . "$rep.sass.csv" 2>/dev/null) sass rows"
    else
      step_add "src:$name" "$([ "$DRY" = 1 ] && echo DRY || echo FAIL)" $(($(date +%s) - t0)) ""
    fi
  done
  phase_end source finished
fi

# ------------------------------------------------------------------ summary
{
  echo "H200 measurement kit summary  ($(date -u +%Y-%m-%dT%H:%M:%SZ), total $(elapsed)s, budget ${BUDGET}s, quick=$QUICK dry=$DRY)"
  echo "gpu: ${GPU:-?}   driver: ${DRIVER:-?}   ncu: ${NCUVER:-?}   nvcc: ${NVCCVER:-?}"
  sed 's/^/  /' "$WORK/meta/nvidia-smi-query.csv" 2>/dev/null
  echo "  clocks at phase ends (name,s,sm,mem,temp,power,pstate):"
  sed 's/^/    /' "$WORK/meta/clocks.csv" 2>/dev/null
  echo
  echo "phase        status        secs"
  for i in "${!PH_NAME[@]}"; do printf '%-12s %-13s %4s\n' "${PH_NAME[$i]}" "${PH_STAT[$i]}" "${PH_SECS[$i]}"; done
  echo
  echo "step                 status    secs  note"
  for i in "${!ST_NAME[@]}"; do printf '%-20s %-9s %4s  %s\n' "${ST_NAME[$i]}" "${ST_STAT[$i]}" "${ST_SECS[$i]}" "${ST_NOTE[$i]}"; done
  echo
  echo "calibration highlights (cycles; full data in calib/*.txt)"
  awk '/^CALIB prog=chase/ {
         for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         printf "  chase %-2s lanes=%-2s fp=%-11s win=%-8s cyc/load=%-8s check=%s\n", v["mode"], v["lanes"], v["footprint"], v["window"], v["cyc_per_load"], v["check"] }' \
    "$WORK"/calib/chase*.txt 2>/dev/null
  awk '/^CALIB prog=pipes/ {
         for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         if ((v["chains"] == 1 && v["warps"] == 1) || (v["chains"] == 8 && (v["warps"] == 4 || v["warps"] == 32)))
           printf "  pipe %-5s chains=%s warps=%-2s cyc/inst/warp=%-8s cyc/inst/smsp=%s\n", v["op"], v["chains"], v["warps"], v["cyc_per_inst_warp"], v["cyc_per_inst_smsp"] }' \
    "$WORK"/calib/pipes.txt 2>/dev/null
  awk '/^CALIB prog=bw/ {
         for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         if (v["kernel"] == "clock") printf "  sm clock MHz med=%s min=%s max=%s\n", v["sm_mhz_med"], v["sm_mhz_min"], v["sm_mhz_max"];
         else printf "  bw %-5s GB/s med=%-8s max=%-8s check=%s\n", v["kernel"], v["GBps_med"], v["GBps_max"], v["check"] }' \
    "$WORK"/calib/bw.txt 2>/dev/null
  echo
  echo "validation launches profiled (LAUNCH lines) and failed checks:"
  for f in "$WORK"/valid/*.stdout; do
    [ -e "$f" ] || continue
    printf '  %-14s launches=%-3s VALID=%-3s check_fail=%-3s skip=%s\n' "$(basename "$f" .stdout)" \
      "$(grep -c '^LAUNCH' "$f")" "$(grep -c '^VALID' "$f")" "$(grep -c 'check=FAIL' "$f")" "$(grep -c '^SKIP' "$f")"
  done
  echo
  echo "ncu option level used: $NCU_LEVEL (0 = sections + all metrics, 1 = + brief metrics only, 2 = sections only)"
  echo "archive: h200-data.tar.gz (text, CSV, SASS, binaries, meta); h200-ncu-reps.tar.gz (raw reports)"
} >"$SUMMARY" 2>&1
cat "$SUMMARY" | tee -a "$LOG"

# ------------------------------------------------------------------ pack
# Files in $OUT: at most 7 (the limit is 8; one is left spare):
# summary.txt + log.txt + data (+parts) + reps (+parts).
ship() { # file: moves it to $OUTDIR, split into parts when too large; prints count
  local f=$1 base n
  base=$(basename "$f")
  if [ "$(stat -c %s "$f")" -le "$MAX_FILE" ]; then
    mv "$f" "$OUTDIR/$base"
    echo 1
  else
    split -b "$MAX_FILE" -d -a 1 "$f" "$OUTDIR/$base.part"
    rm -f "$f"
    n=$(ls "$OUTDIR/$base".part* | wc -l)
    echo "$n"
  fi
}
log "packing into $OUTDIR"
cp "$SUMMARY" "$OUTDIR/summary.txt"
nfiles=2
(cd "$TMPROOT" && find h200-data -name '*.ncu-rep' >"$TMPROOT/reps.list")
tar -C "$TMPROOT" -czf "$TMPROOT/h200-data.tar.gz" --exclude='*.ncu-rep' h200-data 2>>"$LOG"
n=$(ship "$TMPROOT/h200-data.tar.gz")
nfiles=$((nfiles + n))
if [ -s "$TMPROOT/reps.list" ]; then
  tar -C "$TMPROOT" -czf "$TMPROOT/h200-ncu-reps.tar.gz" -T "$TMPROOT/reps.list" 2>>"$LOG"
  sz=$(stat -c %s "$TMPROOT/h200-ncu-reps.tar.gz")
  parts=$(((sz + MAX_FILE - 1) / MAX_FILE))
  if [ $((nfiles + parts)) -le 7 ]; then
    n=$(ship "$TMPROOT/h200-ncu-reps.tar.gz")
    nfiles=$((nfiles + n))
  else
    log "ncu reports ($sz bytes) do not fit the 7-file limit: not shipped (CSV exports are in h200-data.tar.gz)"
    echo "NOTE: raw ncu reports ($sz bytes) were too large to ship" >>"$OUTDIR/summary.txt"
  fi
fi
log "done in $(elapsed)s; files in $OUTDIR: $(cd "$OUTDIR" && echo *) log.txt"
cp "$LOG" "$OUTDIR/log.txt"
ls -l "$OUTDIR"
exit 0
