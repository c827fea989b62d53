BUDGET_S=300 bash validate/run-calib11.sh > $OUT/stdout.txt 2>&1; tail -3 $OUT/stdout.txt; nvidia-smi --query-gpu=name,driver_version --format=csv
