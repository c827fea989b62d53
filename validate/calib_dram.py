#!/usr/bin/env python3
"""calib_dram.py — DRAM bank count and peak rate from the H200's memory-level
parallelism sweep (calibration, kit-2026-12-01/mlp; never validation data).

The measured kernel, mlp_read<L> (validate/kernels/calib_mlp.cu), keeps L
independent LDG.E.128 per thread in flight at b blocks of 128 threads per SM.
This script writes the same loop as native traces (the SASS of
kit-2026-12-01/build/calib_mlp.sass: L loads, loop overhead, the FADD tree),
runs smsim on them with candidate values of memory.dram_banks and
memory.dram_gbps, and prints the achieved DRAM bandwidth next to the measured
one (mlp-time.csv, CUDA events, GB/s).  The traces walk 1/16 of the 1 GiB
buffer (the steady state is reached in a few trips; the footprint stays 1 GiB
so every load misses as on the GPU).

  validate/calib_dram.py [--smsim build/smsim] [--set memory.dram_banks=N ...]

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MLP = os.path.join(HERE, "data/h200/kit-2026-12-01/mlp/mlp-time.csv")
SMS = 132
SMEM_PER_SM = 233472  # bytes; padding so exactly b blocks fit (as the kit did)


def trace(L, b, trips):
    dyn = {1: 232448, 2: 115712, 3: 76800, 4: 57344, 6: 37888, 8: 28160, 12: 18432, 16: 13312}[b]
    out = [f"# mlp_read<{L}> at {b} blocks/SM (validate/calib_dram.py)",
           f"kernel mlp_read{L} grid=({SMS * b},1,1) block=(128,1,1) regs=32 smem_dynamic={dyn} {{",
           "  LDC R1, c[0x0][0x28]", "  S2R R5, SR_CTAID.X", "  S2R R20, SR_TID.X",
           "  LEA R2, R5, R20, 0x7", "  LDC R3, c[0x0][0xc]",
           f"  loop {trips} {{", "    LDC.64 R16, c[0x0][0x210]"]
    regs = [4 + 4 * k for k in range(L)]
    for k, r in enumerate(regs):
        out.append(f"    IMAD.WIDE.U32 R{40 + 2 * k}, R24, 0x10, R16")
        out.append(f"    LDG.E.128.CONSTANT R{r}, desc[UR4][R{40 + 2 * k}.64] pattern=coalesced footprint=1G")
    out += ["    IADD3 R23, R23, 0x1, RZ", "    LEA R24, R3, R24, 0x9",
            "    ISETP.GE.U32.AND P0, PT, R23, UR6, PT"]
    for r in regs:
        out.append(f"    FADD R{r}, R{r}, R{r + 1}")
        out.append(f"    FADD R{r + 2}, R{r + 2}, R{r + 3}")
        out.append(f"    FADD R{r}, R{r}, R{r + 2}")
        out.append(f"    FADD R21, R21, R{r}")
    out += ["    @!P0 BRA 0x120", "  }", "  LDC.64 R4, c[0x0][0x220]",
            "  STG.E desc[UR4][R2.64], R21", "  EXIT", "}"]
    return "\n".join(out) + "\n"


def run(smsim, cfg, sets, path):
    cmd = [smsim, "--config", cfg, "--format", "json", path]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = json.loads(p.stdout)["kernels"][0]["metrics"]
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smsim", default=os.path.join(ROOT, "build/smsim"))
    ap.add_argument("--config", default=os.path.join(ROOT, "configs/h200.yaml"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only-b", default="")
    a = ap.parse_args()
    meas = {}
    with open(MLP) as f:
        for r in csv.DictReader(f):
            meas[(int(r["L"]), int(r["b"]))] = (float(r["GBps_med"]), int(r["trips"]))
    keys = sorted(meas)
    if a.only_b:
        want = {int(x) for x in a.only_b.split(",")}
        keys = [k for k in keys if k[1] in want]
    tmp = tempfile.mkdtemp(prefix="calib_dram.")

    def one(k):
        L, b = k
        trips = max(16, meas[k][1] // 16)
        path = os.path.join(tmp, f"mlp_L{L}_b{b}.trace")
        with open(path, "w") as f:
            f.write(trace(L, b, trips))
        m = run(a.smsim, a.config, a.set, path)
        cyc = m["sm__cycles_elapsed.avg"]
        by = SMS * b * 128 * 16 * L * trips
        ghz = 1.98
        return k, by / (cyc / ghz), m.get("dram__bytes.sum", 0)

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, keys))
    errs = []
    print("L  b   measured GB/s  smsim GB/s  err %")
    for (L, b), gbs, _ in res:
        e = 100.0 * (gbs - meas[(L, b)][0]) / meas[(L, b)][0]
        errs.append(abs(e))
        print(f"{L}  {b:2d}  {meas[(L, b)][0]:10.0f}  {gbs:10.0f}  {e:+6.1f}")
    print(f"MAPE {sum(errs) / len(errs):.1f} %  max {max(errs):.1f} %")


if __name__ == "__main__":
    sys.exit(main())
