#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Ninth calibration kit (issue #18): do ALU-pipe and FMA-heavy instructions
# share one datapath?  kit8's misl1p (ALU + FMA-heavy active 98-105 % where
# the loop saturates) says maybe; independent chains interleaved decide it:
# IMAD + IADD3 issue every cycle per SMSP on separate datapaths, every 2nd on
# a shared one; FFMA + IADD3 and FFMA + IMAD are the controls (FFMA can take
# FMA-lite).  Conventions of run-calib7.sh (helpers in
# kitlib.sh): every step time-boxed and logged with its command, never stops
# on a failure, nothing starts past BUDGET_S (default 420 s); ncu with
# --clock-control none, --cache-control all, --replay-mode kernel.
#   $OUT/kit9-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib9.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib9.sh                  # full run on the GPU
# Phases: meta build mix mixncu
#   mix      calib_pipes     mixai / mixfa / mixfi and, for reference, imad and iadd3 alone:
#                            C = 1, 8 chains x W = 1..32 warps, clock64() timing
#   mixncu   calib_pipes     mixai, mixfa, mixfi at C = 8, W = 32 under ncu with per-pipe
#                            instruction counts and pipe-active cycles
# Device time (estimate): build ~20 s, meta ~20 s, mix ~10 s, mixncu ~30 s.
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
KIT=kit9
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit9.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,mix,mixncu} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PROGS="calib_pipes"
log "kit9: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none}"

if want meta; then
  kit_meta validate/run-calib9.sh validate/kitlib.sh validate/kernels/calib_pipes.cu validate/kernels/common.cuh
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
      echo "## calib_pipes: mixai (OP 10) IMAD + IADD3, mixfa (11) FFMA + IADD3, mixfi (12) FFMA + IMAD: 128 of each per trip"
      fcount "$B/calib_pipes.sass" 'IMAD=IMAD[[:space:]]' 'IADD3=IADD3' 'FFMA=FFMA' 'IMADX=IMAD\.' 'LOP3=LOP3' | grep -E 'ILi1[012]E'
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g' | grep -E 'ILi1[012]E'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

PIPES='regex:^sm__inst_executed_pipe_(alu|fma|fmaheavy|fmalite)\.sum$,regex:^sm__pipe_(alu|fma|fmaheavy|fmalite)_cycles_active\.avg\.pct_of_peak_sustained_active$,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum,sm__cycles_active.avg'

if want mix && have calib_pipes; then
  log "=== phase mix ($(remaining)s left)"
  run_cmd "$(box 90)" "$W/mix/mix.txt" "$W/mix/mix.stderr" "$BIN/calib_pipes" --ops mixai,mixfa,mixfi,imad,iadd3,ffma --chains 1,8 --warps 1,4,8,16,32
  errs "$W/mix/mix.txt"
  grep '^CALIB' "$W/mix/mix.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "mix op=%s C=%s W=%s cyc_per_inst_warp=%s cyc_per_inst_smsp=%s\n", v["op"], v["chains"], v["warps"], v["cyc_per_inst_warp"], v["cyc_per_inst_smsp"]}' >>"$SUM"
  pack
fi
if want mixncu && have calib_pipes; then
  log "=== phase mixncu ($(remaining)s left)"
  ncu_run mix-ncu mix 120 "--section LaunchStats" "$PIPES,$STALLS" '^pipe' -- "$BIN/calib_pipes" --ops mixai,mixfa,mixfi --chains 8 --warps 32 --reps 1
  pack
fi
sumline "tar: $(stat -c %s "$OUTDIR/$KIT-data.tar.gz" 2>/dev/null) bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
