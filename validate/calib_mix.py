#!/usr/bin/env python3
"""calib_mix.py — kit9's interleaved pipe mixes (calibration, measured on an
H100 whose SM is the H200's; validate/data/h100/kit9-2026-12-06), smsim
against ncu.

calib_pipes (validate/kernels/calib_pipes.cu) runs 8 independent chains per
warp, 32 warps in one block on one SM; each mix interleaves two chains of
different pipes: mixai IMAD + IADD3, mixfa FFMA + IADD3, mixfi FFMA + IMAD
(the three ncu launches).  The script converts each function's SASS
(kit9 build/calib_pipes.sass) into a native trace with `smsim sass2trace`
(its loop run 64 times; the ncu launch ran 64) and prints the issue rate
and stall split per issue next to ncu's (mix/mix-ncu.raw.csv).  It checks
the FMA datapath rules (docs/model.md "FMA datapaths"): whether ALU and
FMA-heavy are separate, and how FP32 picks between FMA-lite and FMA-heavy.

Usage: python3 validate/calib_mix.py [--smsim build/smsim]
           [--config configs/h200.yaml] [--set KEY=VALUE]
"""
import argparse
import csv
import os
import re
import tempfile

import calibsim

KIT = os.path.join(calibsim.ROOT, "validate/data/h100/kit9-2026-12-06")
SASS = os.path.join(KIT, "build/calib_pipes.sass")
NCU = os.path.join(KIT, "mix/mix-ncu.raw.csv")
MIXES = [(8, "mixai"), (9, "mixfa"), (10, "mixfi")]
STALLS = ["not_selected", "math_pipe_throttle", "dispatch_stall", "wait"]
STALL = "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio"
ISSUE = "smsp__issue_active.avg.per_cycle_active"


def function(sass, op):
    """Name, loop guard PC and back-edge PC of pipe<op, 8>."""
    txt = open(sass).read()
    m = re.search(r"Function : (_Z4pipeILi%dELi8E\S*)" % op, txt)
    if not m:
        raise SystemExit(f"calib_mix: pipe<{op}, 8> not in {sass}")
    end = txt.find("Function :", m.end())
    body = txt[m.end():end if end >= 0 else len(txt)]
    bras = re.findall(r"/\*([0-9a-f]{4})\*/\s+@!?P\d BRA", body)
    if len(bras) < 2:
        raise SystemExit(f"calib_mix: pipe<{op}, 8>: no guard and loop branch")
    return m.group(1), int(bras[0], 16), int(bras[-1], 16)


def measured():
    """op -> ncu's metrics of the first launch of pipe<op, 8>."""
    rows = list(csv.reader(open(NCU)))
    h, out = rows[0], {}
    for r in rows[2:]:
        m = re.match(r"void pipe<(\d+), 8>", r[h.index("Kernel Name")])
        if m and int(m.group(1)) not in out:
            val = lambda n: float(r[h.index(n)].replace(",", "")) if n in h else 0.0
            out[int(m.group(1))] = {"issue": val(ISSUE), **{s: val(STALL % s) for s in STALLS}}
    return out


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    a = ap.parse_args()
    meas = measured()
    tmp = tempfile.mkdtemp(prefix="calib_mix.")
    print("mix     issue ncu smsim   " + "   ".join(f"{s} ncu smsim" for s in STALLS))
    errs = []
    for op, name in MIXES:
        kern, guard, back = function(SASS, op)
        path = calibsim.loop_trace(a, os.path.join(tmp, name), SASS, kern, 1, 40, 0, back, guard, 64,
                                   ["# no memory operands"], block=1024)
        m = calibsim.metrics(a, path)
        g = meas.get(op)
        if g is None:
            continue
        p = m[ISSUE]
        errs.append(abs(p - g["issue"]) / g["issue"] * 100)
        cells = "   ".join(f"{g[s]:5.2f} {m.get(STALL % s, 0.0):5.2f}" for s in STALLS)
        print(f"{name:6s}  {g['issue']:5.2f} {p:5.2f}   {cells}")
    print(f"issue MAPE {sum(errs) / len(errs):.1f} % (max {max(errs):.1f}) over {len(errs)} mixes")


if __name__ == "__main__":
    main()
