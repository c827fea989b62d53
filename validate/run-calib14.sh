#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fourteenth calibration kit (issue #17).
#   shfl  calib_pipes --ops shfl, shfli, mixsl, lds: how long a SHFL's result
#         takes (one dependent chain, one warp), how often an SMSP issues
#         them (8 chains x 32 warps), and whether SHFL and LDS share a pipe
#         (mixsl: the two chains interleaved).  smsim has no measured SHFL
#         number: it takes the LSU pipe's address-side latency (4 cycles).
#         The same op/chain/warp points once more under ncu: stall reasons
#         and pipe counters.
#   tlb   calib_chase (ld.global.cg, one lane) over 2 MiB..2 GiB of random
#         lines, and 2 GiB in 64 KiB or 2 MiB windows, under ncu with the L2
#         lookups split by source unit and op: how many L2 lookups outside
#         the data path (kit8 l2src: page-table walks, by elimination) each
#         load costs at each footprint and window
# Conventions of run-calib10.sh (helpers in kitlib.sh).
#   $OUT/kit14-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib14.sh --compile-only   # meta + build only
#   bash validate/run-calib14.sh                  # full run on the GPU
# Device time (estimate): build ~20 s, meta ~20 s, shfl ~30 s, tlb ~60 s.
set -u
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
kit_init kit14 meta,build,shfl,tlb shfl tlb -- "$@"
PROGS="calib_pipes calib_chase"
log "kit14: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib14.sh validate/kitlib.sh validate/kernels/calib_pipes.cu validate/kernels/calib_chase.cu \
    validate/kernels/common.cuh
  pack
fi
sass_checks() {
  local B=$1
  echo "## calib_pipes: pipe<OP,C> for OP = 11 (shfl: SHFL.BFLY), 12 (shfli: SHFL.IDX), 13 (mixsl: SHFL.BFLY and LDS), 5 (lds)"
  fcount "$B/calib_pipes.sass" 'SHFL=SHFL' 'BFLY=SHFL\.BFLY' 'IDX=SHFL\.IDX' 'LDS=LDS' | grep -E 'pipeILi(5|11|12|13)E'
  echo "## one shfli loop body (the lane operand must be a register)"
  awk '/Function : _Z4pipeILi12ELi1EE/{f=1} f&&/SHFL/{print; c++} c>=4{exit}' "$B/calib_pipes.sass" |
    sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@'
  echo "## calib_chase: chase<1> holds LDG.E.64.STRONG.GPU"
  fcount "$B/calib_chase.sass" 'LDGCG=LDG\.E\.64\.STRONG\.GPU' | grep chase
}
# shellcheck disable=SC2086  # PROGS is a word list
want build && kit_build_phase sass_checks 'pipe|chase' $PROGS
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

if want shfl && have calib_pipes; then
  log "=== phase shfl ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/shfl/pipes.txt" "$W/shfl/pipes.stderr" "$BIN/calib_pipes" --ops shfl,shfli,mixsl,lds \
    --chains 1,2,4,8 --warps 1,2,4,8,16,32
  errs "$W/shfl/pipes.txt"
  grep -h '^CALIB' "$W/shfl/pipes.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} if (v["warps"]==1 || v["warps"]==32) printf "pipes op=%s chains=%s warps=%s cyc_per_inst_warp=%s cyc_per_inst_smsp=%s\n", v["op"], v["chains"], v["warps"], v["cyc_per_inst_warp"], v["cyc_per_inst_smsp"]}' >>"$SUM"
  pack
  PM=$(filter_metrics "smsp__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,sm__inst_executed_pipe_lsu.sum,sm__pipe_shared_cycles_active.sum,sm__mio_inst_issued.sum,sm__mio2rf_writeback_active.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shfl.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
  ncu_run pipes-ncu shfl 120 "" "$PM,$STALLS" '^pipe' -- \
    "$BIN/calib_pipes" --ops shfl,mixsl,lds --chains 1,8 --warps 1,4,32 --reps 1
fi
if want tlb && have calib_chase; then
  log "=== phase tlb ($(remaining)s left)"
  L2SRC='regex:^lts__t_(sectors|requests)_srcunit_[a-z0-9]+(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_(lookup_hit|lookup_miss)\.sum$,regex:^lts__t_sectors_srcunit_[a-z0-9]+_op_read(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_op_[a-z]+(_lookup_hit|_lookup_miss)?\.sum$'
  TM=$(filter_metrics "sm__cycles_elapsed.avg,gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__sectors_read.sum,smsp__inst_executed.sum")
  # one footprint per launch pair (warm-up + 1 timed), so each ncu row is one footprint
  for spec in 2M:0 32M:0 128M:0 512M:0 2G:0 2G:64K 2G:2M; do
    fp=${spec%%:*}; win=${spec##*:}
    ncu_run "chase-$fp-w$win" tlb 60 "" "$TM,$L2SRC" '^chase' -- \
      "$BIN/calib_chase" --footprints "$fp" --window "$win" --modes cg --lanes 1 --reps 1
  done
  # the same outside ncu: time per load (TLB misses included)
  run_cmd "$(box 60)" "$W/tlb/chase-time.txt" "$W/tlb/chase-time.stderr" "$BIN/calib_chase" --footprints 2M,32M,128M,512M,2G \
    --modes cg --lanes 1 --reps 3
  for win in 64K 2M; do
    run_cmd "$(box 30)" "$W/tlb/chase-time-w$win.txt" "$W/tlb/chase-time-w$win.stderr" "$BIN/calib_chase" --footprints 2G \
      --window "$win" --modes cg --lanes 1 --reps 3
  done
  grep -h '^CALIB' "$W"/tlb/chase-time*.txt | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "chase footprint=%s window=%s cyc_per_load=%s check=%s\n", v["footprint"], v["window"], v["cyc_per_load"], v["check"]}' >>"$SUM"
  pack
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
