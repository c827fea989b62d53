#!/bin/bash
# cli_calibration.sh — the configs cannot drift from the calibration data.
#
#  1. validate/calibrate.py re-derives every calibrated timing key from the
#     committed H200 measurements (deterministically: two runs, same bytes);
#  2. configs/h200.yaml (and configs/h100.yaml for the keys the two GPUs
#     share) hold exactly those values, as the simulator loads them, and each
#     such line cites the calibration data; no other line claims to;
#  3. the engine, run with configs/h200.yaml on one-warp dependent chains,
#     gives exactly the cycles per instruction calibrate.py assumed when it
#     subtracted the engine's own cycles from the measurement (so a change in
#     how the engine counts load time shows up here, not as a silent bias);
#     likewise for 32-lane (divergent) chases at L1, L2 and DRAM (DRAM's
#     latencies are draws: within 2 % of the mean), and for
#     FFMA and IMAD throughput with 8 warps per SMSP (the fma datapaths).
#
# Needs python3 (standard library only); without it the test is skipped (77).
# Usage (from the repo root): bash tests/cli_calibration.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_calibration.sh /path/to/smsim}
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found (needed to run validate/calibrate.py)"
    exit 77
fi
KIT=validate/data/h200/kit-2026-11-29
CITE="$KIT/calib/"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# --- 1. derive ---------------------------------------------------------------
if ! python3 validate/calibrate.py "$KIT" >"$T/r1" 2>"$T/err"; then
    echo "FAIL: calibrate.py: $(cat "$T/err")"
    exit 1
fi
python3 validate/calibrate.py "$KIT" >"$T/r2" 2>&1
cmp -s "$T/r1" "$T/r2" || fail "calibrate.py is not deterministic"
# the report ends with the values ("config key value", "engine check cycles")
grep -E '^(h200|h100) [a-z0-9_.]+ [0-9.]+$|^engine [a-z0-9_]+ [0-9]+$' "$T/r1" >"$T/values"
grep -q "source:     $CITE[a-z0-9-]*\.txt:[0-9]" "$T/r1" \
    || fail "calibrate.py report names no calibration file:line"
# never reads validation data
grep -Eq "$KIT/(valid|timing|source)/" "$T/r1" && fail "calibrate.py report cites validation data"
python3 validate/calibrate.py "$KIT/nonexistent" >"$T/out" 2>"$T/err" \
    && fail "calibrate.py accepted a missing kit"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "calibrate.py error is not one line: $(cat "$T/err")"
[ -s "$T/out" ] && fail "calibrate.py printed on stdout for a missing kit"

n200=$(grep -c '^h200 ' "$T/values")
n100=$(grep -c '^h100 ' "$T/values")
[ "$n200" -ge 15 ] || fail "only $n200 calibrated h200 keys (expected >= 15)"
[ "$n100" -ge 12 ] || fail "only $n100 calibrated h100 keys (expected >= 12)"

# --- 2. configs hold the derived values -------------------------------------
# flatten FILE: "section.key value comment" / "section.sub.key value comment"
# for every value line of a YAML file in the configs' layout.
flatten() {
    awk '{
        line = $0; c = ""
        i = index(line, " #")
        if (i > 0) { c = substr(line, i + 2); line = substr(line, 1, i - 1) }
        sub(/[ \t]+$/, "", line)
        if (line ~ /^[A-Za-z_0-9]+:$/) { s1 = substr(line, 1, length(line) - 1); s2 = ""; next }
        if (line ~ /^  [A-Za-z_0-9]+:$/) { s2 = substr(line, 3, length(line) - 3); next }
        if (line ~ /^ +[A-Za-z_0-9]+: /) {
            k = line; sub(/^ +/, "", k); v = k
            sub(/:.*/, "", k); sub(/^[^:]*: */, "", v)
            key = (line ~ /^    /) ? s1 "." s2 "." k : s1 "." k
            gsub(/ /, "_", c)
            print key, v, c
        }
    }' "$1"
}

for cfg in h200 h100; do
    "$SMSIM" config --config "configs/$cfg.yaml" >"$T/$cfg.printed" 2>"$T/err" \
        || { fail "smsim config $cfg: $(cat "$T/err")"; continue; }
    flatten "$T/$cfg.printed" >"$T/$cfg.loaded"      # what the simulator loaded
    flatten "configs/$cfg.yaml" >"$T/$cfg.raw"      # the file, with its comments
    while read -r c key want; do
        [ "$c" = "$cfg" ] || continue
        got=$(awk -v k="$key" '$1 == k { print $2 }' "$T/$cfg.loaded")
        if [ -z "$got" ]; then
            fail "$cfg: $key not in the loaded configuration"
            continue
        fi
        awk -v a="$got" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0) }' \
            || fail "configs/$cfg.yaml: $key is $got, the calibration data give $want (python3 validate/calibrate.py $KIT)"
        comment=$(awk -v k="$key" '$1 == k { print $3 }' "$T/$cfg.raw")
        case "$comment" in
        *"$CITE"*calibrate.py*) ;;
        *) fail "configs/$cfg.yaml: $key does not cite $CITE... and validate/calibrate.py" ;;
        esac
    done <"$T/values"
    # no line claims calibration that calibrate.py does not derive
    while read -r key _ comment; do
        case "$comment" in
        *"$CITE"*)
            grep -q "^$cfg $key " "$T/values" \
                || fail "configs/$cfg.yaml: $key cites $CITE but calibrate.py derives no $cfg value for it" ;;
        esac
    done <"$T/$cfg.raw"
