#!/bin/bash
# accelsim_rss.sh — peak RSS of `smsim` on Accel-Sim traces of growing size
# (docs/accelsim.md, "Memory").  Not part of ctest: it writes up to ~1 GB.
# Two series, both exported from native traces with `smsim export --accelsim`,
# each growing the file 16x; RSS must stay flat in both (the reader holds a
# few KB per running warp, not the blocks' instructions):
#   grid:  more waves of thread blocks of a fixed size (an H100 holds 132 SMs
#          x 16 of these blocks = 2112, 8448 warps, at once);
#   block: longer warps (bigger blocks), one wave;
# and one point read from .xz (decoded into an unlinked temporary file).
# cpu_s is user + system time of the whole run (reading, parsing, engine).
# Usage: bash tests/bench/accelsim_rss.sh /path/to/smsim [SCALE]   (repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SMSIM=${1:?usage: accelsim_rss.sh /path/to/smsim [SCALE]}
SCALE=${2:-1}
CFG=configs/h100.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

gen() { # gen GRID TRIPS > native trace
    cat <<TR
kernel bench grid=($1,1,1) block=(128,1,1) regs=32 {
  S2R R0, SR_TID.X
  LDC.64 R6, c[0x0][0x218]
  LDC.64 R8, c[0x0][0x210]
  loop $2 {
    IMAD.WIDE R4, R0, 0x10, R8
    LDG.E.128 R12, [R4.64]
    IMAD.WIDE R2, R0, 0x10, R6
    FFMA R12, R12, R12, R13
    IADD3 R0, R0, 0x1000, RZ
    STG.E.128 [R2.64], R12
    LDG.E R16, [R4.64] pattern=random
    BRA 0x40
  }
  EXIT
}
TR
}

printf '%-6s %8s %6s %10s %12s %12s %8s %8s\n' series grid trips trace_MB warp_insts peak_RSS_MB wall_s cpu_s
point() { # point SERIES GRID TRIPS [xz]
    gen "$2" "$3" >"$TMP/n.trace"
    rm -rf "$TMP/x"
    "$SMSIM" export --accelsim "$TMP/x" "$TMP/n.trace" >/dev/null
    local mb insts rss t0 t1 cpu
    mb=$(du -m "$TMP/x/kernel-1.traceg" | cut -f1)
    if [ "${4:-}" = xz ]; then
        xz -T2 -1 "$TMP/x/kernel-1.traceg"
        echo kernel-1.traceg.xz >"$TMP/x/kernelslist.g"
    fi
    t0=$(date +%s.%N)
    TMPDIR=$TMP /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$SMSIM" --config "$CFG" \
        "$TMP/x/kernelslist.g" --format csv >"$TMP/out"
    t1=$(date +%s.%N)
    rss=$(( $(cut -d' ' -f1 "$TMP/rss") / 1024 ))
    cpu=$(awk '{print $2 + $3}' "$TMP/rss")
    insts=$(python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); print(r[2][r[0].index("smsp__inst_executed.sum")])' "$TMP/out")
    printf '%-6s %8s %6s %10s %12s %12s %8.1f %8.1f\n' "$1${4:+-$4}" "$2" "$3" "$mb" "$insts" \
        "$rss" "$(echo "$t1 - $t0" | bc)" "$cpu"
}
for g in 2112 8448 33792; do point grid $((g * SCALE)) 8; done
for n in 8 32 128; do point block 2112 $((n * SCALE)); done
point grid $((8448 * SCALE)) 8 xz
