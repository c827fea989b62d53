#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Quick read of kit5 (validate/run-calib5.sh), standard library only.

    python3 validate/kit5_summary.py [--queue queue.csv] [--life life.csv[.xz|.gz]]
                                     [--life-records life-records.csv]

--queue: the QUEUE records (validate/kv2csv.py QUEUE ...).  Per flavour and W
(warps per SMSP), S = 0: the SMSP's cycles per burst instruction
(smsp_cpi_med) and one warp's burst cycles (burst_cyc_med) against K, and the
first W K whose cycles per instruction exceed 1.5 x the flavour's smallest
(the queue-full knee, a first guess).  S = 1: W = 1's stamp medians.
--life: calib_launch2's per-warp CSV; --life-records: its LIFE records
(kv2csv LIFE), for the launch names.  Per launch: median warp life (c1 - c0),
median gap from a warp's end stamp to the next start in the same SM warp slot,
median block stagger (first to last warp start of a block / (warps - 1)), and
the stamp occupancy (sum of lives / 64 / the SM's first-start-to-last-end
span, median over SMs).
"""
import argparse
import csv
import gzip
import lzma
import sys
from collections import defaultdict


def opentext(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt", newline="")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def med(v):
    v = sorted(v)
    return v[len(v) // 2] if v else None


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def fmt(x, nd=2):
    if x is None:
        return "-"
    if abs(x - round(x)) < 1e-9 and abs(x) >= 10:
        return str(int(round(x)))
    return f"{x:.{nd}f}"


def queue_summary(path, out):
    with opentext(path) as f:
        rows = list(csv.DictReader(f))
    groups = defaultdict(list)
    flav = []
    for r in rows:
        if r.get("flavour") not in flav:
            flav.append(r.get("flavour"))
        groups[(r.get("flavour"), r.get("S"), r.get("W"))].append(r)
    out.write("## queue: per flavour and W (warps per SMSP), S=0: K:smsp_cpi_med (K:burst_cyc_med of one warp)\n")
    for fl in flav:
        pts = []
        for (f2, s, w), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2] or 0))):
            if f2 != fl or s != "0":
                continue
            rs = sorted(rs, key=lambda r: int(r["K"]))
            cells = []
            for r in rs:
                cpi = fnum(r.get("smsp_cpi_med"))
                cells.append(f"{r['K']}:{fmt(cpi)}({fmt(fnum(r.get('burst_cyc_med')), 0)})")
                if cpi is not None:
                    pts.append((int(r["W"]) * int(r["K"]), cpi, r["W"], r["K"]))
            bad = sum(1 for r in rs if r.get("check") != "ok")
            out.write(f"queue {fl} W={w}: " + " ".join(cells) + (f" checks_failed={bad}" if bad else "") + "\n")
        if pts:
            lo = min(p[1] for p in pts)
            knee = next((p for p in sorted(pts) if p[1] > 1.5 * lo), None)
            out.write(f"queue {fl} knee: min cpi {fmt(lo)}; first W*K with cpi > 1.5x min: "
                      + (f"{knee[0]} (W={knee[2]} K={knee[3]} cpi {fmt(knee[1])})" if knee else "none") + "\n")
    for fl in flav:
        for r in sorted(groups.get((fl, "1", "1"), []), key=lambda r: int(r["K"])):
            out.write(f"queue {fl} W=1 S=1 K={r['K']}: stamp after load 4j+3 (cycles from t0) {r.get('st_med')}"
                      f" burst {r.get('burst_cyc_med')}\n")


def life_summary(path, recpath, out):
    names = {}
    if recpath:
        try:
            with opentext(recpath) as f:
                for r in csv.DictReader(f):
                    names[r.get("L")] = (f"w{r.get('work')}-t{r.get('block')}-{r.get('waves')}w"
                                         f" grid={r.get('grid')} occ_api={r.get('occ_api')}")
        except OSError as e:
            out.write(f"life: cannot read {recpath}: {e}\n")
    life = defaultdict(list)
    slots = defaultdict(list)
    blk = {}
    smspan = {}
    smlife = defaultdict(float)
    with opentext(path) as f:
        for r in csv.DictReader(f):
            try:
                L, b, sm, hw = r["L"], int(r["block"]), int(r["smid"]), int(r["hwwarp"])
                c0, lf = int(r["c0"]), int(r["life"])
            except (KeyError, ValueError):
                continue
            if c0 < 0:
                continue
            life[L].append(lf)
            slots[(L, sm, hw)].append((c0, c0 + lf))
            k = (L, b)
            lo, hi, n = blk.get(k, (c0, c0, 0))
            blk[k] = (min(lo, c0), max(hi, c0), n + 1)
            s = smspan.get((L, sm))
            smspan[(L, sm)] = (c0, c0 + lf) if s is None else (min(s[0], c0), max(s[1], c0 + lf))
            smlife[(L, sm)] += lf
    gaps = defaultdict(list)
    for (L, _, _), v in slots.items():
        v.sort()
        for i in range(1, len(v)):
            gaps[L].append(v[i][0] - v[i - 1][1])
    stag = defaultdict(list)
    for (L, _), (lo, hi, n) in blk.items():
        if n > 1:
            stag[L].append((hi - lo) / (n - 1))
    socc = defaultdict(list)
    for (L, sm), (lo, hi) in smspan.items():
        if hi > lo:
            socc[L].append(100.0 * smlife[(L, sm)] / (64.0 * (hi - lo)))
    out.write("## launch2: per launch (SM cycles): warps, life med/p90, slot gap med, block stagger/warp med, "
              "stamp occupancy % med over SMs\n")
    for L in sorted(life, key=lambda x: int(x)):
        lv = sorted(life[L])
        p90 = lv[int(0.9 * (len(lv) - 1))]
        out.write(f"life L={L} {names.get(L, '')}: warps={len(lv)} life_med={med(lv)} life_p90={p90} "
                  f"slot_gap_med={fmt(med(gaps[L]), 0)} stagger_per_warp_med={fmt(med(stag[L]))} "
                  f"stamp_occ_pct_med={fmt(med(socc[L]))}\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queue")
    ap.add_argument("--life")
    ap.add_argument("--life-records")
    a = ap.parse_args(argv[1:])
    rc = 0
    for what, fn in (("queue", lambda: queue_summary(a.queue, sys.stdout)),
                     ("life", lambda: life_summary(a.life, a.life_records, sys.stdout))):
        if getattr(a, what) is None:
            continue
        try:
            fn()
        except Exception as e:  # a quick read never stops the kit
            sys.stdout.write(f"{what}: summary failed: {type(e).__name__}: {e}\n")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
