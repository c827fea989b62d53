#!/usr/bin/env python3
"""calib_gather.py — scattered DRAM and L2 accesses of 1, 2 or 4 sectors per
line, smsim against the H200's kit7 sweep (calibration,
kit7-2026-12-06/gather; never validation).

The measured kernel, gather<S> (validate/kernels/calib_gather.cu), keeps 4
independent 4-byte loads per thread in flight at b blocks of 128 threads per
SM; warp load x goes to line h(x) of the footprint, h a mixing bijection on
NB bits.  S = 1, 2, 4: the warp touches the line's first S sectors; S = 0:
lane i reads one sector of line h(x) + 4099 i (32 lines).  foot=dram: 1 GiB
(NB 23), foot=l2: 16 MiB (NB 17).  This script converts gather<S>'s SASS
(kit7-2026-12-06/build/calib_gather.sass) into a native trace with `smsim
sass2trace`, the loads' addresses the kernel's (the same h, written as an
addr= expression), runs smsim and prints, next to what was measured: GB/s
of sectors touched (CUDA events, gather-time.txt), ncu's DRAM bytes per
access, lg_throttle and long_scoreboard per issue, L2 hit rate
(gather-ncu.raw.csv, launches in the order of gather-ncu.stdout's LAUNCH
lines).

  validate/calib_gather.py [--smsim build/smsim] [--set KEY=VALUE ...]
                           [--only foot,S,b;...] [--trips-div N] [--jobs N]

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
KIT = os.path.join(HERE, "data/h200/kit7-2026-12-06")
SASS = os.path.join(KIT, "build/calib_gather.sass")
SMS = 132
GHZ = 1.98  # SM clock under load (validate/data/h200/README.md)
L = 4
NB = {"l2": 17, "dram": 23}
STRIDE_LINES = 4099
NCU = {"lg": "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
       "ls": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       "l2": "lts__t_sector_hit_rate.pct", "dram": "dram__bytes_read.sum"}


def kernel(s):
    return f"_Z6gatherILi{s}EEvPKfjjPf"


def layout(s):
    """PCs of gather<S>: the guard, the loop's back edge, its 4 loads, the STG."""
    pcs = sassctl.function_of(SASS, kernel(s))
    bra = [pc for pc, t in pcs if "BRA" in t and "@" in t]
    ldg = [pc for pc, t in pcs if t.startswith("LDG.E")]
    stg = [pc for pc, t in pcs if t.startswith("STG.E")]
    if len(bra) != 2 or len(ldg) != L or len(stg) != 1:
        raise SystemExit(f"calib_gather: unexpected SASS of gather<{s}> in {SASS}: "
                         f"{len(bra)} guarded branches, {len(ldg)} LDG, {len(stg)} STG")
    return bra[0], bra[1], ldg, stg[0]


def line_expr(k, nb):
    """calib_gather.cu's gather_line(x) of warp load x = (gw*4 + k) + trip*(Wg*4),
    gw = block*4 + warp, Wg = blocks*4: the low nb bits of the same products."""
    m = (1 << nb) - 1
    x = f"((block*4+warp)*{L}+{k}+i0*blocks*{4 * L})"
    a = f"(({x}*2654435761)&{m})"
    return f"(((({a})^(({a})>>{nb // 2}))*2246822507)&{m})"


