#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Eighth H200 calibration kit: what limits the issue of L1-hit load loops
# (issue #18: kit7's misl1 issues at most 0.63 per cycle with dispatch_stall
# and math_pipe_throttle, smsim ~1.0) and where the DRAM chains' L2 hits come
# from (issue #17: dchain touches each line once, yet ncu counts 8-16 % L2
# sector hits; smsim 0.4 %).  Conventions of run-calib7.sh (helpers in
# kitlib.sh): every step time-boxed and logged with its command, never stops
# on a failure, nothing starts past BUDGET_S (default 420 s); ncu with
# --clock-control none, --cache-control all, --replay-mode kernel.
#   $OUT/kit8-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib8.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib8.sh                  # full run on the H200
# Phases: meta build pipes misl1p l2src
#   pipes    calib_pipes     IMAD.WIDE.U32 (imadw) and add-of-a-kernel-argument (iaddu) chains:
#                            dependent latency (C = 1, W = 1) and issue interval per SMSP
#                            (C = 8, W = 1..32), clock64() timing
#   misl1p   calib_misalign  --foots l1 again, with ncu's per-pipe instruction counts and
#                            pipe-active cycles (which pipe throttles the L1-hit loop)
#   l2src    val_dchain      k0 at b = 1, 3, 16 and val_stream copy at b = 1, 4 under ncu
#                            with L2 lookups split by source unit and hit/miss
# Device time (estimate): build ~40 s, meta ~20 s, pipes ~10 s, misl1p ~40 s,
#   l2src ~60 s.  Total ~3 min.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,pipes,misl1p,l2src}; fi
KIT=kit8
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit8.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,pipes,misl1p,l2src} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PROGS="calib_pipes calib_misalign val_dchain val_stream"
log "kit8: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib8.sh validate/kitlib.sh validate/kernels/calib_pipes.cu validate/kernels/calib_misalign.cu \
    validate/kernels/val_dchain.cu validate/kernels/val_stream.cu validate/kernels/common.cuh
  { echo "# ncu --query-metrics, names this kit relies on:"
    grep -E 'sm__inst_executed_pipe_|sm__pipe_[a-z_]*cycles_active|lts__t_sectors_srcunit|lts__t_requests_srcunit|lts__t_sectors_lookup' "$W/meta/ncu-query-metrics.txt" 2>/dev/null | head -n 200; } >"$W/meta/ncu-metric-check.txt"
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
      echo "## calib_pipes: imadw expects IMAD.WIDE.U32, iaddu VIADD or IADD3 (256 chain instructions per trip)"
      fcount "$B/calib_pipes.sass" 'IMADW=IMAD\.WIDE' 'IMAD=IMAD[[:space:]]' 'VIADD=VIADD' 'IADD3=IADD3' 'MOV=MOV' | grep -E 'ILi6|ILi7'
      echo "## calib_misalign: mis_read: 8 LDG.E.CONSTANT expected"
      fcount "$B/calib_misalign.sass" 'LDG=LDG' 'STG=STG' | grep mis_read
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

MM="sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__lsu_writeback_active.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum,dram__bytes_read.sum,dram__sectors_read.sum"
PIPES='regex:^sm__inst_executed_pipe_[a-z0-9_]+\.sum$,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:^smsp__inst_executed_pipe_[a-z0-9_]+\.sum$'
L2SRC='regex:^lts__t_(sectors|requests)_srcunit_[a-z0-9]+(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_(lookup_hit|lookup_miss)\.sum$,regex:^lts__t_sectors_srcunit_[a-z0-9]+_op_read(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_op_[a-z]+(_lookup_hit|_lookup_miss)?\.sum$'

if want pipes && have calib_pipes; then
  log "=== phase pipes ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/pipes/pipes.txt" "$W/pipes/pipes.stderr" "$BIN/calib_pipes" --ops imadw,iaddu,imad,iadd3 --chains 1,8 --warps 1,2,4,8,16,32
  errs "$W/pipes/pipes.txt"
  grep '^CALIB' "$W/pipes/pipes.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "pipes op=%s C=%s W=%s cyc_per_inst_warp=%s cyc_per_inst_smsp=%s\n", v["op"], v["chains"], v["warps"], v["cyc_per_inst_warp"], v["cyc_per_inst_smsp"]}' >>"$SUM"
  pack
fi
if want misl1p && have calib_misalign; then
  log "=== phase misl1p ($(remaining)s left)"
  ncu_run misl1p-ncu misl1p 150 "--section LaunchStats" "$(filter_metrics "$MM"),$PIPES,$STALLS" '^mis_read' -- "$BIN/calib_misalign" --ncu --foots l1 --offs 0 --res 1,4,16
  pack
fi
if want l2src; then
  log "=== phase l2src ($(remaining)s left)"
  have val_dchain && ncu_run dchain-ncu l2src 150 "--section LaunchStats" "$(filter_metrics "$MM"),$L2SRC" '^val_dchain' -- "$BIN/val_dchain" --ncu --variant k0 --res 1,3,16
  pack
  have val_stream && ncu_run copy-ncu l2src 120 "--section LaunchStats" "$(filter_metrics "$MM"),$L2SRC" '^val_' -- "$BIN/val_stream" --ncu --variant copy --res 1,4
  pack
fi
sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
