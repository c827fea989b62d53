#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sixteenth calibration kit (issues #17, #18).
#   order  calib_order with C = 1, 2, 4 dependent FFMA chains per warp
#          (order_dep<C>) and C = 8 again (order_ffma), one wave of b = 2, 4
#          blocks per SM x W = 4, 8, 16 warps: kit15 showed 4 always-ready
#          warps (C = 8) per SMSP ending together, whatever their block,
#          while the H200's ffma-ilp validation launches (one chain per warp,
#          waiting on its latency) fit oldest-first: does the order depend on
#          whether the warps wait on their own latency?
# Conventions of run-calib10.sh (helpers in kitlib.sh).
#   $OUT/kit16-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib16.sh --compile-only   # meta + build only
#   bash validate/run-calib16.sh                  # full run on the GPU
# Device time (estimate): build ~20 s, meta ~20 s, order ~10 s.
set -u
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
kit_init kit16 meta,build,order order -- "$@"
PROGS="calib_order"
log "kit16: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib16.sh validate/kitlib.sh validate/kernels/calib_order.cu validate/kernels/common.cuh
  pack
fi
sass_checks() {
  local B=$1
  echo "## calib_order: each kernel's loop holds 256 FFMA; CS2R (clock) before and after"
  fcount "$B/calib_order.sass" 'FFMA=FFMA' 'CS2R=CS2R' | grep order
}
# shellcheck disable=SC2086  # PROGS is a word list
want build && kit_build_phase sass_checks 'order' $PROGS
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

if want order && have calib_order; then
  log "=== phase order ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/order/order.txt" "$W/order/order.stderr" "$BIN/calib_order" --chains 1,2,4,8 --res 2,4 --warps 4,8,16
  errs "$W/order/order.txt"
  grep -h '^ORDER' "$W/order/order.txt" | sed 's/^ORDER/order/' >>"$SUM"
  pack
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
