# 2026-12-07 00:25 UTC (kind nvidia-h100-x1):
date -u; PHASES=meta,build,shfl,tlb BUDGET_S=330 bash validate/run-calib14.sh > $OUT/stdout.txt 2>&1; rc=$?; nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/stdout.txt; tail -60 $OUT/stdout.txt; exit $rc
