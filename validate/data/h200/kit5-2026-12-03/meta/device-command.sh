#!/usr/bin/env bash
# device run 2026-12-03: kit5 on the GPU; beside it (nice 19) DRAM-model sweeps on the host's cores
set -u
cd "$(dirname "$0")/.."
date -u > $OUT/when.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $OUT/when.txt 2>&1
S=build-static/smsim
sweep() {
  for cfg in "16 4800" "16 4700" "8 4800"; do set -- $cfg
    echo "=== rw banks=1024 write_queue=$1 gbps=$2"
    python3 validate/calib_rw.py --smsim $S --jobs 14 --set memory.dram_banks=1024 --set memory.dram_write_queue=$1 --set memory.dram_gbps=$2
  done
  for g in 4600 4800; do
    echo "=== mlp banks=1024 gbps=$g"
    python3 validate/calib_dram.py --smsim $S --jobs 14 --set memory.dram_banks=1024 --set memory.dram_gbps=$g
  done
  echo "=== loaded banks=1024 gbps=4800"
  python3 validate/calib_loaded.py --smsim $S --jobs 14 --set memory.dram_banks=1024 --set memory.dram_gbps=4800
}
( timeout 480 nice -n 19 bash -c "$(declare -f sweep); S=$S; sweep" > $OUT/sweeps.txt 2>&1; echo "sweeps rc=$? at $(date -u)" >> $OUT/when.txt ) &
timeout 450 env BUDGET_S=400 bash validate/run-calib5.sh > $OUT/kit5-stdout.txt 2>&1
echo "kit5 rc=$? at $(date -u)" >> $OUT/when.txt
wait
echo "done at $(date -u)" >> $OUT/when.txt
