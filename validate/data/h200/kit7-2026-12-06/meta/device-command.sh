#!/usr/bin/env bash
# device run 2026-12-06 02:34 UTC (nvidia-h200, one call, 57 s): kit7 on the GPU
date -u > $OUT/when.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $OUT/when.txt 2>&1
timeout 540 env BUDGET_S=480 bash validate/run-calib7.sh > $OUT/kit7-stdout.txt 2>&1
echo "kit7 rc=$? at $(date -u)" >> $OUT/when.txt