def trace(a, p, tmp):
    foot, s, b = p["foot"], p["S"], p["b"]
    guard, back, ldg, stg = layout(s)
    pat = {4: "pattern=coalesced", 2: "stride=2 width=2", 1: "stride=1 width=1",
           0: f"stride={STRIDE_LINES * 128}"}[s]
    size = (1 << NB[foot]) * 128 + (32 * STRIDE_LINES * 128 if s == 0 else 0)
    ann = [f"0x{pc:04x} {pat} footprint={size} addr=0x1000000000+{line_expr(k, NB[foot])}*128"
           for k, pc in enumerate(ldg)]
    ann.append(f"0x{stg:04x} pattern=coalesced footprint=blocks*512 addr=0x3000000000+block*512+warp*128")
    trips = max(1, p["trips"] // a.trips_div)
    path = calibsim.loop_trace(a, os.path.join(tmp, f"gather_{foot}_{s}_{b}"), SASS, kernel(s), SMS * b,
                               p["regs"], p["dyn"], back, guard, trips, ann)
    return path, trips


def measured():
    """(foot, S, b) -> the point: timing (GB/s, trips, dyn) and ncu's metrics."""
    pts, regs = {}, {}
    with open(os.path.join(KIT, "gather/gather-time.txt")) as f:
        for line in f:
            if line.startswith("INFO kernel=gather<"):
                d = calibsim.kv(line)
                regs[int(d["kernel"][7:-1])] = int(d["regs"])
            if line.startswith("GATHER "):
                d = calibsim.kv(line)
                k = (d["foot"], int(d["S"]), int(d["b"]))
                pts[k] = {"foot": k[0], "S": k[1], "b": k[2], "gbs": float(d["GBps_med"]),
                          "trips": int(d["trips"]), "dyn": int(d["dyn"]), "regs": regs[k[1]],
                          "acc": float(d["accesses"]), "bytes": float(d["sector_bytes"])}
    ncu = calibsim.ncu_points(os.path.join(KIT, "gather/gather-ncu.stdout"),
                              os.path.join(KIT, "gather/gather-ncu.raw.csv"),
                              lambda d: (d["foot"], int(d["S"]), int(d["b"])), NCU)
    for k, v in ncu.items():
        if k in pts:
            pts[k].update(v)
    return pts


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--only", default="", help="points 'foot,S,b;...' (default: all)")
    ap.add_argument("--trips-div", type=int, default=1)
    a = ap.parse_args()
    pts = measured()
    keys = sorted(pts, key=lambda k: (k[0] != "dram", k[1], k[2]))
    if a.only:
        want = set()
        for s in a.only.split(";"):
            if not s:
                continue
            f = s.split(",")
            if len(f) != 3 or f[0] not in NB or f[1] not in ("0", "1", "2", "4") or not f[2].isdigit():
                ap.error(f"--only: bad point '{s}' (want foot,S,b with foot l2 or dram, S 0/1/2/4)")
            want.add((f[0], int(f[1]), int(f[2])))
        keys = [k for k in keys if k in want]
    tmp = tempfile.mkdtemp(prefix="calib_gather.")

    def one(k):
        p = pts[k]
        path, trips = trace(a, p, tmp)
        m = calibsim.metrics(a, path)
        by = p["bytes"] * trips / p["trips"]
        st = lambda s: m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0)
        dram = m.get("dram__bytes.sum", 0.0) / (p["acc"] * trips / p["trips"])
        return k, by / (m["sm__cycles_elapsed.avg"] / GHZ), st("lg_throttle"), st("long_scoreboard"), \
            m.get(NCU["l2"], 0.0), dram

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, keys))
    errs = []
    print("foot S  b   GB/s ncu  smsim  err %   lg_thr ncu smsim   long_sb ncu smsim   L2 % ncu smsim"
          "   DRAM B/access ncu smsim")
    for (foot, s, b), gbs, lg, ls, l2, dram in res:
        p = pts[(foot, s, b)]
        e = 100.0 * (gbs - p["gbs"]) / p["gbs"]
        errs.append(abs(e))
        print(f"{foot:4s} {s:1d} {b:2d}  {p['gbs']:6.0f} {gbs:6.0f} {e:+6.1f}   {p.get('lg', 0):6.1f} {lg:5.1f}"
              f"   {p.get('ls', 0):8.1f} {ls:5.1f}   {p.get('l2', 0):5.1f} {l2:5.1f}"
              f"   {p.get('dram', 0) / p['acc']:8.1f} {dram:5.1f}")
    if errs:
        print(f"GB/s MAPE {sum(errs) / len(errs):.1f} % (max {max(errs):.1f}) over {len(errs)} points")


if __name__ == "__main__":
    sys.exit(main())
