#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fourth H200 calibration kit (issue #17): DRAM bandwidth of mixed read/write
# streams (calib_rw) and the cost of warp loads that span two lines
# (calib_misalign).  Conventions of run-calib3.sh (helpers in kitlib.sh):
# every step time-boxed and logged with its command, never stops on a
# failure, nothing starts past BUDGET_S; ncu with --clock-control none,
# --cache-control all, --replay-mode kernel.  Results are re-packed into $OUT
# after every phase:  $OUT/kit4-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib4.sh --compile-only   # build + SASS checks only
#   bash validate/run-calib4.sh                  # full run on the H200 (~2-3 min)
# Phases: meta build rw misalign
#   rw        calib_rw        DRAM GB/s for read:write mixes 1:0 0:1 7:1 3:1 1:3 1:7 x b = 4, 8, 16
#   misalign  calib_misalign  LDG spanning 1 or 2 lines, L2- or DRAM-resident, b = 1..16
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-300}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,rw,misalign}; fi
KIT=kit4
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit4.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,rw,misalign} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PROGS="calib_rw calib_misalign"
log "kit4: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"

if want meta; then
  kit_meta validate/run-calib4.sh validate/kitlib.sh validate/kernels/calib_rw.cu validate/kernels/calib_misalign.cu validate/kernels/common.cuh
  pack
fi
if want build; then
  log "=== phase build"
  kit_build $PROGS
  B=$W/build
  {
    echo "# SASS checks (cuobjdump -sass)"
    echo "## calib_rw: per rw_mix<R,W>: LDG.E.128 (expected R) and STG.E.128 (expected W)"
    fcount "$B/calib_rw.sass" 'LDG128=LDG\.E\.128' 'STG128=STG\.E\.128' 'LDG_all=LDG' 'STG_all=STG' | grep rw_mix
    echo "## calib_misalign: LDG.E (32-bit, expected 8) in mis_read"
    fcount "$B/calib_misalign.sass" 'LDG32=LDG\.E(\.CONSTANT)?[[:space:]]' 'LDG_all=LDG' | grep mis_read
    echo "## ptxas: registers and spills"
    grep -h -E 'registers|spill' "$B"/*.ptxas.txt
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

BW="sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,launch__shared_mem_config_size"
L1M="l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_req_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed"

if want rw && have calib_rw; then
  log "=== phase rw ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/rw/rw-time.txt" "$W/rw/rw-time.stderr" "$BIN/calib_rw"
  errs "$W/rw/rw-time.txt"
  grep -h '^RW' "$W/rw/rw-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "rw R=%s W=%s b=%s GBps_med=%s check=%s\n", v["R"], v["W"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
  ncu_run rw-ncu rw 120 "--section LaunchStats --section WarpStateStats" "$(filter_metrics "$BW"),$STALLS" '^rw_mix' -- "$BIN/calib_rw" --ncu
  pack
fi
if want misalign && have calib_misalign; then
  log "=== phase misalign ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/misalign/misalign-time.txt" "$W/misalign/misalign-time.stderr" "$BIN/calib_misalign"
  errs "$W/misalign/misalign-time.txt"
  grep -h '^MIS' "$W/misalign/misalign-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "misalign foot=%s off=%s b=%s GBps_med=%s check=%s\n", v["foot"], v["off"], v["b"], v["GBps_med"], v["check"]}' >>"$SUM"
  pack
  ncu_run misalign-ncu misalign 120 "--section LaunchStats --section WarpStateStats" "$(filter_metrics "$BW,$L1M"),$STALLS" '^mis_read' -- "$BIN/calib_misalign" --ncu
  pack
fi
sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "done in $(elapsed)s"
pack
cat "$SUM"
exit 0
