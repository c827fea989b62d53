#!/bin/bash
# gen-frontend-traces.sh — the front-end CALIBRATION set (issue #18, docs/calibration.md
# "Front end"): one native trace per launch that kit3 profiled with ncu in
# validate/data/h200/kit3-2026-12-01/icache/ and const/, converted by `smsim sass2trace`
# from the kit's SASS (build/calib_icache.sass.gz, build/calib_const.sass) with the
# launch's grid, block, registers and dynamic shared memory (one block per SM) and its
# loop trips (icache_line<N>: 32 / N trips of the outer loop, icache_loop 512; const_ffma:
# 2 passes), each checked against ncu's smsp__inst_executed.sum (--expect-insts); and a
# manifest for `smsim validate`:
#     bash validate/gen-frontend-traces.sh build/smsim /tmp/fe
#     build/smsim validate validate/data/h200/kit3-2026-12-01 --manifest /tmp/fe/manifest.tsv
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SMSIM=${1:?usage: gen-frontend-traces.sh SMSIM OUTDIR}
OUT=${2:?usage: gen-frontend-traces.sh SMSIM OUTDIR}
K=validate/data/h200/kit3-2026-12-01
mkdir -p "$OUT"
zcat "$K/build/calib_icache.sass.gz" >"$OUT/calib_icache.sass"
M="$OUT/manifest.tsv"
printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\n' >"$M"
# ncu's smsp__inst_executed.sum of row ID (icache-ncu.raw.csv, const-ncu.raw.csv)
insts() {
    python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1], newline="")))
c = r[0].index("smsp__inst_executed.sum")
print([x[c] for x in r[2:] if x[0] == sys.argv[2]][0].replace(",", ""))' "$1" "$2"
}
id=0
for v in line4k:1:32 line8k:2:16 line16k:4:8 line32k:8:4 loop:0:512; do
    IFS=: read -r name n trips <<<"$v"
    if [ "$n" = 0 ]; then fn='^_Z11icache_loop'; be=0x11b0; ex=0x12e0
    else fn="^_Z11icache_lineILi${n}E"; be=$(printf '0x%x' $((n * 0x10000 + 0x1b0))); ex=$(printf '0x%x' $((n * 0x10000 + 0x2e0))); fi
    for wps in 1 4 8; do
        t="$OUT/icache-$name-w$wps.trace"
        "$SMSIM" sass2trace --sass "$OUT/calib_icache.sass" --kernel "$fn" --grid 132 --block $((128 * wps)) \
            --regs 32 --smem-static 0 --smem-dynamic 232448 --trip "$be=$trips" --take 0xe0=0 --take "$ex=0" \
            --expect-insts "$(insts $K/icache/icache-ncu.raw.csv $id)" -o "$t"
        printf 'icache-%s-w%d\t1\t%s\t%s\t%d\n' "$name" "$wps" "$t" "$K/icache/icache-ncu.raw.csv" "$id" >>"$M"
        id=$((id + 1))
    done
done
id=0
for v in 0:0x12f0:0x1400 1:0x1ae0:0x1bf0 4:0x22e0:0x23f0 16:0x22e0:0x23f0 64:0x22e0:0x23f0; do
    IFS=: read -r s be ex <<<"$v"
    for w in 1 16; do
        t="$OUT/const-s$s-w$w.trace"
        "$SMSIM" sass2trace --sass "$K/build/calib_const.sass" --kernel "^_Z10const_ffmaILi${s}E" --grid 132 \
            --block $((32 * w)) --regs 29 --smem-static 0 --smem-dynamic 232448 --trip "$be=2" --take "$ex=0" \
            --expect-insts "$(insts $K/const/const-ncu.raw.csv $id)" -o "$t"
        printf 'const-s%d-w%d\t1\t%s\t%s\t%d\n' "$s" "$w" "$t" "$K/const/const-ncu.raw.csv" "$id" >>"$M"
        id=$((id + 1))
    done
done
