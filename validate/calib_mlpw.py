#!/usr/bin/env python3
"""calib_mlpw.py — what limits the loads an SM keeps in flight, smsim against
the H200's kit6 sweep (calibration, kit6-2026-12-04/mlpw; never validation).

The measured kernel, mlpw_read<WID, L> (validate/kernels/calib_mlpw.cu), keeps
L independent loads of WID = 4, 8 or 16 bytes per thread in flight at b
blocks of 128 threads per SM, one wave over 1 GiB.  This script converts each
variant's SASS (kit6-2026-12-04/build/calib_mlpw.sass, with its control bits:
ptxas interleaves the first sums with the loads of the wider trips, so a warp
keeps fewer than L loads in flight there, and only the SASS says how many)
into a native trace with `smsim sass2trace`, the loads' addresses the
kernel's, runs smsim on it and prints, next to what was measured: DRAM GB/s
(CUDA events, mlpw-time.csv) and ncu's lg_throttle and long_scoreboard per
issue (mlpw-ncu.raw.csv, launch order in mlpw-ncu-launches.csv).

  validate/calib_mlpw.py [--smsim build/smsim] [--set memory.l1_mshr_lines=N ...]
                         [--only WID,L,b;...] [--min-insts N] [--trips-div N] [--jobs N]

--trips-div N runs 1/N of the measured trips (a quick look; the ramp then
weighs more).

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
KIT = os.path.join(HERE, "data/h200/kit6-2026-12-04")
SASS = os.path.join(KIT, "build/calib_mlpw.sass")
SMS = 132
GHZ = 1.98  # SM clock under load (validate/data/h200/README.md)
LDG = {4: "LDG.E.CONSTANT ", 8: "LDG.E.64.CONSTANT ", 16: "LDG.E.128.CONSTANT "}
NCU = {"lg": "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
       "ls": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"}


def layout(wid, L):
    """PCs of mlpw_read<WID, L>: the guard, the loop's back edge, its loads, the STG."""
    pcs = sassctl.function_of(SASS, f"_Z9mlpw_readILi{wid}ELi{L}E")
    bra = [pc for pc, t in pcs if "BRA" in t and "@" in t]
    ldg = [pc for pc, t in pcs if t.startswith(LDG[wid])]
    stg = [pc for pc, t in pcs if t.startswith("STG.E ")]
    if len(bra) != 2 or len(ldg) != L or len(stg) != 1:
        raise SystemExit(f"calib_mlpw: unexpected SASS of mlpw_read<{wid},{L}> in {SASS}")
    return bra[0], bra[1], ldg, stg[0]


