#!/usr/bin/env bash
# host-test.sh: CPU-side test of the tracer's host logic (test/host_sim.cpp), no GPU needed:
#   bash validate/tracer/test/host-test.sh [CUDA] [CS_INC]
# 1. regex matches the test kernel: module saved, launch 0 traced (records from check_trace's
#    hand-built trace), launch 1 dormant; the .smev passes check_trace --expect trace_test;
# 2. regex matching nothing: no module saved, nothing traced; 3. overflow.
# SMSIM_TRACE_NO_FUNCATTR=1: the handles are fake, the real driver (on a GPU machine) must not see them.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUDA=${1:-/usr/local/cuda}
CS_INC=${2:-$CUDA/compute-sanitizer/include}
W=$(mktemp -d)
fail() { echo "host-test: FAIL: $*"; exit 1; }
"$CUDA/bin/nvcc" -arch=sm_90 -cubin -o "$W/tt.cubin" "$HERE/test/trace_test.cu" || fail "nvcc"
g++ -std=c++17 -O1 -Wall -I"$CS_INC" -I"$CUDA/include" -o "$W/host_sim" "$HERE/test/host_sim.cpp" "$HERE/smsim_tracer.cpp" -ldl ||
  fail "building host_sim"
python3 -c "
import sys; sys.path.insert(0, '$HERE/test')
import test_check_trace as t
good = [t.warp_records(w) for w in range(4)]
open('$W/recs.bin', 'wb').write(b''.join(t.interleave(good)))
d = '$W'
with open(d + '/module.sass', 'w') as f:
    f.write('\n\tcode for sm_90\n\t\tFunction : %s\n' % t.KERNEL)
    for pc, ins in sorted(t.SASS.items()):
        f.write('        /*%04x*/                   %s ;  /* 0x000000000000 */\n' % (pc, ins))
" || fail "writing records"
touch "$W/patch.fatbin"
mkdir -p "$W/o1" "$W/o2"
SMSIM_TRACE_NO_FUNCATTR=1 SMSIM_TRACE_DIR=$W/o1 SMSIM_TRACE_KERNEL='trace_test\(' SMSIM_TRACE_LAUNCHES=0:1 SMSIM_TRACE_PATCH=$W/patch.fatbin \
  "$W/host_sim" "$W/tt.cubin" "$W/recs.bin" 2 > "$W/o1.log" 2>&1 || { cat "$W/o1.log"; fail "host_sim run 1"; }
grep -q 'launch 0: callback data traced' "$W/o1.log" || { cat "$W/o1.log"; fail "launch 0 not traced"; }
grep -q 'launch 1: callback data dormant' "$W/o1.log" || { cat "$W/o1.log"; fail "launch 1 not dormant"; }
cmp -s "$W/tt.cubin" "$W/o1/module-0.cubin" || fail "module-0.cubin differs from the loaded cubin"
[ ! -e "$W/o1/launch-1.smev" ] || fail "launch 1 was written"
grep -q '^shmem dynamic = 128$' "$W/o1/launch-0.smev" || fail "dynamic smem not taken from the launch call"
grep -q '^pc base = 0x7f1234560000$' "$W/o1/launch-0.smev" || fail "pc base"
[ "$(wc -l < "$W/o1/launches.tsv")" = 2 ] || fail "launches.tsv should have a header and one row"
awk -F'\t' 'NR == 2 && ($1 != 0 || $3 != "module-0.cubin" || $4 != "launch-0.smev" || $5 != "2,1,1" || $10 != 100 || $12 != 0) { exit 1 }' \
  "$W/o1/launches.tsv" || { cat "$W/o1/launches.tsv"; fail "launches.tsv row"; }
python3 "$HERE/test/check_trace.py" "$W/o1/launch-0.smev" --sass "$W/module.sass" --expect trace_test > "$W/check.txt" ||
  { cat "$W/check.txt"; fail "check_trace on the host-simulated trace"; }
SMSIM_TRACE_NO_FUNCATTR=1 SMSIM_TRACE_DIR=$W/o2 SMSIM_TRACE_KERNEL='no_such_kernel' SMSIM_TRACE_PATCH=$W/patch.fatbin \
  "$W/host_sim" "$W/tt.cubin" "$W/recs.bin" 1 > "$W/o2.log" 2>&1 || { cat "$W/o2.log"; fail "host_sim run 2"; }
grep -q 'launch 0: callback data none' "$W/o2.log" || { cat "$W/o2.log"; fail "unmatched module was patched or traced"; }
[ -z "$(ls "$W/o2")" ] || fail "files written for a regex matching nothing: $(ls "$W/o2")"
# 3. overflow: 70 copies of the records (1.1 MiB) into a 1 MiB buffer
python3 -c "open('$W/big.bin', 'wb').write(open('$W/recs.bin', 'rb').read() * 70)"
mkdir -p "$W/o3"
SMSIM_TRACE_NO_FUNCATTR=1 SMSIM_TRACE_DIR=$W/o3 SMSIM_TRACE_KERNEL='trace_test' SMSIM_TRACE_BUFFER_MB=1 SMSIM_TRACE_PATCH=$W/patch.fatbin \
  "$W/host_sim" "$W/tt.cubin" "$W/big.bin" 1 > "$W/o3.log" 2>&1 || { cat "$W/o3.log"; fail "host_sim run 3"; }
grep -q '^overflow = 1$' "$W/o3/launch-0.smev" || fail "overflow not flagged"
python3 "$HERE/test/check_trace.py" "$W/o3/launch-0.smev" > "$W/check3.txt" || { cat "$W/check3.txt"; fail "overflowed trace unreadable"; }
n=$(sed -n 's/^records = //p' "$W/o3/launch-0.smev")
[ "$n" -gt 6000 ] && [ "$n" -lt 7000 ] || fail "overflowed trace has $n records, expected the ~6.3k that fit in 1 MiB"
echo "host-test: ok (module filter, launch range, dormant launch, header, launches.tsv, records walk, overflow)"
rm -rf "$W"
