"""quickstart.py — every function of the smsim package on the repository's
small inputs, with the checks a notebook user would make by eye.  Run from
the repository root (ctest runs it: tests/cli_python.sh):

    PYTHONPATH=python python3 python/examples/quickstart.py

SPDX-License-Identifier: GPL-3.0-or-later
"""
import smsim

TRACE = "tests/data/study/ffma_ilp1.trace"     # dependent FFMAs, one warp per scheduler per block
SMALL = {"gpu.sm_count": 2}                    # a 2-SM H100: seconds, not minutes

# 1. one run: a row per kernel, Nsight Compute's metric names as columns
run = smsim.run(TRACE, config="h100", sets=SMALL)
print(run[["name", "smsp__issue_active.avg.per_cycle_active",
           "sm__warps_active.avg.pct_of_peak_sustained_active"]])
assert len(run) == 1 and run["name"][0] == "ffma_ilp1"
assert run.attrs["provenance"]["overrides"] == ["gpu.sm_count=2"]

# 2. a what-if sweep: the issue rate against the FMA latency, one block per
#    SM (one warp per scheduler: nothing hides the latency)
sw = smsim.sweep(TRACE, config="h100", sets=SMALL,
                 vary=["launch.blocks_per_sm=1", "pipes.fma.latency=4,8,16"])
print(sw[["pipes.fma.latency", "smsp__issue_active.avg.per_cycle_active"]])
ipc = sw["smsp__issue_active.avg.per_cycle_active"]
assert list(sw["pipes.fma.latency"]) == [4, 8, 16]
assert ipc.iloc[0] > 1.9 * ipc.iloc[1] > 1.9 * 1.9 * ipc.iloc[2], "twice the latency, half the rate"

# 3. saturation: resident warps against the issue rate
sat = smsim.saturate(TRACE, config="h100", sets=SMALL, jobs=2)
print(sat[["warps_per_sm", "value"]].to_string(index=False))
print("saturates at", sat.attrs["summary"]["saturation_warps_per_sm"], "warps per SM")
assert sat["value"].iloc[-1] >= sat["value"].iloc[0]

# 4. occupancy: one launch, and the register curve (the same column names)
one = smsim.occupancy("h100", threads=128, regs=32, smem_dynamic="24K")
curve = smsim.occupancy("h100", threads=128, regs=32, smem_dynamic="24K", vary="regs")
print(one[["blocks_per_sm", "limiter", "sm__maximum_warps_per_active_cycle_pct"]])
assert set(curve.columns) - {"regs"} <= set(one.columns)
assert curve.loc[curve["regs"] == 32, "blocks_per_sm"].item() == one["blocks_per_sm"][0]

# 5. validation against committed ncu measurements: a row per case
val = smsim.validate("tests/data/validate", manifest="tests/data/validate/manifest.tsv",
                     sets=SMALL, jobs=2)
print(val[["case", "blocks_per_sm", "err_pct.smsp__issue_active.avg.per_cycle_active"]])
assert len(val) == 5 and "mape_pct" in next(iter(val.attrs["summary"]["metrics"].values()))

# 6. an error is an exception with smsim's own message
try:
    smsim.run(TRACE, config="h100", sets={"gpu.sm_count": 0})
except smsim.SmsimError as e:
    print("error:", e)
else:
    raise AssertionError("gpu.sm_count=0 ran")
print("quickstart: ok")
