# SPDX-License-Identifier: GPL-3.0-or-later
# Shared helpers of the H200 calibration kits from run-calib4.sh on (sourced,
# not run).  The caller sets T0, BUDGET, OUTDIR, TMPROOT, KIT (folder name
# under TMPROOT), W=$TMPROOT/$KIT, LOG, CMDS, SUM, COMPILE_ONLY, or calls
# kit_init (run-calib13.sh on).  Every step is time-boxed and logged with its
# exact command; nothing stops the kit.

# kit_init KIT "DEFAULT,PHASES" SUBDIR... -- "$@": the variables above, the
# work folders, PHASES (meta,build alone with --compile-only), and the paths
# (REPO, KDIR, BIN, PY, KV2CSV) a kit script uses.  Needs REPO set.
kit_init() {
  KIT=$1; local phases=$2; shift 2
  local -a dirs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  T0=$(date +%s)
  KDIR=$REPO/validate/kernels
  OUTDIR=${OUT:-$PWD/out}
  BUDGET=${BUDGET_S:-420}
  COMPILE_ONLY=0
  [ "${1:-}" = "--compile-only" ] && COMPILE_ONLY=1
  if [ "$COMPILE_ONLY" = 1 ]; then PHASES=${PHASES:-meta,build}; else PHASES=${PHASES:-$phases}; fi
  mkdir -p "$OUTDIR"
  TMPROOT=$(mktemp -d "/tmp/$KIT.XXXXXX")
  W=$TMPROOT/$KIT
  BIN=$TMPROOT/bin
  local d
  for d in meta build "${dirs[@]}"; do mkdir -p "$W/$d"; done
  mkdir -p "$BIN"
  LOG=$W/log.txt
  CMDS=$W/meta/commands.txt
  SUM=$W/summary.txt
  : >"$LOG"; : >"$CMDS"; : >"$SUM"
  PY=$(command -v python3 || echo python3)
  KV2CSV=$REPO/validate/kv2csv.py
}

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

pack() { # re-pack everything measured so far into $OUTDIR (atomic rename)
  cp "$LOG" "$OUTDIR/log.txt" 2>/dev/null
  cp "$SUM" "$OUTDIR/summary.txt" 2>/dev/null
  tar -C "$TMPROOT" -czf "$TMPROOT/$KIT-data.tar.gz" --exclude='*.ncu-rep' "$KIT" 2>>"$LOG" &&
    cp "$TMPROOT/$KIT-data.tar.gz" "$OUTDIR/.$KIT-data.tmp" && mv "$OUTDIR/.$KIT-data.tmp" "$OUTDIR/$KIT-data.tar.gz"
}

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -n1)
NCU_COMMON=(--clock-control none --cache-control all --replay-mode kernel --target-processes all)
STALLS='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'

# kit_meta SCRIPT FILES...: date, host, driver, tools, sha256 of the sources
kit_meta() {
  local script=$1 M=$W/meta; shift
  {
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"; echo "uname: $(uname -a)"
    echo "script: $script sha256=$(sha256sum "$script" | cut -d' ' -f1)"
    echo "git: $(git -C "$REPO" rev-parse HEAD 2>/dev/null) $(git -C "$REPO" status --porcelain 2>/dev/null | wc -l) changed files"
    echo "sources_sha256:"; (cd "$REPO" && sha256sum "$@" | sed 's/^/  /')
  } >"$M/metadata.txt"
  "$NVCC" --version >"$M/nvcc-version.txt" 2>&1
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" --version >"$M/cuobjdump-version.txt" 2>&1
  if [ "$COMPILE_ONLY" = 0 ]; then
    timeout 30 nvidia-smi -q >"$M/nvidia-smi-q.txt" 2>&1
    timeout 30 nvidia-smi --query-gpu=name,driver_version,vbios_version,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,mig.mode.current --format=csv >"$M/nvidia-smi-query.csv" 2>&1
    [ -n "$NCU" ] && timeout 60 "$NCU" --version >"$M/ncu-version.txt" 2>&1
    [ -n "$NCU" ] && timeout 60 "$NCU" --query-metrics >"$M/ncu-query-metrics.txt" 2>&1
  fi
  for f in nvidia-smi-query.csv nvcc-version.txt ncu-version.txt; do
    [ -f "$M/$f" ] && { echo "--- $f"; cat "$M/$f"; }
  done >>"$M/metadata.txt"
  sumline "$KIT $(date -u +%Y-%m-%dT%H:%M:%SZ) driver=$(grep -m1 'Driver Version' "$M/nvidia-smi-q.txt" 2>/dev/null | sed 's/.*: *//') ncu=\"$(grep -m1 -i version "$M/ncu-version.txt" 2>/dev/null)\" nvcc=\"$(grep -m1 release "$M/nvcc-version.txt")\""
}

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

# kit_build PROG...: nvcc each program (in parallel), SASS and resource usage
kit_build() {
  local p pids=()
  for p in "$@"; do
    local cmd=("$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v -o "$BIN/$p" "$KDIR/$p.cu")
    printf '%s\n' "${cmd[*]}" >>"$CMDS"
    (timeout 300 "${cmd[@]}" >"$W/build/$p.ptxas.txt" 2>&1; echo $? >"$W/build/$p.rc") &
    pids+=($!)
  done
  wait "${pids[@]}"
  for p in "$@"; do
    if [ -x "$BIN/$p" ]; then
      [ -n "$CUOBJDUMP" ] && { "$CUOBJDUMP" -sass "$BIN/$p" >"$W/build/$p.sass" 2>&1
                               "$CUOBJDUMP" -res-usage "$BIN/$p" >"$W/build/$p.res-usage.txt" 2>&1; }
    else
      sumline "BUILD FAILED: $p (rc $(cat "$W/build/$p.rc"))"; tail -n 20 "$W/build/$p.ptxas.txt" | tee -a "$LOG"
    fi
  done
}

# kit_build_phase CHECKS REGEX PROG...: the build phase of a kit: kit_build,
# then build/sass-checks.txt (the function CHECKS, given the build folder,
# when cuobjdump is there; the ptxas register and spill lines of the
# functions matching REGEX), copied into the summary.
kit_build_phase() {
  local checks=$1 rx=$2; shift 2
  log "=== phase build"
  kit_build "$@"
  local B=$W/build
  {
    echo "# SASS checks (cuobjdump -sass)"
    if [ -z "$CUOBJDUMP" ]; then echo "SKIP SASS checks: no cuobjdump found"; else "$checks" "$B"; fi
    echo "## ptxas: registers and spills"
    grep -h -E 'Compiling|registers|spill' "$B"/*.ptxas.txt | paste - - - | sed -E 's/ptxas info +: //g; s/ +/ /g' | grep -E "$rx"
  } >"$B/sass-checks.txt" 2>&1
  cat "$B/sass-checks.txt" >>"$SUM"
  pack
}
