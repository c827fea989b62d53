#!/usr/bin/env python3
"""calib_order.py — which warps an SMSP serves when several could issue every
cycle (`scheduler.policy`), from kit15's calib_order (calibration data, never
validation data).

kit15 (validate/run-calib15.sh, phase order) ran one wave of b blocks per SM
x W warps per block; every warp runs 8 independent FFMA chains (64 trips of
256 FFMAs), so one warp alone issues about every cycle and the scheduler
alone decides who goes first.  order/order.txt has clock64 at each warp's
start and end (WARP lines, SMs 0-3, SM-relative cycles).  For every point
whose warps all start together (every WARP line's t0 below 1,000 cycles)
this script converts order_ffma's SASS (build/calib_order.sass) with `smsim
sass2trace` and runs smsim on it with each policy, reading each warp's end off
SM 0's timeline.  Per point it prints the ratio of the first warp's end to
the last one's (1.00: every warp progresses together; ~0.5: half the warps
finish first) and the SM's span, measured and simulated.  The `configured`
line gives the configured policy's largest |ratio difference|.

    python3 validate/calib_order.py KIT [--smsim build/smsim] [--config F]
        [--set sec.key=val ...] [--jobs N] [--policies gto,gob,...]

Standard library only; deterministic.
SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

ROOT = calibsim.ROOT
TRIPS = 64  # calib_order's iters (its default; run-calib15.sh keeps it)


def die(msg):
    print("calib_order.py: " + msg, file=sys.stderr)
    sys.exit(1)


def points(path):
    """[(C, b, W, dyn, line, ratio, span)] of order.txt's points whose warps all
    start within 1,000 cycles on every listed SM: ratio = median over the SMs
    of (first warp end / last warp end), span = median of the last warp end
    (cycles after the SM's first start)."""
    order, warps = [], collections.defaultdict(list)

    def field(d, k, i):
        try:
            return int(d[k] if k != "chains" else d.get(k, 8))
        except (KeyError, ValueError):
            die("%s:%d: field %s missing or not an integer" % (path, i, k))

    with open(path) as f:
        for i, x in enumerate(f, start=1):
            if x.startswith("ORDER "):
                d = calibsim.kv(x)
                order.append(tuple(field(d, k, i) for k in ("chains", "b", "warps", "dyn")) + (i,))
            elif x.startswith("WARP "):
                d = calibsim.kv(x)
                key = tuple(field(d, k, i) for k in ("chains", "b", "warps", "sm"))
                warps[key].append((field(d, "t0", i), field(d, "t1", i)))
    out = []
    for c, b, w, dyn, line in order:
        sms = [v for (cc, bb, ww, _), v in warps.items() if (cc, bb, ww) == (c, b, w)]
        if not sms:
            die("%s:%d: no WARP lines for chains=%d b=%d warps=%d" % (path, line, c, b, w))
        if max(t0 for v in sms for t0, _ in v) >= 1000:
            continue  # not all resident at once (shared memory or slots)
        ends = [[t1 for _, t1 in v] for v in sms]
        out.append((c, b, w, dyn, line, statistics.median(min(e) / max(e) for e in ends),
                    statistics.median(max(e) for e in ends)))
    return out


def kernel(chains):
    """calib_order's function for C chains (order_ffma is C = 8)."""
    return "_Z10order_ffmaiffPxPf" if chains == 8 else "_Z9order_depILi%dEEviffPxPf" % chains


def regs(path):
    """{function: registers} of ptxas's -v output."""
    out, cur = {}, None
    for x in open(path):
        m = re.search(r"Compiling entry function '([^']+)'", x)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", x)
        if m and cur:
            out[cur] = int(m.group(1))
    if not out:
        die("%s: no 'Used N registers' line" % path)
    return out


def warp_ends(timeline):
    """Each warp slot's last slice end on SM 0's timeline (the tracks named
    "SMSP s warp slot k"; one wave: a slot is one warp)."""
    with open(timeline) as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    slots = {e["tid"] for e in ev if e.get("ph") == "M" and e.get("pid") == 0
             and e.get("name") == "thread_name" and " warp slot " in e["args"]["name"]}
    end = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("pid") == 0 and e.get("tid") in slots:
            end[e["tid"]] = max(end.get(e["tid"], 0), e["ts"] + e.get("dur", 0))
    return list(end.values())


def sim(a, tr, policy, tmp):
    tl = os.path.join(tmp, "%s.%s.json" % (os.path.basename(tr), policy))
    cmd = [a.smsim, "--config", a.config, tr, "--quiet", "--threads", "1", "--format", "json",
           "-o", os.devnull, "--timeline", tl, "--timeline-sms", "1",
           "--timeline-cycles", "10000000"]
    for s in list(a.set) + (["scheduler.policy=" + policy] if policy else []):
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    v = warp_ends(tl)
    if not v:
        die("%s: no warp on SM 0's timeline" % tr)
    return min(v) / max(v), max(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kit")
    calibsim.add_args(ap)
    ap.add_argument("--policies", default="gto,gob,grr")
    a = ap.parse_args()
    kit = os.path.abspath(a.kit)
    os.chdir(ROOT)
    txt = os.path.join(kit, "order/order.txt")
    sass = os.path.join(kit, "build/calib_order.sass")
    ptx = os.path.join(kit, "build/calib_order.ptxas.txt")
    for f in (txt, sass, ptx):
        if not os.path.isfile(f):
            die("%s: no such file (a kit15 folder, validate/run-calib15.sh)" % f)
    pts = points(txt)
    if not pts:
        die("%s: no ORDER point whose warps all start together" % os.path.relpath(txt, ROOT))
    nreg = regs(ptx)
    fns = sassctl.functions(open(sass, errors="replace").read().splitlines())
    loops = {}
    for c in sorted({p[0] for p in pts}):
        k = kernel(c)
        if k not in fns or k not in nreg:
            die("%s: no function %s (chains=%d) in the SASS or ptxas output" % (sass, k, c))
        guard, back = calibsim.loop_branches(fns[k])
        if back is None or guard is None:
            die("%s: no loop with a guard in %s" % (k, sass))
        loops[c] = (guard, back)
    sms = int(calibsim.kv(open(txt).readline())["sms"])
    pols = [p for p in a.policies.split(",") if p]
    with tempfile.TemporaryDirectory() as tmp:
        trs = [calibsim.loop_trace(a, os.path.join(tmp, "o_c%d_b%d_w%d" % (c, b, w)), sass,
                                   kernel(c), sms * b, nreg[kernel(c)], dyn, loops[c][1],
                                   loops[c][0], TRIPS, [], block=32 * w)
               for c, b, w, dyn, _, _, _ in pts]
        jobs = [(tr, p) for tr in trs for p in pols + [None]]
        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(lambda j: sim(a, j[0], j[1], tmp), jobs))
    by = dict(zip(jobs, res))
    rel = os.path.relpath(txt, ROOT)
    print("== first warp end / last warp end on an SM, and its span (cycles) ==")
    print("%-14s %-14s %14s" % ("point", "measured", "configured") +
          "".join(" %14s" % p for p in pols))
    worst = 0.0
    for tr, (ch, b, w, _, line, ratio, span) in zip(trs, pts):
        c = by[(tr, None)]
        worst = max(worst, abs(c[0] - ratio))
        print("b=%d W=%-2d C=%d  %5.3f %7d  %5.3f %7d" % (b, w, ch, ratio, span, c[0], c[1]) +
              "".join("  %5.3f %7d" % by[(tr, p)] for p in pols) + "   %s:%d" % (rel, line))
    print("configured (%s): largest |ratio difference| %.3f" % (os.path.basename(a.config), worst))


if __name__ == "__main__":
    main()
