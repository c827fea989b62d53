#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fifth H200 calibration kit (issues #17/#18: the SMSP's LG and MIO queue
# depths; #19: per-warp life stamps of block dispatch).  Conventions of
# run-calib4.sh (helpers in kitlib.sh): every step time-boxed and logged with
# its command, never stops on a failure, nothing starts past BUDGET_S
# (default 420 s); ncu with --clock-control none, --cache-control all,
# --replay-mode kernel.  Results are re-packed into $OUT after every phase:
#   $OUT/kit5-data.tar.gz  $OUT/log.txt  $OUT/summary.txt
#   bash validate/run-calib5.sh --compile-only   # meta + build + SASS checks only
#   bash validate/run-calib5.sh                  # full run on the H200
# Phases: meta build queue launch2 summary
#   queue    calib_queue    burst of K independent LDG.E.128 / LDG.E / LDS.128 / LDS / LDS 4-way-conflict,
#                           K = 4..64, W = 1, 2, 4, 8 warps per SMSP, one block per SM
#   launch2  calib_launch2  per-warp clock64 / globaltimer stamps, N = 0, 8 IMADs, 32/64/128/1024
#                           threads, 20 waves and 1 wave, plus one 1-block launch
#   summary  validate/kit5_summary.py (standard library) -> quick read appended to summary.txt
# Launches and device time (estimate):
#   queue    5 flavours x 5 K x 4 W = 100 points, 83 launchable (K = 64 has no 128-bit flavour;
#            W = 8 needs <= 64 registers, W = 4 <= 128: 9 SKIP lines).  Timing: 83 x 2 (S = 0, 1)
#            x 2 launches (warm + measured) of ~20 us: < 5 s.  ncu: 83 launches x ~2-3 passes
#            (10 metrics + LaunchStats) x ~0.15 s + start: ~30-45 s.
#   launch2  17 launches (2 N x 4 block sizes x 2 grids + 1), <= 170k warps each, ~1.24 M CSV rows
#            (~50 MB, xz ~5-12 MB): ~5 s with the CSV, xz ~10 s.  ncu: 17 launches x ~2 passes: ~15 s.
#   build ~30 s, meta (ncu --query-metrics) ~20 s, summary ~15 s.  Total ~2.5-3 min, < 6 min.
set -u
set -o pipefail

T0=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/validate/kernels
OUTDIR=${OUT:-$PWD/out}
BUDGET=${BUDGET_S:-420}
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-meta,build,queue,launch2,summary}; fi
KIT=kit5
mkdir -p "$OUTDIR"
TMPROOT=$(mktemp -d /tmp/kit5.XXXXXX)
W=$TMPROOT/$KIT
BIN=$TMPROOT/bin
mkdir -p "$W"/{meta,build,queue,launch2} "$BIN"
LOG=$W/log.txt
CMDS=$W/meta/commands.txt
SUM=$W/summary.txt
: >"$LOG"; : >"$CMDS"; : >"$SUM"
# shellcheck source=validate/kitlib.sh
. "$REPO/validate/kitlib.sh"
PY=$(command -v python3 || echo python3)
KV2CSV=$REPO/validate/kv2csv.py
PROGS="calib_queue calib_launch2"
log "kit5: repo=$REPO out=$OUTDIR budget=${BUDGET}s phases=$PHASES compile_only=$COMPILE_ONLY"
log "tools: nvcc=$NVCC ncu=${NCU:-none} cuobjdump=${CUOBJDUMP:-none} python3=$PY"

# compress FILE: xz (all cores) or gzip, in place; prints the new name
compress() {
  if command -v xz >/dev/null; then timeout "$(box 120)" xz -T0 -6 -f "$1" 2>>"$LOG" && echo "$1.xz" && return
  fi
  timeout "$(box 120)" gzip -6 -f "$1" 2>>"$LOG" && echo "$1.gz" && return
  echo "$1"
}
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }

