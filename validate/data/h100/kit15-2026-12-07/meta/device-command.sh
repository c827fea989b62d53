# 2026-12-07 03:26 UTC (no kind named; an nvidia-h100-x1 came):
PHASES=meta,build,order,tlb BUDGET_S=300 bash validate/run-calib15.sh 2>&1 | tail -60
