# 2026-12-07 05:06 UTC (no kind named; an nvidia-h100-x1 came):
PHASES=meta,build,order BUDGET_S=200 bash validate/run-calib16.sh 2>&1 | tail -45
