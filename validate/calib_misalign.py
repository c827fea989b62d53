#!/usr/bin/env python3
"""calib_misalign.py — warp loads that span two cache lines, smsim against the
H200's kit4 sweep (calibration, kit4-2026-12-02/misalign; never validation).

The measured kernel, mis_read (validate/kernels/calib_misalign.cu), keeps 8
independent 4-byte loads per thread in flight at b blocks of 128 threads per
SM; each warp load covers 128 contiguous bytes starting `off` floats past a
line boundary (off 0: one line, 4 sectors; off 1: two lines, 5 sectors, the
second line being the next warp's first).  foot=l2 re-reads a 16 MiB window
(L2-resident after its first pass), foot=dram streams 1 GiB once, foot=l1
(kit7-2026-12-06/misl1) re-reads a 16 KiB window all SMs share.  This
script converts mis_read's SASS (kit4-2026-12-02/build/calib_misalign.sass)
into a native trace with `smsim sass2trace`, the loads' addresses the
kernel's, runs smsim and prints, next to what was measured: GB/s of useful
bytes (CUDA events, misalign-time.txt), ncu's lg_throttle and long_scoreboard
per issue, L1 and L2 sector hit rates (misalign-ncu.raw.csv, launches in the
order of misalign-ncu.stdout's LAUNCH lines).

  validate/calib_misalign.py [--smsim build/smsim] [--set KEY=VALUE ...]
                             [--only foot,off,b;...] [--trips-div N] [--jobs N]

--trips-div N runs 1/N of the measured trips (a quick look).  It over-weights
the l2 footprint's first pass, which comes from DRAM: read the l2 points at
full trips.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "data/h200/kit4-2026-12-02")
SASS = os.path.join(KIT, "build/calib_misalign.sass")
# the l1 footprint was measured by kit7 (same kernel and build flags)
SOURCES = [(os.path.join(KIT, "misalign"), "misalign"),
           (os.path.join(HERE, "data/h200/kit7-2026-12-06/misl1"), "misl1")]
KERNEL = "_Z8mis_readPKfjjjPf"
SMS = 132
GHZ = 1.98  # SM clock under load (validate/data/h200/README.md)
L = 8
MASK = {"l2": (1 << 22) - 1, "dram": 0xffffffff, "l1": (1 << 12) - 1}  # calib_misalign.cu: floats
FOOT = {"l2": "16M", "dram": "1G", "l1": "16K"}
NCU = {"lg": "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
       "ls": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       "l1": "l1tex__t_sector_hit_rate.pct", "l2": "lts__t_sector_hit_rate.pct"}


def layout():
    """PCs of mis_read: the guard, the loop's back edge, its 8 loads, the STG."""
    pcs = sassctl.function_of(SASS, KERNEL)
    bra = [pc for pc, t in pcs if "BRA" in t and "@" in t]
    ldg = [pc for pc, t in pcs if t.startswith("LDG.E.CONSTANT ")]
    stg = [pc for pc, t in pcs if t.startswith("STG.E ")]
    if len(bra) != 2 or len(ldg) != L or len(stg) != 1:
        raise SystemExit(f"calib_misalign: unexpected SASS of mis_read in {SASS}")
    return bra[0], bra[1], ldg, stg[0]