if want meta; then
  kit_meta validate/run-calib5.sh validate/kitlib.sh validate/kit5_summary.py validate/kernels/calib_queue.cu validate/kernels/calib_launch2.cu validate/kernels/common.cuh
  { echo "# ncu --query-metrics, names this kit relies on:"
    grep -E 'lg_throttle|mio_throttle|sm__warps_active|ctas_launched|warps_launched|cycles_active' "$W/meta/ncu-query-metrics.txt" 2>/dev/null | head -n 40; } >"$W/meta/ncu-metric-check.txt"
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
      log "SKIP SASS checks: no cuobjdump found; the programs are built (ptxas registers in summary.txt)"
      echo "SKIP SASS checks: no cuobjdump found (the programs are built; ptxas registers below)"
    else
      echo "## calib_queue: q_burst<F,K,S> (F 0 lg128 1 lg32 2 lds128 3 lds32 4 lds32c4): burst loads (expected K: LDG for F<=1, LDS else), instructions between the first and last burst load (expected 0 at S=0) and CS2R among them (expected K/4-1 at S=1)"
      awk '
        function out(  ok) {
          if (fn == "" || fn !~ /q_burst/) return
          t = fn; sub(/.*q_burstILi/, "", t); split(t, p, /ELi|E/); F = p[1]; K = p[2]; S = p[3]
          n = (F <= 1) ? nl : ns; ok = (n == K) && (S == 1 || btw == 0) && (S == 0 || cs == K / 4 - 1)
          printf "q_burst F=%s K=%s S=%s %s=%d between=%d cs2r_between=%d %s\n", F, K, S, (F <= 1) ? "LDG" : "LDS", n, btw, cs, ok ? "ok" : "MISMATCH"
        }
        function fin(  i) {
          btw = 0; cs = 0
          if (last > first) for (i = first + 1; i < last; i++) if (ops[i] != want) { btw++; if (ops[i] ~ /^CS2R/) cs++ }
          out()
        }
        /Function :/ { if (fn != "") fin(); fn = $3; nl = ns = 0; first = last = 0; k = 0; split("", ops)
                       t = fn; sub(/.*q_burstILi/, "", t); split(t, p, /ELi|E/); want = (p[1] <= 1) ? "LDG" : "LDS"; next }
        /^ +\/\*[0-9a-f]+\*\// { k++; o = $2; if (o ~ /^@/) o = $3; sub(/[.].*/, "", o); sub(/;$/, "", o); ops[k] = o
          if (o == "LDG") nl++
          if (o == "LDS") ns++
          if (o == want) { if (!first) first = k; last = k } }
        END { if (fn != "") fin() }' "$B/calib_queue.sass" | sort -t= -k2,2n -k3,3n
      echo "## calib_queue: widths (expected LDG.E.128 for F=0, LDS.128 for F=2)"
      fcount "$B/calib_queue.sass" 'LDG128=LDG\.E\.128' 'LDS128=LDS\.128' 'LDGany=LDG' 'LDSany=LDS' | sed -E 's/^_Z7q_burstILi([0-9])ELi([0-9]+)ELi([0-9])E[^ ]*/q_burst F=\1 K=\2 S=\3/' | sort
      echo "## calib_launch2: life_w<N> (expected CS2R 2+ (clock64 x2, globaltimer may be CS2R or S2UR), IMAD N (+ address), STG.E.128 2)"
      fcount "$B/calib_launch2.sass" 'CS2R=CS2R' 'S2R=S2R' 'S2UR=S2UR' 'IMAD=IMAD' 'STG128=STG\.E\.128' 'ALL=.' | grep life_w
    fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g'
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
fi
have() { [ -x "$BIN/$1" ]; }
if [ "$COMPILE_ONLY" = 1 ]; then sumline "compile-only done in $(elapsed)s"; pack; cat "$SUM"; exit 0; fi

QM="smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg,smsp__warps_launched.sum"
LM="sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__warps_launched.sum,sm__ctas_launched.sum,sm__warps_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum"

