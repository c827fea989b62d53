BUDGET_S=480 bash validate/run-calib10.sh > $OUT/stdout.txt 2>&1; tail -5 $OUT/stdout.txt; nvidia-smi --query-gpu=name,driver_version --format=csv