done

# --- 3. the engine reproduces the measured chains -----------------------------
# chain NAME LOOP: a trace of LOOP trips; one warp running two dependent
# instructions per trip, or (the *_tput_w32 checks) 32 warps (8 per SMSP)
# each running 4 independent chains (8 instructions per trip: the pipe, not
# the latency, bounds them).  ipt NAME: instructions per trip.
ipt() { case "$1" in *_tput_w32) echo 8 ;; *) echo 2 ;; esac; }
chain() {
    local body body2='' smem=0 threads=32
    case "$1" in
    ffma_chain)  body='FFMA R12, R12, R10, R11' ;;
    imad_chain)  body='IMAD R12, R12, R10, R11' ;;
    iadd3_chain) body='IADD3 R12, R12, R10, RZ' ;;
    dfma_chain)  body='DFMA R12, R12, R10, R14' ;;
    mufu_chain)  body='MUFU.EX2 R12, -R12' ;;
    lds_chain)   body='LDS R12, [R12]'; smem=4096 ;;
    ffma_tput_w32|imad_tput_w32)
        local op=FFMA
        [ "$1" = imad_tput_w32 ] && op=IMAD
        threads=1024
        body="$op R12, R12, R10, R11
    $op R14, R14, R10, R11
    $op R16, R16, R10, R11
    $op R18, R18, R10, R11" ;;
    # L1: a walk over the 128 lines of 16 KiB, one line per load (32
    # lanes: 32 lines 128 bytes apart), as the warmed calibration chase;
    # the 256 trips more of the longer trace all hit (caches have tags)
    l1_chase_1lane)   body='LDG.E.64 R12, desc[UR6][R12.64] addr=i0%64*256 mask=0x1'
                      body2='LDG.E.64 R12, desc[UR6][R12.64] addr=i0%64*256+128 mask=0x1' ;;
    l1_chase_32lanes) body='LDG.E.64 R12, desc[UR6][R12.64] stride=128 addr=i0%2*8192'
                      body2='LDG.E.64 R12, desc[UR6][R12.64] stride=128 addr=i0%2*8192+4096' ;;
    l2_chase_1lane)   body='LDG.E.64 R12, desc[UR6][R12.64] pattern=random mask=0x1' ;;
    l2_chase_32lanes) body='LDG.E.64 R12, desc[UR6][R12.64] pattern=random' ;;
    # a stride of 4 KiB over 2 GiB: every lane its own line, a stream that
    # misses L1 and L2 (the windowed DRAM chase)
    dram_chase_1lane)   body='LDG.E.64 R12, desc[UR6][R12.64] stride=4096 footprint=2G mask=0x1' ;;
    dram_chase_32lanes) body='LDG.E.64 R12, desc[UR6][R12.64] stride=4096 footprint=2G' ;;
    *) return 1 ;;
    esac
    printf 'kernel %s grid=(1,1,1) block=(%d,1,1) regs=32 smem_static=%d smem_dynamic=0 {\n' "$1" "$threads" "$smem"
    printf '  loop %d {\n    %s\n    %s\n  }\n  EXIT\n}\n' "$2" "$body" "${body2:-$body}"
}
# elapsed TRACE: sm__cycles_elapsed.avg of the run
elapsed() {
    "$SMSIM" --config configs/h200.yaml "$1" --format csv 2>"$T/err" | grep -v '^# ' | awk -F'","' '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sm__cycles_elapsed.avg") col = i }
        NR == 3 && col { v = $col; gsub(/"/, "", v); print v }'
}
checked=0
while read -r tag name cyc; do
    [ "$tag" = engine ] || continue
    if ! chain "$name" 256 >"$T/a.trace"; then
        fail "no engine check written for '$name'"
        continue
    fi
    chain "$name" 512 >"$T/b.trace"
    a=$(elapsed "$T/a.trace")
    b=$(elapsed "$T/b.trace")
    if [ -z "$a" ] || [ -z "$b" ]; then
        fail "engine check $name: smsim failed: $(cat "$T/err")"
        continue
    fi
    # 256 more trips in b, ipt instructions each: the difference is their cost
    n=$((256 * $(ipt "$name")))
    per=$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.3f", (b - a) / n }')
    # DRAM latencies are draws (memory.dram_latency_spread): the chases
    # check their mean, within 2 % over the 512 loads
    tol=0
    case "$name" in dram_chase_*) tol=0.02 ;; esac
    awk -v p="$per" -v c="$cyc" -v t="$tol" 'BEGIN { d = p - c; if (d < 0) d = -d; exit !(d <= t * c) }' \
        || fail "engine check $name: $per cycles per instruction, calibrate.py assumed $cyc"
    checked=$((checked + 1))
done <"$T/values"
[ "$checked" -ge 14 ] || fail "only $checked engine checks ran (expected 14)"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok: $n200 h200 and $n100 h100 values match the calibration data; $checked engine checks"
