#!/usr/bin/env python3
"""calib_mlps.py — do a warp's DRAM loads wait as independent latency draws
when they are close together?  smsim against kit10's calib_mlps sweep
(calibration, never validation).

The measured kernel, mlps_read<L> (validate/kernels/calib_mlps.cu), keeps L
one-line loads (LDG.E) per thread in flight at b blocks of 128 threads per
SM, one wave over 1 GiB; a warp's L loads are G * 128 bytes apart (groups of
G consecutive warps share a region of L * G lines; G = all warps is
calib_mlpw's layout).  This script converts each variant's SASS
(KIT/build/calib_mlps.sass) into a native trace with `smsim sass2trace`,
the loads' addresses the kernel's, runs smsim on it and prints DRAM GB/s
(CUDA events, KIT/mlps/mlps-time.csv) next to what was measured, and the
speed-up over the far layout (G = all) at the same L and b, measured and
simulated: kit10 ran on an H100, whose DRAM loads take the H200's time at
low residency (validate/data/h100/README.md) but whose peak is lower, so
the speed-ups at b <= 2 are what calibrates the H200's keys.

  validate/calib_mlps.py [--kit DIR] [--smsim build/smsim] [--config C]
                         [--set key=value ...] [--only 'L,G,b;...'] [--trips-div N] [--jobs N]

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "data/h100/kit10-2026-12-06")
KIT11 = os.path.join(HERE, "data/h100/kit11-2026-12-06")
LS = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"


def layout(sass, L, M):
    """PCs of mlps_read<L> (M = 0) or mlps_mix<L, M>: the guard, the loop's
    back edge, its loads, its stores (M = 2) and the final STG."""
    fn = f"_Z9mlps_readILi{L}E" if M == 0 else f"_Z8mlps_mixILi{L}ELi{M}E"
    pcs = sassctl.function_of(sass, fn)
    bra = [pc for pc, t in pcs if "BRA" in t and "@" in t]
    ldg = [pc for pc, t in pcs if t.startswith("LDG.E")]
    stg = [pc for pc, t in pcs if t.startswith("STG.E ")]
    if len(bra) != 2 or len(ldg) != L or len(stg) != (L + 1 if M == 2 else 1):
        raise SystemExit(f"calib_mlps: unexpected SASS of {fn} in {sass}")
    return fn, bra[0], bra[1], ldg, stg[:-1], stg[-1]


def trace(a, p, tmp):
    """Lane 0 of load k of warp w = block*4 + warp in trip t reads float
    (w/G)*L*G*32 + (w%G)*32 + k*G*32 + t*trip_floats (k in SASS order); with
    M = 1 the odd k of src2, with M = 2 store k writes dst at load k's offset."""
    L, M, G, b = p["L"], p["M"], p["G"], p["b"]
    sass = os.path.join(p["kit"], "build/calib_mlps.sass")
    fn, guard, back, ldg, stl, stg = layout(sass, L, M)
    w = "(block*4+warp)"
    off = lambda k: f"{w}/{G}*{L * G * 128}+{w}%{G}*128+{k * G * 128}+i0*{p['tripf'] * 4}"
    ann = [f"0x{pc:04x} pattern=coalesced footprint=1G "
           f"addr={'0x2000000000' if M == 1 and k % 2 else '0x1000000000'}+{off(k)}"
           for k, pc in enumerate(ldg)]
    ann += [f"0x{pc:04x} pattern=coalesced footprint=1G addr=0x3000000000+{off(k)}" for k, pc in enumerate(stl)]
    ann.append(f"0x{stg:04x} pattern=coalesced footprint=blocks*512 addr=0x4000000000+block*512+warp*128")
    trips = max(1, p["trips"] // a.trips_div)
    path = calibsim.loop_trace(a, os.path.join(tmp, f"mlps_{M}_{L}_{G}_{b}"), sass, fn,
                               p["grid"], p["regs"], p["dyn"], back, guard, trips, ann)
    return path, trips


def measured(kit):
    """(M, L, G, b) -> the point: timing and, where ncu ran it, long_scoreboard.
    kit10 has mlps_read alone (M = 0, mlps/); kit11 M = 0, 1, 2 (mix/)."""
    pts = {}
    mix = os.path.exists(os.path.join(kit, "mix/mix-time.csv"))
    with open(os.path.join(kit, "mix/mix-time.csv" if mix else "mlps/mlps-time.csv")) as f:
        for r in csv.DictReader(f):
            if r.get("check") != "ok":
                continue
            M = int(r.get("mix", 0))
            L, G, b, grid = int(r["L"]), int(r["G"]), int(r["b"]), int(r["grid"])
            warps = grid * 4
            groups = (warps + G - 1) // G
            pts[(M, L, G, b)] = {"M": M, "L": L, "G": G, "b": b, "grid": grid, "gbs": float(r["GBps_med"]),
                                 "trips": int(r["trips"]), "dyn": int(r["dyn"]), "regs": int(r["regs"]),
                                 "tripf": groups * G * 32 * L, "all": G == warps, "kit": kit}
    runs = [(f"mix/mix{m}-ncu", m) for m in (0, 1, 2)] if mix else [("mlps/mlps-ncu", 0)]
    for stem, m in runs:
        ncu = os.path.join(kit, stem + ".raw.csv")
        if not os.path.exists(ncu):
            continue
        got = calibsim.ncu_points(os.path.join(kit, stem + ".stdout"), ncu,
                                  lambda v: (int(v.get("mix", 0)), int(v["L"]), int(v["G"]), int(v["b"])),
                                  {"ls": LS})
        for k, v in got.items():
            if k in pts:
                pts[k]["ls"] = v["ls"]
    return pts


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--kit", action="append", default=[],
                    help=f"kit directory (repeatable; default {KIT} and {KIT11})")
    ap.add_argument("--only", default="",
                    help="points 'M,L,G,b;...' (G 0 = all warps; kit10's are M = 0; default: all)")
    ap.add_argument("--trips-div", type=int, default=1)
    ap.add_argument("--ghz", type=float, default=1.98, help="SM clock under load (validate/data/h200/README.md)")
    a = ap.parse_args()
    rows = []
    for kit in a.kit or [KIT, KIT11]:
        pts = measured(kit)
        keys = sorted(pts, key=lambda k: (k[0], k[1], pts[k]["all"], k[2], k[3]))
        if a.only:
            want = {tuple(int(x) for x in s.split(",")) for s in a.only.split(";") if s}
            keys = [k for k in keys if k in want or (k[0], k[1], 0, k[3]) in want and pts[k]["all"]]
        rows += [(kit, k, pts) for k in keys]
    tmp = tempfile.mkdtemp(prefix="calib_mlps.")

    def one(row):
        kit, k, pts = row
        p = pts[k]
        path, trips = trace(a, p, tmp)
        m = calibsim.metrics(a, path)
        by = p["grid"] * 128 * 4 * p["L"] * trips
        return by / (m["sm__cycles_elapsed.avg"] / a.ghz), m.get(LS, 0.0)

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, rows))
    sim = {(kit, k): r[0] for (kit, k, _), r in zip(rows, res)}
    errs, serr = [], []
    print("kit     M  L      G  gap(B)  b   GB/s meas  smsim  err %   vs far meas  smsim"
          "   vs M=0 meas  smsim   long_sb meas  smsim")
    for (kit, k, pts), (gbs, ls) in zip(rows, res):
        M, L, G, b = k
        p = pts[k]
        e = 100.0 * (gbs - p["gbs"]) / p["gbs"]
        errs.append(abs(e))
        rel = []
        for other in ([fk for fk in pts if pts[fk]["all"] and fk[:2] == (M, L) and fk[3] == b], [(0, L, G, b)]):
            o = other[0] if other else None
            if o is not None and o != k and (kit, o) in sim:
                mr, sr = p["gbs"] / pts[o]["gbs"], gbs / sim[(kit, o)]
                if b <= 2:
                    serr.append(abs(100.0 * (sr - mr) / mr))
                rel.append(f"{mr:8.3f} {sr:6.3f}")
            else:
                rel.append("       -      -")
        lsm = f"{p['ls']:8.1f}" if "ls" in p else "       -"
        print(f"{os.path.basename(kit)[:5]:5s} {M:2d} {L:2d} {'all' if p['all'] else G:>6} {G * 128:7d} {b:2d}"
              f"  {p['gbs']:6.0f} {gbs:6.0f} {e:+6.1f}   {rel[0]}   {rel[1]}   {lsm} {ls:6.1f}")
    print(f"GB/s MAPE {sum(errs) / len(errs):.1f} % (max {max(errs):.1f}) over {len(errs)} points")
    if serr:
        print(f"speed-ups (over the far layout, over M = 0) at b <= 2: MAPE {sum(serr) / len(serr):.1f} % "
              f"(max {max(serr):.1f}) over {len(serr)} ratios")


if __name__ == "__main__":
    sys.exit(main())
