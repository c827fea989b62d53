#!/bin/bash
# cli_l2_partitions.sh — two L2 partitions through the whole engine (the
# requests' near partition crosses the parallel stage's packed form,
# sim/engine/eng_par.c, at every --threads).
# Data: a kernel of 2 blocks of one warp on a 2-SM H200 (gpu.sm_count 2,
# memory.l2_partition_run 1: block 0 on SM 0 near partition 0, block 1 on
# SM 1 near partition 1); each block reads the same 64 lines, one coalesced
# 128-byte load each.  By hand (docs/model.md, "Two L2 partitions"): per
# line, the partition that is its home misses once (4 lookups), the other
# misses once and then looks the line up at home (4 + 4 lookups), and the
# second reader hits near (4): 12 lookups, 4 hits, whatever the home, so
# lts__t_sector_hit_rate.pct is 33.33 exactly.  With one partition: 4
# misses then 4 hits, 50 %.  A request that reaches the ordered stage
# without its partition (all near 0) gives 8 or 12 lookups per line, and
# neither 33.33 nor 50.
# Usage: bash tests/cli_l2_partitions.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_l2_partitions.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
cat >"$TMP/k.trace" <<'EOT'
kernel twice grid=(2,1,1) block=(32,1,1) regs=32 smem_static=0 smem_dynamic=0 {
  loop 64 {
    LDG.E R4, [R2.64] addr=0x40000000+i0*128
    IADD3 R2, R2, 0x80, RZ
  }
  EXIT
}
EOT
hit() { # PARTS THREADS: the L2 sector hit rate, 2 decimals
    run --config configs/h200.yaml --set gpu.sm_count=2 --set memory.l2_partitions="$1" \
        --set memory.l2_partition_run=1 --threads "$2" "$TMP/k.trace" --format json
    [ "$rc" = 0 ] || { fail "$LAST: exit $rc: $(head -c 300 "$TMP/err")"; echo none; return; }
    python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["kernels"][0]["metrics"]["lts__t_sector_hit_rate.pct"])' "$TMP/out"
}
for th in 1 2; do
    got=$(hit 2 $th); [ "$got" = 33.33 ] || fail "two partitions, --threads $th: hit rate $got, expected 33.33"
    got=$(hit 1 $th); [ "$got" = 50.00 ] || fail "one partition, --threads $th: hit rate $got, expected 50.00"
done
[ "$fails" = 0 ] && echo "cli_l2_partitions: ok"
exit $((fails > 0))
