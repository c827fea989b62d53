#!/usr/bin/env python3
"""calib_loaded.py — the loaded-latency curve of the H200 (calibration,
kit-2026-12-01/loaded; never validation data) against smsim.

The measured kernel, loaded (validate/kernels/calib_loaded.cu): 132 SMs x 4
blocks of 256 threads; on every SM one warp chases pointers (ld.global.cg,
one random cycle over 1 GiB, 1 or 32 lanes) while the 31 other warps stream
(4 float4 loads per thread per trip over 2 GiB, then spin `delay` cycles).
This script writes the same launch as a native trace: the chaser is warp 7
of blocks 0..131 (the first wave puts block i on SM i % 132, docs/model.md),
its loads `pattern=random footprint=1G`, dependent; a streamer's trip is the
kernel's four LDG.E.128 (its addresses: the grid-stride chunk walk of the
source), the FADD tree that consumes them, the loop overhead, and the spin as
one instruction whose result takes `delay` cycles (`lat=`, what clock64()
spinning costs the warp: it issues nothing the memory system sees).
Streamers run a fixed number of trips, enough to outlast the chase (the GPU's
stop when the chasers are done), so the chase runs under a steady stream.

Reported per point: stream GB/s (streamed bytes / elapsed cycles at 1.98 GHz)
and the chaser's cycles per load (the warp-cycles smsim's source view puts on
the timed chase load, per chaser and load), next to the measured ones
(loaded.csv, CUDA events and clock64(), medians).  Since smsim's bandwidth at
a given delay need not equal the GPU's, the comparison is at equal
bandwidth: the measured curve (cyc/load against GB/s, per lane count) is
interpolated at smsim's bandwidth; err % = (smsim - measured at that
bandwidth) / measured.  Points beyond the measured range are compared with
the nearest end of the curve.

With --kit and --op (kit13, validate/run-calib13.sh: calib_loaded --op) the
streamers store (4 STG.E.128 per trip over the 2 GiB buffer) or copy (4
LDG.E.128 from its first GiB, 4 STG.E.128 of the same values to its second)
instead; their GB/s count the bytes loaded plus stored, as the kernel's do.

  validate/calib_loaded.py [--smsim build/smsim] [--set memory.dram_banks=N ...]
                           [--lanes 1,32] [--iters 256] [--jobs 2]
                           [--kit DIR --op load|store|copy]

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data/h200/kit-2026-12-01/loaded/loaded.csv")
SMS = 132
BLOCKS_PER_SM = 4
WARPS = 8                # 256 threads
GHZ = 1.98               # SM clock ncu measured under load (kit-2026-12-01 SUMMARY.md)
DYN = 57344              # dynamic shared memory: 4 blocks fit (calib_loaded.cu: padding)
WARM = 32                # untimed chase loads before the timed ones


def trace(lanes, delay, iters, trips, op="load"):
    grid = SMS * BLOCKS_PER_SM
    nw = grid * WARPS
    mask = "0x1" if lanes == 1 else "0xffffffff"
    out = [f"# calib_loaded: lanes={lanes} delay={delay} (validate/calib_loaded.py)",
           f"kernel loaded_{op} grid=({grid},1,1) block=(256,1,1) regs=32 smem_static=0 smem_dynamic={DYN} {{",
           "  LDC R1, c[0x0][0x28]", "  S2R R0, SR_TID.X", "  S2R R3, SR_VIRTUALSMID",
           "  BAR.SYNC.DEFER_BLOCKING 0x0",
           f"  when block < {SMS} && warp == {WARPS - 1} {{",
           "    LDC.64 R6, c[0x0][0x220]",
           "    LDG.E.64 R4, desc[UR6][R6.64]",
           f"    loop {WARM} {{",
           f"      LDG.E.64 R4, desc[UR6][R4.64] pattern=random footprint=1G width=8 mask={mask}",
           "    }",
           "    CS2R R8, SR_CLOCKLO",
           f"    loop {iters} {{",
           f"      LDG.E.64 R4, desc[UR6][R4.64] pattern=random footprint=1G width=8 mask={mask}  # TIMED",
           "    }",
           "    CS2R R10, SR_CLOCKLO",
           "    STG.E.64 desc[UR6][R6.64], R4 footprint=8K",
           "    EXIT",
           "  }"]
    if delay < 0:
        out += ["  EXIT", "}"]
        return "\n".join(out) + "\n"
    gw = f"(block*{WARPS}+warp)"
    out += ["  LDC.64 R24, c[0x0][0x218]", "  CS2R R28, SRZ",
            f"  loop {trips} {{",
            "    LEA R16, P0, R4, UR4, 0x4"]
    chunks = 524288 if op == "copy" else 1048576
    walk = f"(({gw}+i0*{nw})%{chunks})*2048"
    slots = [(8, 512), (4, 0), (12, 1024), (16, 1536)]
    if op != "store":
        for r, off in slots:
            out.append(f"    LDG.E.128.CONSTANT R{r}, desc[UR6][R16.64] pattern=coalesced "
                       f"addr=0x1000000000+{walk}+{off}")
    if op == "load":
        out += ["    FADD R9, R8, R9", "    FADD R10, R10, R11", "    FADD R4, R4, R5",
                "    FADD R7, R6, R7", "    FADD R9, R9, R10", "    FADD R12, R12, R13",
                "    FADD R4, R4, R7", "    FADD R15, R14, R15", "    FADD R4, R4, R9",
                "    FADD R15, R12, R15", "    FADD R16, R16, R17", "    FADD R19, R18, R19",
                "    FADD R19, R16, R19", "    FADD R4, R4, R15", "    IADD3 R29, P1, R29, 0x40, RZ",
                "    FADD R19, R4, R19", "    FADD R28, R19, R28"]
    else:
        # the stored values: copy's loaded registers, store's one float
        base = "0x1040000000" if op == "copy" else "0x1000000000"
        out += ["    IADD3 R29, P1, R29, 0x40, RZ"] + ([] if op == "copy" else ["    I2F R8, R29"])
        for r, off in slots:
            out.append(f"    STG.E.128 desc[UR6][R16.64+0x{off:x}], R{r if op == 'copy' else 8} pattern=coalesced "
                       f"addr={base}+{walk}+{off}")
    if delay > 0:
        # the spin: clock64() until `delay` cycles passed (lat= holds at most 32767)
        left, n = delay, 0
        while left > 0:
            d = min(left, 32767)
            out.append(f"    IADD3 R30, R30, 0x1, RZ lat={d}")
            out.append("    ISETP.GE.AND P2, PT, R30, R26, PT")
            left -= d
            n += 1
    out += ["    IMAD.WIDE.U32 R20, R3, 0x8, R20", "    ISETP.GE.U32.AND P0, PT, R20, R24, PT",
            "    SEL R7, R24, RZ, P0", "    IADD3 R20, P2, R20, -R7, RZ",
            "    @!P1 BRA 0x2b0", "  }", "  EXIT", "}"]
    return "\n".join(out) + "\n"


def measured(path=DATA, op="load"):
    pts = []
    with open(path, newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            if r.get("op", "load") != op:
                continue
            pts.append({"line": i + 2, "lanes": int(r["lanes"]), "delay": int(r["delay_cyc"]),
                        "gbps": float(r["stream_GBps_med"]), "cyc": float(r["cyc_per_load_med_over_sms"])})
    return pts


def chase_cycles(src, timed_line):
    """Warp-cycles on the timed chase load (smsim --source-csv)."""
    rows = [r for r in csv.reader(l for l in open(src) if not l.startswith("#"))]
    hdr = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    cols = rows[hdr]
    s, tl = cols.index("Warp Stall Sampling (All Samples)"), cols.index("Trace Line")
    return sum(float(r[s]) for r in rows[hdr + 1:] if len(r) > tl and r[tl] == str(timed_line))


def one(a, p, tmp):
    lanes, delay = p["lanes"], p["delay"]
    # streamer trips: outlast the chase (measured cycles/load, 1.5x margin);
    # a trip lasts the delay plus a load's latency, and no less than the
    # GPU's bytes in flight take at 4.4 TB/s (Little's law: ~3700 cycles)
    chase = (WARM + a.iters) * p["cyc"] * 1.5
    inflight = (SMS * BLOCKS_PER_SM * WARPS - SMS) * 2048
    trip = max(max(delay, 0) + 700, inflight / (4400 / GHZ))
    trips = max(2, int(chase / trip) + 2) if delay >= 0 else 1
    base = os.path.join(tmp, f"loaded_l{lanes}_d{delay}")
    text = trace(lanes, delay, a.iters, trips, a.op)
    with open(base + ".trace", "w") as f:
        f.write(text)
    timed = next(i + 1 for i, l in enumerate(text.splitlines()) if "# TIMED" in l)
    m = calibsim.metrics(a, base + ".trace",
                         ["--carveout", "100", "--quiet", "--source-csv", base + ".src.csv"])
    el = m["sm__cycles_elapsed.avg"]
    streamed = (SMS * BLOCKS_PER_SM * WARPS - SMS) * trips * 2048 if delay >= 0 else 0
    if a.op == "copy":
        streamed *= 2  # loaded and stored
    gbps = streamed / (el / GHZ)
    cyc = chase_cycles(base + ".src.csv", timed) / (SMS * a.iters)
    return p, gbps, cyc


def interp(curve, x):
    """Measured cyc/load at bandwidth x on a curve of (GB/s, cyc) sorted by GB/s."""
    if x <= curve[0][0]:
        return curve[0][1]
    for (x0, y0), (x1, y1) in zip(curve, curve[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else y1
    return curve[-1][1]


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--lanes", default="1,32")
    ap.add_argument("--delays", default="", help="comma-separated delays to run (default all)")
    ap.add_argument("--iters", type=int, default=256)
    ap.add_argument("--kit", default="", help="kit directory with loaded/loaded.csv (default kit-2026-12-01)")
    ap.add_argument("--op", default="load", choices=["load", "store", "copy"])
    a = ap.parse_args()
    data = os.path.join(a.kit, "loaded/loaded.csv") if a.kit else DATA
    if not os.path.exists(data):
        sys.exit(f"calib_loaded.py: {data}: no such file (--kit wants a kit folder with loaded/loaded.csv)")
    pts = [p for p in measured(data, a.op) if str(p["lanes"]) in a.lanes.split(",")]
    if a.delays:
        pts = [p for p in pts if str(p["delay"]) in a.delays.split(",")]
    tmp = tempfile.mkdtemp(prefix="calib_loaded.")
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda p: one(a, p, tmp), pts))
    curves = {}
    for p in measured(data, a.op):
        curves.setdefault(p["lanes"], []).append((p["gbps"], p["cyc"]))
    for c in curves.values():
        c.sort()
    errs = []
    print("lanes  delay | measured GB/s cyc/load | smsim GB/s cyc/load | measured at smsim's GB/s  err %")
    for p, gbps, cyc in res:
        ref = interp(curves[p["lanes"]], gbps)
        e = 100.0 * (cyc - ref) / ref
        errs.append(abs(e))
        print(f"{p['lanes']:5d} {p['delay']:6d} | {p['gbps']:8.0f} {p['cyc']:8.1f}      | "
              f"{gbps:6.0f} {cyc:8.1f}     | {ref:8.1f} (loaded.csv:{p['line']})  {e:+6.1f}")
    print(f"MAPE {sum(errs) / len(errs):.1f} %  max {max(errs):.1f} %")


if __name__ == "__main__":
    sys.exit(main())
