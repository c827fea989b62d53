#!/usr/bin/env python3
"""calib_dram.py — DRAM bank count and peak rate from the H200's memory-level
parallelism sweep (calibration, kit-2026-12-01/mlp; never validation data).

The measured kernel, mlp_read<L> (validate/kernels/calib_mlp.cu), keeps L
independent LDG.E.128 per thread in flight at b blocks of 128 threads per SM.
This script converts each variant's SASS (kit-2026-12-01/build/calib_mlp.sass,
with its control bits) into a native trace with `smsim sass2trace`, the
loads' addresses the kernel's,
runs smsim on them with candidate values of memory.dram_banks and
memory.dram_gbps, and prints the achieved DRAM bandwidth next to the measured
one (mlp-time.csv, CUDA events, GB/s).  Each trace makes the measured
launch's trips over the 1 GiB buffer (a sixteenth of them reads up to
18 % low at 16 blocks/SM: 16 trips are mostly ramp).

  validate/calib_dram.py [--smsim build/smsim] [--set memory.dram_banks=N ...]

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
MLP = os.path.join(HERE, "data/h200/kit-2026-12-01/mlp/mlp-time.csv")
SMS = 132


SASS = os.path.join(HERE, "data/h200/kit-2026-12-01/build/calib_mlp.sass")
DYN = {1: 232448, 2: 115712, 3: 76800, 4: 57344, 6: 37888, 8: 28160, 12: 18432, 16: 13312}


def layout(L):
    """PCs of mlp_read<L>: the guard, the loop's back edge, its LDG.E.128s, the final STG."""
    pcs = sassctl.function_of(SASS, f"_Z8mlp_readILi{L}E")
    bra = [pc for pc, t in pcs if "BRA" in t and "@" in t]
    ldg = [pc for pc, t in pcs if t.startswith("LDG.E.128")]
    stg = [pc for pc, t in pcs if t.startswith("STG.E ")]
    if len(bra) != 2 or len(ldg) != L or len(stg) != 1:
        raise SystemExit(f"calib_dram: unexpected SASS of mlp_read<{L}> in {SASS}")
    return bra[0], bra[1], ldg, stg[0]


def trace(a, L, b, trips, tmp):
    """mlp_read<L> at b blocks/SM from its SASS (smsim sass2trace): lane 0 of
    load k of trip t reads src[g + (t*L + k)*T], g = block*128 + warp*32,
    T = blocks*128 threads (16 bytes each)."""
    guard, back, ldg, stg = layout(L)
    ann = [f"0x{pc:04x} pattern=coalesced footprint=1G "
           f"addr=0x1000000000+block*2048+warp*512+(i0*{L}+{k})*blocks*2048"
           for k, pc in enumerate(ldg)]
    ann.append(f"0x{stg:04x} pattern=coalesced footprint=blocks*512 addr=0x3000000000+block*512+warp*128")
    base = os.path.join(tmp, f"mlp_L{L}_b{b}")
    with open(base + ".annot", "w") as f:
        f.write("\n".join(ann) + "\n")
    subprocess.run([a.smsim, "sass2trace", "--sass", SASS, "--kernel", f"^_Z8mlp_readILi{L}E",
                    "--grid", str(SMS * b), "--block", "128", "--regs", "32", "--smem-static", "0",
                    "--smem-dynamic", str(DYN[b]), "--trip", f"0x{back:04x}={trips}",
                    "--take", f"0x{guard:04x}=0", "--annot", base + ".annot", "-o", base + ".trace"],
                   check=True, capture_output=True, text=True)
    return base + ".trace"


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
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
        trips = meas[k][1]  # the measured launch's trips: shorter runs are mostly ramp
        m = calibsim.metrics(a, trace(a, L, b, trips, tmp))
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
