#!/usr/bin/env python3
"""calib_regbank.py — the register-read stage of the issue model (docs/model.md,
"Control bits") against kit3's register-bank measurements (calibration,
kit3-2026-12-01/regbank; never validation data).

The measured kernel, rb_chain<OP,ILP,PAT> (validate/kernels/calib_regbank.cu),
runs ILP interleaved dependent FFMA (OP 0) or FMUL (OP 1) chains, 32 per loop
trip, 512 trips, in one block of 128 wps threads per SM (wps = 1, 2, 4, 8
warps per scheduler); ptxas chose the registers, so each pattern PAT has the
bank signature build/sass-checks.txt lists (FFMA R6, R0, R6, R3: two distinct
registers in bank 0; FFMA R11, R11, R11, R11: one register read thrice; reuse
bits at ILP 2 and 4).  ncu measured every point once
(regbank/regbank-ncu.raw.csv, 108 launches): the issue rate and the stall
reasons per issue.

For each launch this script converts that instance's SASS
(build/calib_regbank.sass) with `smsim sass2trace` at the launch ncu recorded
(--ncu, --ncu-id; the loop's trip count 512, the guard around it not taken,
and the trace's warp-instructions checked equal to ncu's
smsp__inst_executed.sum), runs smsim (configs/h200.yaml unless --config) and
prints measured against simulated: issue active per cycle, and the stall
reasons the register-read stage moves (wait, dispatch_stall, not_selected)
per issue; then the MAPE of the issue rate and the mean |difference| of each
stall, over all points and over the points where the register file limits
the rate (issue active below 0.9 at 4 or 8 warps per scheduler).

    python3 validate/calib_regbank.py [--smsim build/smsim] [--config F]
        [--set sec.key=val ...] [--jobs N] [--case REGEX]

(--case selects the launches whose "OP ILP PAT WPS" matches, e.g.
'^ffma 1 0 ' or '^fmul .* 8$'.)

Standard library only; deterministic.
SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KIT = os.path.join(HERE, "data/h200/kit3-2026-12-01")
SASS = os.path.join(KIT, "build/calib_regbank.sass")
NCU = os.path.join(KIT, "regbank/regbank-ncu.raw.csv")
TRIPS = 512  # calib_regbank's iters (default; the run-calib3.sh --ncu run keeps it)
STALLS = ("wait", "dispatch_stall", "not_selected")
ISSUE = "smsp__issue_active.avg.per_cycle_active"


def stall_key(r):
    return "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % r


def num(s):
    return float(s.replace(",", ""))


def launches():
    rows = list(csv.reader(open(NCU)))
    h = rows[0]
    out = []
    for i, r in enumerate(rows[2:], start=3):
        d = dict(zip(h, r))
        m = re.match(r"void rb_chain<(\d+), (\d+), (\d+)>", d["Kernel Name"])
        if not m:
            continue
        op, ilp, pat = (int(x) for x in m.groups())
        wps = int(d["Block Size"].strip("()").split(",")[0]) // 128
        out.append(dict(line=i, id=d["ID"], op=op, ilp=ilp, pat=pat, wps=wps,
                        name="_Z8rb_chainILi%dELi%dELi%dEEvPK6float4PfiPx" % (op, ilp, pat),
                        insts=int(num(d["smsp__inst_executed.sum"])),
                        issue=num(d[ISSUE]),
                        stalls={s: num(d[stall_key(s)]) for s in STALLS}))
    return out


def one(a, p, fns, tmp):
    guard, back = calibsim.loop_branches(fns[p["name"]])
    tr = os.path.join(tmp, "%s_w%d.trace" % (p["name"], p["wps"]))
    cmd = [a.smsim, "sass2trace", "--sass", SASS, "--kernel", "^%s$" % p["name"], "--ncu", NCU,
           "--ncu-id", p["id"], "--trip", "0x%04x=%d" % (back, TRIPS), "--take", "0x%04x=0" % guard,
           "--expect-insts", str(p["insts"]), "--tolerance", "0", "-o", tr]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    cmd = [a.smsim, "--config", a.config, "--carveout", "100", "--format", "json", "--quiet",
           "--threads", "1", tr]
    for s in a.set:
        cmd += ["--set", s]
    m = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    met = m["kernels"][0]["metrics"]
    return dict(issue=met[ISSUE], stalls={s: met[stall_key(s)] for s in STALLS})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smsim", default=os.path.join(ROOT, "build/smsim"))
    ap.add_argument("--config", default=os.path.join(ROOT, "configs/h200.yaml"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--case", default="", help="regex on 'OP ILP PAT WPS', e.g. '^ffma 1 0 '")
    a = ap.parse_args()
    os.chdir(ROOT)
    fns = sassctl.functions(open(SASS).read().splitlines())
    pts = [p for p in launches()
           if re.search(a.case, "%s %d %d %d" % ("ffma" if p["op"] == 0 else "fmul", p["ilp"], p["pat"],
                                                 p["wps"]))]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.jobs) as ex:
        sims = list(ex.map(lambda p: one(a, p, fns, tmp), pts))
    print("source: %s (rows as listed: file line)" % os.path.relpath(NCU, ROOT))
    print("%-5s %3s %3s %3s %5s  %-15s %-13s %-13s %-13s" % (
        "op", "ilp", "pat", "wps", "line", "issue ncu/smsim", "wait", "dispatch", "not_sel"))
    ape, bound = [], []
    diff = {s: [] for s in STALLS}
    diffb = {s: [] for s in STALLS}
    for p, s in zip(pts, sims):
        e = 100.0 * (s["issue"] - p["issue"]) / p["issue"]
        ape.append(abs(e))
        lim = p["wps"] >= 4 and p["issue"] < 0.9
        if lim:
            bound.append(abs(e))
        for k in STALLS:
            diff[k].append(abs(s["stalls"][k] - p["stalls"][k]))
            if lim:
                diffb[k].append(abs(s["stalls"][k] - p["stalls"][k]))
        print("%-5s %3d %3d %3d %5d  %.3f %.3f %+5.1f%% %5.2f %5.2f   %5.2f %5.2f   %5.2f %5.2f%s" % (
            "ffma" if p["op"] == 0 else "fmul", p["ilp"], p["pat"], p["wps"], p["line"],
            p["issue"], s["issue"], e,
            p["stalls"]["wait"], s["stalls"]["wait"],
            p["stalls"]["dispatch_stall"], s["stalls"]["dispatch_stall"],
            p["stalls"]["not_selected"], s["stalls"]["not_selected"], "  *" if lim else ""))

    def mean(x):
        return sum(x) / len(x) if x else float("nan")
    print("all %d points: issue MAPE %.1f %% (max %.1f); mean |diff| per issue: %s" % (
        len(ape), mean(ape), max(ape), ", ".join("%s %.2f" % (k, mean(diff[k])) for k in STALLS)))
    print("register-bound (*, %d points): issue MAPE %.1f %%; mean |diff| per issue: %s" % (
        len(bound), mean(bound), ", ".join("%s %.2f" % (k, mean(diffb[k])) for k in STALLS)))


if __name__ == "__main__":
    sys.exit(main())
