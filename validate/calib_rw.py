#!/usr/bin/env python3
"""calib_rw.py — DRAM read/write turnaround (memory.dram_mix_read,
memory.dram_mix_write) from the H200's mixed read/write streams (calibration,
kit4-2026-12-02/rw; never validation data: copy and vecadd, the 1:1 and 2:1
mixes, are validation kernels and are not in this kit).

The measured kernel, rw_mix<R,W> (validate/kernels/calib_rw.cu), loads R
float4 and stores W float4 per thread per trip, b blocks of 128 threads per
SM, 2 GiB moved.  This script converts each variant's SASS
(kit4-2026-12-02/build/calib_rw.sass) with `smsim sass2trace` into a native
trace with the kernel's addresses and trip count, runs smsim on it with the
given --set values, and prints the achieved GB/s (bytes read + written over
the simulated time at 1.98 GHz, the SM clock ncu measured) next to the
measured one (rw-time.txt, CUDA events, median of 5).

  validate/calib_rw.py [--smsim build/smsim] [--set memory.dram_mix_write=X ...]

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "data/h200/kit4-2026-12-02")
SASS = os.path.join(KIT, "build/calib_rw.sass")
TIME = os.path.join(KIT, "rw/rw-time.txt")
GHZ = 1.98


def points():
    out = []
    for line in open(TIME):
        if line.startswith("RW "):
            v = dict(kv.split("=", 1) for kv in line.split()[1:])
            out.append({k: v[k] for k in ("R", "W", "b", "grid", "dyn", "trips", "GBps_med",
                                          "read_bytes", "write_bytes")})
    return out


def layout(R, W):
    """PCs of rw_mix<R,W>: the guard, the loop's branch, its LDG/STG.128, the final STG."""
    pcs = sassctl.function_of(SASS, f"_Z6rw_mixILi{R}ELi{W}E")
    bra = [(pc, t) for pc, t in pcs if "BRA" in t and "@" in t]
    guard, back = bra[0][0], bra[1][0]
    ldg = [pc for pc, t in pcs if t.startswith("LDG.E.128")]
    stg = [pc for pc, t in pcs if t.startswith("STG.E.128")]
    fin = [pc for pc, t in pcs if t.startswith("STG.E ")][0]
    return guard, back, ldg, stg, fin


def annot(R, W):
    """Lane 0's addresses: src/dst[g + (t*R + k)*T], g = block*128 + warp*32, T = blocks*128."""
    guard, back, ldg, stg, fin = layout(R, W)
    lines = []
    for k, pc in enumerate(ldg):
        lines.append(f"0x{pc:04x} pattern=coalesced footprint=2G "
                     f"addr=0x1000000000+block*2048+warp*512+(i0*{R}+{k})*blocks*2048")
    for k, pc in enumerate(stg):
        lines.append(f"0x{pc:04x} pattern=coalesced footprint=2G "
                     f"addr=0x2000000000+block*2048+warp*512+(i0*{W}+{k})*blocks*2048")
    lines.append(f"0x{fin:04x} pattern=coalesced footprint=blocks*512 addr=0x3000000000+block*512+warp*128")
    return guard, back, "\n".join(lines) + "\n"


def one(a, p, tmp):
    R, W, b = int(p["R"]), int(p["W"]), int(p["b"])
    guard, back, ann = annot(R, W)
    base = os.path.join(tmp, f"rw{R}{W}_b{b}")
    with open(base + ".annot", "w") as f:
        f.write(ann)
    subprocess.run([a.smsim, "sass2trace", "--sass", SASS, "--kernel", f"^_Z6rw_mixILi{R}ELi{W}E",
                    "--grid", p["grid"], "--block", "128", "--regs", "32", "--smem-static", "0",
                    "--smem-dynamic", p["dyn"], "--trip", f"0x{back:04x}={p['trips']}",
                    "--take", f"0x{guard:04x}=0", "--annot", base + ".annot", "-o", base + ".trace"],
                   check=True, capture_output=True, text=True)
    m = calibsim.metrics(a, base + ".trace", ["--carveout", "100", "--quiet"])
    by = float(p["read_bytes"]) + float(p["write_bytes"])
    return p, by / (m["sm__cycles_elapsed.avg"] / GHZ)


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--only-b", default="", help="comma-separated residencies to run (default all)")
    a = ap.parse_args()
    pts = points()
    if a.only_b:
        keep = set(a.only_b.split(","))
        pts = [p for p in pts if p["b"] in keep]
    tmp = tempfile.mkdtemp(prefix="calib_rw.")
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda p: one(a, p, tmp), pts))
    errs = []
    print("R:W  b   measured GB/s  smsim GB/s  err %")
    for p, gbs in res:
        meas = float(p["GBps_med"])
        e = 100.0 * (gbs - meas) / meas
        errs.append(abs(e))
        print(f"{p['R']}:{p['W']}  {int(p['b']):2d}  {meas:10.0f}  {gbs:10.0f}  {e:+6.1f}")
    print(f"MAPE {sum(errs) / len(errs):.1f} %  max {max(errs):.1f} %")


if __name__ == "__main__":
    sys.exit(main())
