export PATH=/usr/local/cuda/bin:$PATH; BUDGET_S=480 bash validate/run-calib8.sh 2>&1 | tail -60
