# 2026-12-06 22:27 UTC (loaded, mix), then on the same warm machine 22:28 UTC (launch):
PHASES=meta,build,loaded,mix BUDGET_S=200 bash validate/run-calib13.sh > $OUT/stdout.txt 2>&1; rc=$?; nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/stdout.txt; tail -80 $OUT/stdout.txt; exit $rc
PHASES=meta,build,launch BUDGET_S=200 bash validate/run-calib13.sh > $OUT/stdout.txt 2>&1; rc=$?; nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/stdout.txt; tail -12 $OUT/stdout.txt; exit $rc
