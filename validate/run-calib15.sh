#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fifteenth calibration kit (issues #17, #19).
#   order  calib_order (new): one wave of b = 2, 4, 8 blocks per SM x W = 1, 4,
#          8 warps per block, every warp 8 independent FFMA chains (each warp
#          alone could issue every cycle); clock64 before and after each
#          warp's chains, %smid and the block: on an SM holding several
#          blocks, does the block that started first finish first, last or
#          with the others?  (kit14 showed a block's own warps progressing
#          together; smsim's gob takes the oldest block first.)
#   tlb    calib_chase .cg with 32 lanes and 65,536 dependent loads per lane
#          (2 M lines per launch, so ncu's ~70 k lookups of its own per
#          launch, which swamped kit14's 4,096-load chase, are ~3 %) over
#          16 MiB..2 GiB of random lines and 2 GiB in 64 KiB / 2 MiB windows,
#          under ncu with the L2 lookups split by source unit and op: the
#          lookups outside the data path per line, by footprint and window
#          (the DRAM chains' 8-16 % L2 hits, kit8 l2src)
# Conventions of run-calib10.sh (helpers in kitlib.sh).
#   $OUT/kit15-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib15.sh --compile-only   # meta + build only
#   bash validate/run-calib15.sh                  # full run on the GPU
# Device time (estimate): build ~20 s, meta ~20 s, order ~5 s, tlb ~90 s.
set -u
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
kit_init kit15 meta,build,order,tlb order tlb -- "$@"
PROGS="calib_order calib_chase"
log "kit15: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib15.sh validate/kitlib.sh validate/kernels/calib_order.cu validate/kernels/calib_chase.cu \
    validate/kernels/common.cuh
  pack
fi
sass_checks() {
  local B=$1
  echo "## calib_order: order_ffma's loop holds 256 FFMA; CS2R (clock) before and after"
  fcount "$B/calib_order.sass" 'FFMA=FFMA' 'CS2R=CS2R' 'YIELD=YIELD' | grep order
  echo "## calib_chase: chase<1> holds LDG.E.64.STRONG.GPU"
  fcount "$B/calib_chase.sass" 'LDGCG=LDG\.E\.64\.STRONG\.GPU' | grep chase
}
# shellcheck disable=SC2086  # PROGS is a word list
want build && kit_build_phase sass_checks 'order|chase' $PROGS
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

if want order && have calib_order; then
  log "=== phase order ($(remaining)s left)"
  run_cmd "$(box 60)" "$W/order/order.txt" "$W/order/order.stderr" "$BIN/calib_order" --res 2,4,8 --warps 1,4,8
  errs "$W/order/order.txt"
  grep -h '^ORDER' "$W/order/order.txt" | sed 's/^ORDER/order/' >>"$SUM"
  pack
fi
if want tlb && have calib_chase; then
  log "=== phase tlb ($(remaining)s left)"
  L2SRC='regex:^lts__t_(sectors|requests)_srcunit_[a-z0-9]+(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_(lookup_hit|lookup_miss)\.sum$,regex:^lts__t_sectors_srcunit_[a-z0-9]+_op_read(_lookup_hit|_lookup_miss)?\.sum$,regex:^lts__t_sectors_op_[a-z]+(_lookup_hit|_lookup_miss)?\.sum$'
  TM=$(filter_metrics "sm__cycles_elapsed.avg,gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__sectors_read.sum,smsp__inst_executed.sum")
  for spec in 16M:0 64M:0 512M:0 2G:0 2G:64K 2G:2M; do
    fp=${spec%%:*}; win=${spec##*:}
    ncu_run "chase-$fp-w$win" tlb 60 "" "$TM,$L2SRC" '^chase' -- \
      "$BIN/calib_chase" --footprints "$fp" --window "$win" --modes cg --lanes 32 --iters 65536 --reps 1
  done
  pack
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
