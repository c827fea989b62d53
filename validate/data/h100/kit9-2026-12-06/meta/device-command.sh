export PATH=/usr/local/cuda/bin:$PATH; BUDGET_S=300 bash validate/run-calib9.sh 2>&1 | grep -v "^Compiling" | tail -80
