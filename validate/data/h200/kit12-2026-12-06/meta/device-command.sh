BUDGET_S=300 bash validate/run-calib12.sh > $OUT/stdout.txt 2>&1; rc=$?; nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/stdout.txt; tail -60 $OUT/stdout.txt; exit $rc