def trace(a, p, tmp):
    """Lane 0 of load k of trip t reads src[g + (t*L + k)*T] (WID bytes each),
    g = block*128 + warp*32, T = blocks*128 threads.  The loads are taken in
    SASS order for k: which of a trip's loads comes first moves nothing but
    the order of its lines."""
    wid, L, b = p["WID"], p["L"], p["b"]
    guard, back, ldg, stg = layout(wid, L)
    ann = [f"0x{pc:04x} pattern=coalesced footprint=1G "
           f"addr=0x1000000000+block*{128 * wid}+warp*{32 * wid}+(i0*{L}+{k})*blocks*{128 * wid}"
           for k, pc in enumerate(ldg)]
    ann.append(f"0x{stg:04x} pattern=coalesced footprint=blocks*512 addr=0x3000000000+block*512+warp*128")
    base = os.path.join(tmp, f"mlpw_{wid}_{L}_{b}")
    with open(base + ".annot", "w") as f:
        f.write("\n".join(ann) + "\n")
    trips = max(1, p["trips"] // a.trips_div)
    subprocess.run([a.smsim, "sass2trace", "--sass", SASS, "--kernel", f"^_Z9mlpw_readILi{wid}ELi{L}E",
                    "--grid", str(SMS * b), "--block", "128", "--regs", str(p["regs"]),
                    "--smem-static", "0", "--smem-dynamic", str(p["dyn"]),
                    "--trip", f"0x{back:04x}={trips}", "--take", f"0x{guard:04x}=0",
                    "--annot", base + ".annot", "-o", base + ".trace"],
                   check=True, capture_output=True, text=True)
    return base + ".trace", trips



def measured():
    """(WID, L, b) -> the point: timing (GB/s, trips, dyn, regs) and ncu's stalls."""
    pts = {}
    with open(os.path.join(KIT, "mlpw/mlpw-time.csv")) as f:
        for r in csv.DictReader(f):
            k = (int(r["WID"]), int(r["L"]), int(r["b"]))
            pts[k] = {"WID": k[0], "L": k[1], "b": k[2], "gbs": float(r["GBps_med"]),
                      "trips": int(r["trips"]), "dyn": int(r["dyn"]), "regs": int(r["regs"])}
    with open(os.path.join(KIT, "mlpw/mlpw-ncu-launches.csv")) as f:
        order = [(int(r["WID"]), int(r["L"]), int(r["b"])) for r in csv.DictReader(f)]
    with open(os.path.join(KIT, "mlpw/mlpw-ncu.raw.csv")) as f:
        rows = list(csv.reader(f))
    h, data = rows[0], rows[2:]
    if len(data) != len(order):
        raise SystemExit("calib_mlpw: %d ncu rows, %d launches" % (len(data), len(order)))
    for k, r in zip(order, data):
        if k in pts:
            for key, name in NCU.items():
                pts[k][key] = float(r[h.index(name)])
    return pts


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--only", default="", help="points 'WID,L,b;WID,L,b' (default: all)")
    ap.add_argument("--trips-div", type=int, default=1)
    ap.add_argument("--min-insts", type=int, default=0,
                    help="only points with at least N loads in flight per SM (4 warps x b x L)")
    a = ap.parse_args()
    pts = measured()
    keys = sorted(pts)
    if a.only:
        want = {tuple(int(x) for x in s.split(",")) for s in a.only.split(";") if s}
        keys = [k for k in keys if k in want]
    keys = [k for k in keys if 4 * k[1] * k[2] >= a.min_insts]
    tmp = tempfile.mkdtemp(prefix="calib_mlpw.")

    def one(k):
        p = pts[k]
        path, trips = trace(a, p, tmp)
        m = calibsim.metrics(a, path)
        by = SMS * p["b"] * 128 * p["WID"] * p["L"] * trips
        st = lambda s: m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0)
        return k, by / (m["sm__cycles_elapsed.avg"] / GHZ), st("lg_throttle"), st("long_scoreboard")

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, keys))
    errs, lgd, lse, onset = [], [], [], [0, 0]
    print("WID  L  b   GB/s ncu  smsim  err %   lg_throttle ncu  smsim   long_sb ncu  smsim")
    for (wid, L, b), gbs, lg, ls in res:
        p = pts[(wid, L, b)]
        e = 100.0 * (gbs - p["gbs"]) / p["gbs"]
        errs.append(abs(e))
        lgd.append(abs(lg - p["lg"]))
        lse.append(abs(100.0 * (ls - p["ls"]) / p["ls"]))
        onset[0] += (p["lg"] >= 1.0) == (lg >= 1.0)
        onset[1] += 1
        print(f"{wid:3d} {L:2d} {b:2d}  {p['gbs']:6.0f} {gbs:6.0f} {e:+6.1f}   {p['lg']:8.1f} {lg:7.1f}"
              f"   {p['ls']:8.1f} {ls:7.1f}")
    print(f"GB/s MAPE {sum(errs) / len(errs):.1f} % (max {max(errs):.1f}); lg_throttle mean |diff| "
          f"{sum(lgd) / len(lgd):.2f} per issue; throttled (>= 1 per issue) or not agrees on "
          f"{onset[0]} of {onset[1]}; long_scoreboard MAPE {sum(lse) / len(lse):.1f} %")


if __name__ == "__main__":
    sys.exit(main())
