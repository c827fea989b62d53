#!/usr/bin/env bash
# device run 2026-12-04: kit6 (calib_mlpw) on the GPU; beside it (nice 19, 14 cores) the
# whole validation set (all 111 launches, no --max-insts limit) on this session's model
set -u
cd "$(dirname "$0")/.."
date -u > $OUT/when.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $OUT/when.txt 2>&1
S=build-dev/smsim
( timeout 520 nice -n 19 $S validate validate/data/h200 --format json --max-insts 0 --jobs 14 -o $OUT/validate-all.json > $OUT/validate-all.log 2>&1; echo "validate rc=$? at $(date -u)" >> $OUT/when.txt ) &
timeout 450 env BUDGET_S=400 bash validate/run-calib6.sh > $OUT/kit6-stdout.txt 2>&1
echo "kit6 rc=$? at $(date -u)" >> $OUT/when.txt
wait
echo "done at $(date -u)" >> $OUT/when.txt