def trace(a, p, tmp):
    """Lane 0 of load k of trip t reads src[((g + (t*8 + k)*T) & mask) + off],
    g = block*128 + warp*32, T = blocks*128 threads (a warp's 32 lanes never
    straddle the mask's wrap: it falls on a multiple of 32 floats)."""
    foot, off, b = p["foot"], p["off"], p["b"]
    guard, back, ldg, stg = layout()
    ann = [f"0x{pc:04x} pattern=coalesced footprint={FOOT[foot]} "
           f"addr=0x1000000000+(((block*128+warp*32+(i0*{L}+{k})*blocks*128)&{MASK[foot]})+{off})*4"
           for k, pc in enumerate(ldg)]
    ann.append(f"0x{stg:04x} pattern=coalesced footprint=blocks*512 addr=0x3000000000+block*512+warp*128")
    trips = max(1, p["trips"] // a.trips_div)
    path = calibsim.loop_trace(a, os.path.join(tmp, f"mis_{foot}_{off}_{b}"), SASS, KERNEL, SMS * b,
                               p["regs"], p["dyn"], back, guard, trips, ann)
    return path, trips


def measured():
    """(foot, off, b) -> the point: timing (GB/s, trips, dyn) and ncu's metrics."""
    pts, regs = {}, 0
    for d_, name in SOURCES:
        with open(os.path.join(d_, f"{name}-time.txt")) as f:
            for line in f:
                if line.startswith("INFO kernel=mis_read"):
                    regs = int(calibsim.kv(line)["regs"])
                if line.startswith("MIS "):
                    d = calibsim.kv(line)
                    k = (d["foot"], int(d["off"]), int(d["b"]))
                    pts[k] = {"foot": k[0], "off": k[1], "b": k[2], "gbs": float(d["GBps_med"]),
                              "trips": int(d["trips"]), "dyn": int(d["dyn"]), "regs": regs}
        ncu = calibsim.ncu_points(os.path.join(d_, f"{name}-ncu.stdout"),
                                  os.path.join(d_, f"{name}-ncu.raw.csv"),
                                  lambda d: (d["foot"], int(d["off"]), int(d["b"])), NCU)
        for k, v in ncu.items():
            pts[k].update(v)
    return pts


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--only", default="", help="points 'foot,off,b;...' (default: all)")
    ap.add_argument("--trips-div", type=int, default=1)
    a = ap.parse_args()
    pts = measured()
    keys = sorted(pts, key=lambda k: ({"l2": 0, "dram": 1, "l1": 2}[k[0]], k[1], k[2]))
    if a.only:
        want = set()
        for s in a.only.split(";"):
            if not s:
                continue
            f = s.split(",")
            if len(f) != 3 or f[0] not in MASK or not f[1].isdigit() or not f[2].isdigit():
                ap.error(f"--only: bad point '{s}' (want foot,off,b with foot l2, dram or l1)")
            want.add((f[0], int(f[1]), int(f[2])))
        keys = [k for k in keys if k in want]
    tmp = tempfile.mkdtemp(prefix="calib_misalign.")

    def one(k):
        p = pts[k]
        path, trips = trace(a, p, tmp)
        m = calibsim.metrics(a, path)
        by = SMS * p["b"] * 128 * 4 * L * trips
        st = lambda s: m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0)
        return k, by / (m["sm__cycles_elapsed.avg"] / GHZ), st("lg_throttle"), st("long_scoreboard"), \
            m.get(NCU["l1"], 0.0), m.get(NCU["l2"], 0.0)

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, keys))
    errs = []
    print("foot off  b   GB/s ncu  smsim  err %   lg_thr ncu smsim   long_sb ncu smsim   L1 % ncu smsim   L2 % ncu smsim")
    for (foot, off, b), gbs, lg, ls, l1, l2 in res:
        p = pts[(foot, off, b)]
        e = 100.0 * (gbs - p["gbs"]) / p["gbs"]
        errs.append(abs(e))
        print(f"{foot:4s} {off:3d} {b:2d}  {p['gbs']:6.0f} {gbs:6.0f} {e:+6.1f}   {p['lg']:6.1f} {lg:5.1f}"
              f"   {p['ls']:8.1f} {ls:5.1f}   {p['l1']:5.1f} {l1:5.1f}   {p['l2']:5.1f} {l2:5.1f}")
    print(f"GB/s MAPE {sum(errs) / len(errs):.1f} % (max {max(errs):.1f}) over {len(errs)} points")


if __name__ == "__main__":
    sys.exit(main())