if want queue && have calib_queue; then
  log "=== phase queue ($(remaining)s left)"
  Q=$W/queue
  run_cmd "$(box 90)" "$Q/queue-time.txt" "$Q/queue-time.stderr" "$BIN/calib_queue" --raw-csv "$Q/queue-warps.csv"
  errs "$Q/queue-time.txt"
  "$PY" "$KV2CSV" QUEUE "$Q/queue-time.txt" >"$Q/queue.csv" 2>>"$LOG"
  sumline "queue: $(grep -c '^QUEUE' "$Q/queue-time.txt") points, $(grep -c '^SKIP' "$Q/queue-time.txt") skipped, checks: $(grep -o 'check=[A-Za-z]*' "$Q/queue-time.txt" | sort | uniq -c | tr '\n' ' ')"
  [ -f "$Q/queue-warps.csv" ] && log "  queue-warps.csv -> $(compress "$Q/queue-warps.csv")"
  pack
  ncu_run queue-ncu queue 180 "--section LaunchStats" "$(filter_metrics "$QM")" '^q_burst' -- "$BIN/calib_queue" --ncu
  pack
fi
if want launch2 && have calib_launch2; then
  log "=== phase launch2 ($(remaining)s left)"
  L2=$W/launch2
  run_cmd "$(box 120)" "$L2/launch2-time.txt" "$L2/launch2-time.stderr" "$BIN/calib_launch2" --csv "$L2/life.csv"
  errs "$L2/launch2-time.txt"
  "$PY" "$KV2CSV" LIFE "$L2/launch2-time.txt" >"$L2/life-records.csv" 2>>"$LOG"
  grep -h '^LIFE' "$L2/launch2-time.txt" | awk '{for (i=2;i<=NF;i++) {split($i,kv,"="); v[kv[1]]=kv[2]} printf "life L=%s N=%s t=%s waves=%s warps=%s life_med=%s slot_gap_med=%s stamp_occ_pct_med=%s check=%s\n", v["L"], v["work"], v["block"], v["waves"], v["warps"], v["life_cyc_med"], v["slot_gap_cyc_med"], v["stamp_occ_pct_med"], v["check"]}' >>"$SUM"
  if [ -f "$L2/life.csv" ]; then
    log "  life.csv: $(wc -l <"$L2/life.csv") lines, $(fsize "$L2/life.csv") bytes"
    # the quick read needs all rows: run it on the plain CSV before compressing
    if want summary; then
      run_cmd "$(box 120)" "$L2/life-summary.txt" "$L2/life-summary.stderr" "$PY" "$REPO/validate/kit5_summary.py" --life "$L2/life.csv" --life-records "$L2/life-records.csv"
    fi
    LZ=$(compress "$L2/life.csv")
    log "  $LZ: $(fsize "$LZ") bytes"
    if [ "$(fsize "$LZ")" -gt $((11 * 1024 * 1024)) ]; then
      # keep the tar under 16 MiB: the rows of SMs 0..31 only (life-sms0-31.csv.xz)
      log "  over 11 MiB: keeping SMs 0..31 only"
      case $LZ in *.xz) dec="xz -dc" ;; *.gz) dec="gzip -dc" ;; *) dec="cat" ;; esac
      $dec "$LZ" | awk -F, 'NR == 1 || $4 < 32' >"$L2/life-sms0-31.csv" && rm -f "$LZ" &&
        log "  -> $(compress "$L2/life-sms0-31.csv")"
    fi
  fi
  pack
  ncu_run launch2-ncu launch2 150 "--section LaunchStats" "$(filter_metrics "$LM")" '^life_w' -- "$BIN/calib_launch2" --ncu
  pack
fi
if want summary; then
  log "=== phase summary ($(remaining)s left)"
  S5=$W/kit5-summary.txt
  {
    echo "## SUMMARY (validate/kit5_summary.py)"
    [ -f "$W/queue/queue.csv" ] && timeout "$(box 60)" "$PY" "$REPO/validate/kit5_summary.py" --queue "$W/queue/queue.csv"
    [ -f "$W/launch2/life-summary.txt" ] && cat "$W/launch2/life-summary.txt"
  } >"$S5" 2>&1
  tee -a "$SUM" <"$S5" >>"$LOG"
  pack
fi
sumline "checks: $(cat "$W"/*/*.txt "$W"/*/*.stdout 2>/dev/null | grep -o 'check=[A-Za-z]*' | sort | uniq -c | tr '\n' ' ')"
sumline "tar: $(fsize "$OUTDIR/$KIT-data.tar.gz") bytes; done in $(elapsed)s"
pack
cat "$SUM"
exit 0
