#!/usr/bin/env bash
# calib_l2cap.sh — the cap_l2 footprint sweep (kit-2026-12-01/cache,
# calib_cachecap.cu: 528 blocks of 256 threads read one footprint 8 times,
# grid-stride, 16 bytes a lane, L1 bypassed) as native traces, and smsim's
# L2 sector hit rate next to the H200's (docs/calibration.md "Two L2
# partitions").  Each thread reads the same float4s every round, as on the
# GPU; 50000 B of dynamic shared memory keep 4 blocks per SM (one wave) and
# leave L1 too small to hold a round.
#   bash validate/calib_l2cap.sh [SMSIM] [--set KEY=VALUE ...]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SMSIM=${1:-build/smsim}
shift || true
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
T=$((528 * 256))
# measured: cachecap-ncu.raw.csv, lts__t_sector_hit_rate.pct of cap_l2
declare -A GPU=([24]=82.51 [32]=81.70 [40]=73.78 [48]=52.35 [56]=3.94 [64]=0.68)
echo "MiB  H200  smsim"
for F in 24 32 40 48 56 64; do
    N=$((F * 1048576 / 16 / T))
    cat >"$TMP/cap.trace" <<EOT
kernel cap_l2 grid=(528,1,1) block=(256,1,1) regs=32 smem_static=0 smem_dynamic=50000 {
  loop 8 {
    loop $N {
      LDG.E.128 R4, [R2.64] addr=0x1000000000+(i1*$T+block*256+warp*32)*16
      IADD3 R2, R2, 0x10, RZ
      FADD R8, R4, R5
    }
  }
  EXIT
}
EOT
    v=$(SMSIM_NO_CAUTION=1 "$SMSIM" --config configs/h200.yaml "$@" "$TMP/cap.trace" --format json |
        python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["kernels"][0]["metrics"]["lts__t_sector_hit_rate.pct"])')
    printf '%3d  %5.1f  %5s\n' "$F" "${GPU[$F]}" "$v"
done
