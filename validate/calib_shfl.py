#!/usr/bin/env python3
"""calib_shfl.py — the result latency of SHFL (`pipes.lsu.latency`) from
kit14's calib_pipes chains (calibration data, never validation data).

kit14 (validate/run-calib14.sh, phase shfl) timed calib_pipes' dependent
chains of SHFL.BFLY (op shfl), SHFL.IDX with a register lane (shfli), SHFL
and LDS interleaved (mixsl) and LDS alone (lds): C = 1, 2, 4, 8 chains per
warp, W = 1..32 warps in one block (shfl/pipes.txt, clock64 around 64 loop
trips of 256 chain instructions), and once more under ncu
(shfl/pipes-ncu.raw.csv: issue rate and stall reasons).

The key: SHFL is the only instruction with a result that smsim times by the
LSU pipe's latency (SYNCS aside; loads, stores and LDS take theirs from
memory.*).  For every ncu launch of op shfl this script converts that
instance's SASS (build/calib_pipes.sass.xz) with `smsim sass2trace` (the loop's
64 trips, its guard not taken, the trace's warp-instructions checked equal
to ncu's smsp__inst_executed.sum), runs smsim with each candidate latency
and with the configured one, and prints ncu's warp cycles per issued
instruction, short_scoreboard and mio_throttle per issue against smsim's.
The key is the candidate whose one-warp chain comes closest to ncu's; the
timing table of pipes.txt (C = 1: the latency, C = 8: the issue interval;
shfl, shfli, lds, mixsl) is printed first: do SHFL and LDS share the
SMSP's LSU pipe (smsim: yes)?

    python3 validate/calib_shfl.py KIT [--smsim build/smsim] [--config F]
        [--set sec.key=val ...] [--jobs N]

Standard library only; deterministic.
SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import lzma
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

ROOT = calibsim.ROOT
TRIPS = 64  # calib_pipes' iters (its default; run-calib14.sh keeps it)
WCPI = "smsp__average_warp_latency_per_inst_issued.ratio"
MIO = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
SS = "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"
OPS = {11: "shfl", 12: "shfli", 13: "mixsl", 5: "lds"}


def die(msg):
    print("calib_shfl.py: " + msg, file=sys.stderr)
    sys.exit(1)


def num(s):
    return float(s.replace(",", ""))


def timing(path):
    """{(op, chains, warps): (cyc_per_inst_warp, cyc_per_inst_smsp, line)} of pipes.txt."""
    out = {}
    with open(path) as f:
        for i, x in enumerate(f, start=1):
            if x.startswith("CALIB prog=pipes "):
                d = calibsim.kv(x)
                out[(d["op"], int(d["chains"]), int(d["warps"]))] = (
                    float(d["cyc_per_inst_warp"]), float(d["cyc_per_inst_smsp"]), i)
    return out


def launches(path):
    rows = list(csv.reader(open(path)))
    h = rows[0]
    out = []
    for i, r in enumerate(rows[2:], start=3):
        d = dict(zip(h, r))
        m = re.match(r"void pipe<(\d+), (\d+)>", d["Kernel Name"])
        if not m or int(m.group(1)) != 11:
            continue
        op, ch = (int(x) for x in m.groups())
        warps = int(d["Block Size"].strip("()").split(",")[0]) // 32
        out.append(dict(line=i, id=d["ID"], op=OPS[op], chains=ch, warps=warps,
                        name="_Z4pipeILi%dELi%dEEvi10PipeParamsPKjPxPf" % (op, ch),
                        insts=int(num(d["smsp__inst_executed.sum"])),
                        wcpi=num(d[WCPI]), ss=num(d[SS]), mio=num(d[MIO])))
    return out


def trace(a, p, fns, sass, ncu, tmp):
    guard, back = calibsim.loop_branches(fns[p["name"]])
    if back is None or guard is None:
        die("%s: no loop with a guard in %s" % (p["name"], sass))
    tr = os.path.join(tmp, "%s_w%d.trace" % (p["name"], p["warps"]))
    calibsim.subprocess.run(
        [a.smsim, "sass2trace", "--sass", sass, "--kernel", "^%s$" % p["name"], "--ncu", ncu,
         "--ncu-id", p["id"], "--trip", "0x%04x=%d" % (back, TRIPS), "--take", "0x%04x=0" % guard,
         "--expect-insts", str(p["insts"]), "--tolerance", "0", "-o", tr],
        check=True, capture_output=True, text=True)
    return tr


def sim(a, tr, lat):
    """smsim on trace tr with pipes.lsu.latency = lat (None: as configured)."""
    m = calibsim.metrics(a, tr, extra=("--carveout", "100", "--quiet", "--threads", "1"),
                         sets=("pipes.lsu.latency=%d" % lat,) if lat is not None else ())
    return dict(wcpi=m[WCPI], ss=m[SS], mio=m[MIO])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kit")
    calibsim.add_args(ap)
    a = ap.parse_args()
    kit = os.path.abspath(a.kit)
    os.chdir(ROOT)
    pipes = os.path.join(kit, "shfl/pipes.txt")
    ncu = os.path.join(kit, "shfl/pipes-ncu.raw.csv")
    sass_xz = os.path.join(kit, "build/calib_pipes.sass.xz")
    for f in (pipes, ncu, sass_xz):
        if not os.path.isfile(f):
            die("%s: no such file (a kit14 folder, validate/run-calib14.sh)" % f)
    t = timing(pipes)
    rel = lambda f: os.path.relpath(f, ROOT)
    if ("shfl", 1, 1) not in t:
        die("%s: no op=shfl chains=1 warps=1 record" % rel(pipes))
    lat1, _, line1 = t[("shfl", 1, 1)]
    print("== SHFL timing (%s: cycles per chain instruction; C chains x W warps) ==" % rel(pipes))
    print("%-6s %6s %6s %6s %6s   %s" % ("op", "C1 W1", "C8 W1", "C1 W32", "C8 W32", "per SMSP at C8 W32"))
    for op in ("shfl", "shfli", "lds", "mixsl"):
        g = lambda c, w, k=0: t[(op, c, w)][k] if (op, c, w) in t else float("nan")
        print("%-6s %6.2f %6.2f %6.2f %6.2f   %6.3f" % (op, g(1, 1), g(8, 1), g(1, 32), g(8, 32), g(8, 32, 1)))
    text = lzma.open(sass_xz, "rt").read()
    fns = sassctl.functions(text.splitlines())
    pts = launches(ncu)
    if not pts:
        die("%s: no launch of pipe<11, C> (op shfl)" % rel(ncu))
    cand = list(range(max(1, int(lat1) - 4), int(lat1) + 3))
    with tempfile.TemporaryDirectory() as tmp:
        sass = os.path.join(tmp, "calib_pipes.sass")
        with open(sass, "w") as fh:
            fh.write(text)
        trs = [trace(a, p, fns, sass, ncu, tmp) for p in pts]
        jobs = [(tr, lat) for tr in trs for lat in cand + [None]]
        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(lambda j: sim(a, *j), jobs))
    by = {(tr, lat): r for (tr, lat), r in zip(jobs, res)}
    one = [i for i, p in enumerate(pts) if p["chains"] == 1 and p["warps"] == 1]
    if not one:
        die("%s: no op shfl launch with 1 chain and 1 warp" % rel(ncu))
    p1 = pts[one[0]]
    # warp cycles per issued instruction of the one-warp chain: one chain
    # instruction (plus ~3 loop instructions per 256) every `latency` cycles
    # (ncu prints it to 0.01 cycle; its issue rate only to 0.01 per cycle)
    err = {lat: abs(by[(trs[one[0]], lat)]["wcpi"] - p1["wcpi"]) / p1["wcpi"] for lat in cand}
    best = min(cand, key=lambda lat: (err[lat], lat))
    print("\n== smsim against ncu (%s), op shfl: warp cycles per issued instruction (wcpi), "
          "short_scoreboard and mio_throttle per issue ==" % rel(ncu))
    print("%3s %3s %5s  %-17s %s" % ("C", "W", "line", "ncu wcpi ss mio", "  ".join(
        "L=%-2d wcpi    ss   mio" % x for x in cand)))
    for p, tr in zip(pts, trs):
        print("%3d %3d %5d  %5.2f %5.2f %5.2f  %s" % (p["chains"], p["warps"], p["line"], p["wcpi"], p["ss"], p["mio"],
                                                     "  ".join("%5.2f %5.2f %5.2f" % (
                                                         by[(tr, x)]["wcpi"], by[(tr, x)]["ss"], by[(tr, x)]["mio"])
                                                         for x in cand)))
    ape = [abs(by[(tr, best)]["wcpi"] - p["wcpi"]) / p["wcpi"] * 100 for p, tr in zip(pts, trs)]
    print("\nlatency %d: one-warp chain wcpi %+.1f %%; all %d shfl launches: wcpi MAPE %.1f %% (max %.1f)" % (
        best, 100 * (by[(trs[one[0]], best)]["wcpi"] - p1["wcpi"]) / p1["wcpi"], len(pts),
        sum(ape) / len(ape), max(ape)))
    cf = by[(trs[one[0]], None)]["wcpi"]
    print("configured (%s%s): one-warp chain wcpi %.2f, ncu %.2f: %+.2f %%" % (
        os.path.relpath(a.config, ROOT), "".join(" --set " + x for x in a.set), cf, p1["wcpi"],
        100 * (cf - p1["wcpi"]) / p1["wcpi"]))
    print("source:     %s:%d (op=shfl chains=1 warps=1: %.3f cycles per instruction)" % (rel(pipes), line1, lat1))
    print("source:     %s:%d (its ncu launch)" % (rel(ncu), p1["line"]))
    print("h200 pipes.lsu.latency %d" % best)
    print("h100 pipes.lsu.latency %d" % best)
    return 0


if __name__ == "__main__":
    sys.exit(main())
